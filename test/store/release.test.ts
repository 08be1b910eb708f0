/**
 * Stores that let go (API.md section 6, destroy and weak references; issue 19 item 5): a record
 * kept by the app does not keep alive the stores that listed it, `destroy()` releases a store at
 * once, and a record's subscription machinery goes with its last subscriber. Collection is
 * observed with WeakRefs and a real garbage collector.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Model, ProxyError, RestProxy, Store, type RecordSnapshot } from '../../src/index.js';
import { collected } from '../helpers/gc.js';
import { startTestServer, type TestServer } from '../server/index.js';

interface UserData {
  id: number;
  name: string;
}

class User extends Model<UserData> {
  static override entityName = 'User';
  static override fields = [{ name: 'id', type: 'int' }, 'name'];
}


const ROWS = Array.from({ length: 20_000 }, (_, index) => ({ id: index + 1, name: `user ${index + 1}` }));
let server: TestServer;
let proxy: RestProxy;

beforeEach(async () => {
  server = await startTestServer({ resources: { users: ROWS } });
  proxy = new RestProxy({ url: `${server.url}/users` });
});

afterEach(async () => {
  await server.close();
});

/** Ten stores of a 2,000-record page each, one record of each kept: weak references to the stores. */
async function pages(keep: User[], use: (store: Store<User>) => void): Promise<WeakRef<Store<User>>[]> {
  const refs: WeakRef<Store<User>>[] = [];
  for (let page = 1; page <= 10; page++) {
    const store = new Store<User>({ model: User, proxy, pageSize: 2_000 });
    await store.loadPage(page);
    const record = store.getAt(7);
    if (record === undefined) throw new Error(`page ${page} is empty`);
    keep.push(record);
    use(store);
    refs.push(new WeakRef(store));
  }
  return refs;
}

describe('a record kept elsewhere does not keep its stores alive', () => {
  it('ten page stores, one record of each kept, the stores dropped: all ten are collected', async () => {
    const kept: User[] = [];
    const stores = await pages(kept, (store) => {
      // Listened to, subscribed to, edited: none of it ties the kept record to the store.
      store.on('update', () => undefined);
      store.subscribe(() => undefined)();
      kept.at(-1)?.set('name', 'edited');
    });
    expect(await collected(stores)).toBe(0);
    // The records still work without their stores: edits, snapshots, a save through their model's proxy.
    const record = kept[3];
    record?.set('name', 'kept');
    expect([record?.get('name'), record?.dirty, record?.getSnapshot().get('name')]).toEqual(['kept', true, 'kept']);
  });

  it('a record held by two stores still tells the one that is kept', async () => {
    const first = new Store<User>({ model: User, proxy, pageSize: 5 });
    await first.load();
    const ann = first.getAt(0);
    if (ann === undefined) throw new Error('nothing loaded');
    let refs: WeakRef<Store<User>>[] = [];
    const other = (): void => {
      const second = new Store<User>({ model: User, data: [ann] });
      refs = [new WeakRef(second)];
    };
    other();
    expect(await collected(refs)).toBe(0);
    const updates: string[] = [];
    first.on('update', ({ record }) => updates.push(record.get('name')));
    ann.set('name', 'Anna');
    expect(updates).toEqual(['Anna']);
  });
});

/** A store of the first three users, and the first of them. */
async function loadedThree(): Promise<[Store<User>, User]> {
  const store = new Store<User>({ model: User, proxy, pageSize: 3 });
  const [first] = await store.load();
  if (first === undefined) throw new Error('nothing loaded');
  return [store, first];
}

describe('Store.destroy()', () => {
  it('releases the store at once: it holds nothing, tells nobody, and its records no longer tell it', async () => {
    const [store, ann] = await loadedThree();
    const told: string[] = [];
    store.on('update', () => told.push('update'));
    store.on('datachanged', () => told.push('datachanged'));
    store.subscribe(() => told.push('snapshot'));
    told.length = 0;

    store.destroy();
    store.destroy(); // again: nothing more happens
    ann.set('name', 'Anna');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(told).toEqual([]);
    expect([store.getCount(), store.getById(1), store.hasChanges(), store.getSnapshot().records]).toEqual([0, undefined, false, []]);
    // The record goes on without it.
    expect([ann.get('name'), ann.dirty]).toEqual(['Anna', true]);
    await ann.save({ proxy });
    expect(server.db.users?.[0]).toMatchObject({ id: 1, name: 'Anna' });
  });

  it('refuses loads, syncs, adds and inserts with a TypeError naming the store', async () => {
    const store = new Store<User>({ model: User, proxy });
    store.destroy();
    const refused = (what: string) => new TypeError(`Store of User: ${what}() after destroy(); make a new Store`);
    await expect(store.load()).rejects.toThrow(refused('load'));
    await expect(store.nextPage()).rejects.toThrow(refused('load'));
    await expect(store.sync()).rejects.toThrow(refused('sync'));
    expect(() => store.add({ name: 'Cy' })).toThrow(refused('add'));
    expect(() => store.insert(0, { name: 'Cy' })).toThrow(refused('insert'));
    expect(store.getCount()).toBe(0);
  });

  it('a load in flight rejects as superseded and its answer lists nothing', async () => {
    const store = new Store<User>({ model: User, proxy, pageSize: 3 });
    server.respond('GET', /^\/users/, { status: 200, body: ROWS.slice(0, 3), delayMs: 50 });
    const loading = store.load();
    await new Promise((resolve) => setTimeout(resolve, 10));
    store.destroy();
    const error: unknown = await loading.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProxyError);
    expect(error instanceof ProxyError && [error.kind, error.superseded]).toEqual(['abort', true]);
    expect([store.getCount(), store.loading]).toEqual([0, false]);
  });

  it('an autoLoad or autoSync that comes after it is refused quietly', async () => {
    const store = new Store<User>({ model: User, proxy, autoLoad: true, autoSync: true });
    store.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.requests).toEqual([]);
  });
});

describe("a record's subscription machinery", () => {
  it('goes with its last subscriber: the last snapshot is kept only by whoever holds it', async () => {
    const [, ann] = await loadedThree();
    // Each step in a function of its own, so that no variable of the test holds a snapshot.
    const held = (): boolean => {
      let told: RecordSnapshot<User> | undefined;
      ann.subscribe((snapshot) => {
        told = snapshot;
      })();
      const first = told;
      // Held: the same snapshot while nothing changed, a new one after an edit.
      const same = [ann.getSnapshot() === first];
      ann.subscribe(() => undefined)();
      same.push(ann.getSnapshot() === first);
      ann.set('name', 'Anna');
      const edited = ann.getSnapshot();
      same.push(edited !== first, ann.getSnapshot() === edited);
      return same.every(Boolean);
    };
    expect(held()).toBe(true);
    // No longer held by anyone: collected (before, the record kept its view and last snapshot for good).
    const watch = (): WeakRef<object>[] => {
      const subscription = ann.subscribe(() => undefined);
      const ref = new WeakRef(ann.getSnapshot());
      subscription();
      return [ref];
    };
    expect(await collected(watch())).toBe(0);
    expect(ann.getSnapshot().get('name')).toBe('Anna');
  });
});
