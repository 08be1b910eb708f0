/**
 * One record object per id in a store, where a load and an unconfirmed create meet: a create
 * whose answer was lost exists on the server; a load lists its row before the record knows its
 * id; when the create is confirmed (replayed under its idempotency key), the store must not list
 * the same id twice.
 */
import { describe, expect, it } from 'vitest';
import { MemoryProxy, Model, RestProxy, Store } from '../../src/index.js';
import { recordingFetch, type Answer, type RecordedCall } from '../helpers/recordingFetch.js';

interface ItemData {
  id: number;
  name: string;
}

class Item extends Model<ItemData> {
  static override fields = [{ name: 'id', type: 'int' }, 'name'];
}

/** A server that applies every POST and PUT, replays a POST whose Idempotency-Key it has seen, and can lose answers. */
function keyedServer() {
  const rows: ItemData[] = [];
  const byKey = new Map<string, ItemData>();
  let loseNextAnswer = false;
  const respond = (call: RecordedCall): Answer => {
    if (call.method === 'GET') return { body: rows };
    const body: unknown = call.json;
    const name = typeof body === 'object' && body !== null && 'name' in body && typeof body.name === 'string' ? body.name : undefined;
    if (call.method === 'PUT') {
      const id = Number(call.url.split('/').pop());
      const row = rows.find((candidate) => candidate.id === id);
      if (row !== undefined && name !== undefined) row.name = name;
      return { status: 200, body: row ?? {} };
    }
    if (call.method !== 'POST') return { status: 200, body: call.json ?? {} };
    const key = call.headers['idempotency-key'] ?? '';
    let row = byKey.get(key);
    if (row === undefined) {
      row = { id: 100 + rows.length, name: name ?? '' };
      rows.push(row);
      byKey.set(key, row);
    }
    if (loseNextAnswer) {
      loseNextAnswer = false;
      return new TypeError('fetch failed: the connection was reset after the server applied the request');
    }
    return { status: 201, body: row };
  };
  return { rows, respond, loseNextAnswer: () => (loseNextAnswer = true) };
}

describe('a load that lists the row of an unconfirmed create', () => {
  it('then the create is confirmed: the store lists that id once, as the user\'s record', async () => {
    const server = keyedServer();
    const fetch = recordingFetch(server.respond);
    const store = new Store({ model: Item, pageSize: 0, proxy: new RestProxy({ url: 'http://api.test/items', fetch, idempotencyKey: true, retry: 0 }) });
    const [mine] = store.add({ name: 'Mine' });
    server.loseNextAnswer();
    await expect(store.sync()).rejects.toThrow(/network error/);
    expect(mine?.phantom).toBe(true);

    await store.load(); // lists row 100, made by the create whose answer was lost
    await store.sync(); // the create again, same key: the server answers for row 100

    expect(server.rows).toHaveLength(1);
    expect(mine?.phantom).toBe(false);
    expect(mine?.getId()).toBe(100);
    expect(store.getRange().map((item) => item.getId())).toEqual([100]);
    expect(store.getById(100)).toBe(mine);
  });
});

describe('an answer that lists an id twice', () => {
  const rows = (ids: readonly (number | string)[]): Answer => ({ body: ids.map((id, index) => ({ id, name: `row ${index}` })) });

  it.each([
    ['in id order', [1, 2, 2, 3], [1, 2, 3]],
    ['out of order', [3, 1, 3, 2, 1], [3, 1, 2]],
    ['as a number and as its text', [1, '1', 2], [1, 2]],
  ])('%s: the store lists each id once, the first time it comes', async (_, ids, expected) => {
    class Row extends Model<{ id: number | string; name: string }> {
      static override fields = ['id', 'name'];
    }
    const store = new Store({ model: Row, pageSize: 0, proxy: new RestProxy({ url: 'http://api.test/rows', fetch: recordingFetch(() => rows(ids)) }) });
    await store.load();
    expect(store.getRange().map((row) => Number(row.getId()))).toEqual(expected);
    await store.load(); // again, with every id now held
    expect(store.getRange().map((row) => Number(row.getId()))).toEqual(expected);
    expect(store.getById('2')).toBe(store.getById(2));
  });
});

describe('composite and Date ids', () => {
  it('rows whose ids are objects or Dates are told apart (not by their text)', async () => {
    class Thing extends Model<{ id: unknown; name: string }> {
      static override fields = ['id', 'name'];
    }
    const things = new Store({
      model: Thing,
      proxy: new MemoryProxy({ data: [{ id: { org: 1, n: 1 }, name: 'a' }, { id: { org: 1, n: 2 }, name: 'b' }, { id: { org: 1, n: 1 }, name: 'a again' }] }),
    });
    expect((await things.load()).map((thing) => thing.get('name'))).toEqual(['a', 'b']);

    class Tick extends Model<{ at: Date; v: number }> {
      static override idProperty = 'at';
      static override fields = [{ name: 'at', type: 'date' }, { name: 'v', type: 'int' }];
    }
    const ticks = new Store({ model: Tick, proxy: new MemoryProxy({ data: [{ at: '2024-01-01T00:00:00.000Z', v: 1 }, { at: '2024-01-01T00:00:00.500Z', v: 2 }] }) });
    await ticks.load();
    expect(ticks.getCount()).toBe(2);
    expect(ticks.getById(new Date('2024-01-01T00:00:00.500Z'))?.get('v')).toBe(2);
  });
});

/**
 * Until its create is confirmed, a record and a load's copy of its row are two objects for one
 * row, and the user may edit either. When the create is confirmed, the record takes, field by
 * field, whichever edit came last (found by the soak: the copy's later edit, saved, was
 * overwritten by the record's older one).
 */
describe('the record and a load\'s copy of its row, both edited before the create is confirmed', () => {
  /** keyedServer, whose PUT also writes the row (and can be held until released), and whose DELETE deletes it. */
  function writingServer() {
    const server = keyedServer();
    let hold: Promise<void> | undefined;
    const respond = async (call: RecordedCall): Promise<Answer> => {
      if (call.method === 'DELETE') {
        const id = Number(call.url.split('/').pop());
        const at = server.rows.findIndex((candidate) => candidate.id === id);
        if (at === -1) return { status: 404, body: { message: 'Not found' } };
        server.rows.splice(at, 1);
        return { status: 204 };
      }
      if (call.method === 'PUT' && hold !== undefined) await hold;
      return server.respond(call);
    };
    let release = (): void => undefined;
    const holdPuts = (): void => {
      hold = new Promise((resolve) => {
        release = () => {
          hold = undefined;
          resolve();
        };
      });
    };
    return { ...server, respond, holdPuts, release: () => release() };
  }

  /** Sync until nothing is pending; the row and the record hold `name`, the record is clean. */
  async function expectSynced(server: ReturnType<typeof writingServer>, store: Store<Item>, mine: Item, name: string): Promise<void> {
    await store.sync();
    await store.sync();
    expect(server.rows).toEqual([{ id: 100, name }]);
    expect(mine.get('name')).toBe(name);
    expect(mine.dirty).toBe(false);
  }

  async function setUp() {
    const server = writingServer();
    const store = new Store({ model: Item, pageSize: 0, proxy: new RestProxy({ url: 'http://api.test/items', fetch: recordingFetch(server.respond), idempotencyKey: true, retry: 0 }) });
    const [mine] = store.add({ name: 'first' });
    if (mine === undefined) throw new Error('not added');
    server.loseNextAnswer();
    await expect(store.sync()).rejects.toThrow(/network error/);
    await store.load(); // lists row 100: the create was applied
    const copy = store.getById(100);
    if (copy === undefined || copy === mine) throw new Error('expected a copy of row 100');
    return { server, store, mine, copy };
  }

  it('the copy edited and saved last: its edit stays, on the server and in the store\'s record', async () => {
    const { server, store, mine, copy } = await setUp();
    mine.set('name', 'older edit');
    copy.set('name', 'newer edit');
    await copy.save(); // PUT /items/100; then the sync confirms the create: the record takes the copy's place
    await expectSynced(server, store, mine, 'newer edit');
    expect(store.getRange()).toEqual([mine]);
  });

  it('the copy edited last, not saved: its edit is the record\'s, and the next sync sends it', async () => {
    const { server, store, mine, copy } = await setUp();
    mine.set('name', 'older edit');
    copy.set('name', 'newer edit');
    await expectSynced(server, store, mine, 'newer edit'); // the create, confirmed; then the record's edit
  });

  it('the record edited last: its edit stays, and is sent', async () => {
    const { server, store, mine, copy } = await setUp();
    copy.set('name', 'older edit');
    await copy.save();
    mine.set('name', 'newer edit');
    await expectSynced(server, store, mine, 'newer edit');
  });

  it('the record edited after the copy\'s unsaved edit: the record\'s edit wins', async () => {
    const { server, store, mine, copy } = await setUp();
    copy.set('name', 'older edit');
    mine.set('name', 'newer edit');
    await expectSynced(server, store, mine, 'newer edit');
  });

  it('the copy\'s save still in flight when the create is confirmed: the record waits for it, then takes its edit', async () => {
    const { server, store, mine, copy } = await setUp();
    mine.set('name', 'older edit');
    copy.set('name', 'newer edit');
    server.holdPuts();
    const saving = copy.save();
    const syncing = store.sync(); // confirms the create while the copy's PUT is held
    await new Promise((resolve) => setTimeout(resolve, 5));
    server.release();
    await Promise.all([saving, syncing]);
    await expectSynced(server, store, mine, 'newer edit');
  });

  it('the record\'s own save confirms the create while the copy\'s save is in flight (found by the soak)', async () => {
    const { server, store, mine, copy } = await setUp();
    mine.set('name', 'older edit');
    const mineSaving = mine.save(); // the create again, same key: confirmed
    copy.set('name', 'newer edit');
    server.holdPuts();
    const copySaving = copy.save();
    await new Promise((resolve) => setTimeout(resolve, 5)); // the create confirmed; the PUTs held
    server.release();
    await Promise.all([mineSaving, copySaving]);
    await expectSynced(server, store, mine, 'newer edit');
  });

  it('a sync in flight confirms the create, the record and the copy each saved on their own meanwhile', async () => {
    const { server, store, mine, copy } = await setUp();
    const syncing = store.sync(); // the create again
    mine.set('name', 'older edit');
    const mineSaving = mine.save();
    copy.set('name', 'newer edit');
    const copySaving = copy.save();
    await Promise.allSettled([syncing, mineSaving, copySaving]);
    await expectSynced(server, store, mine, 'newer edit');
  });

  it('the copy removed by the user: the row is destroyed, and the record leaves the store too', async () => {
    const { server, store, mine, copy } = await setUp();
    store.remove(copy);
    await store.sync(); // the create confirmed; the copy's DELETE
    await store.sync();
    expect(server.rows).toEqual([]);
    expect(store.getRange()).toEqual([]);
    expect(store.hasChanges()).toBe(false);
    expect(mine.erased).toBe(true);
  });
});


/**
 * A create re-sent under its idempotency key after an edit is answered for its first try (the
 * server replays it): the edit is not in the row. A sync or a save that resolves has sent every
 * change made before it was called, so it sends that edit too (found by the soak, seeds 555 and 2026).
 */
describe('an edit made while a create was unconfirmed', () => {
  function setUpServer() {
    const server = keyedServer();
    const fetch = recordingFetch(server.respond);
    return { server, fetch, proxy: new RestProxy({ url: 'http://api.test/items', fetch, idempotencyKey: true, retry: 0 }) };
  }

  it('store.sync(): the create is confirmed, then the edit sent, in the same sync', async () => {
    const { server, fetch, proxy } = setUpServer();
    const store = new Store({ model: Item, pageSize: 0, proxy });
    const [mine] = store.add({ name: 'first' });
    server.loseNextAnswer();
    await expect(store.sync()).rejects.toThrow(/network error/);
    mine?.set('name', 'edited');
    const batch = await store.sync();
    expect(batch.operations.map((operation) => operation.action)).toEqual(['create', 'update']);
    expect(server.rows).toEqual([{ id: 100, name: 'edited' }]);
    expect(mine?.dirty).toBe(false);
    expect(fetch.calls.map((call) => `${call.method} ${new URL(call.url).pathname}`)).toEqual(['POST /items', 'POST /items', 'PUT /items/100']);
  });

  it('record.save(): the same', async () => {
    const { server, proxy } = setUpServer();
    class Saved extends Item {}
    Saved.setProxy(proxy);
    const mine = new Saved({ name: 'first' });
    server.loseNextAnswer();
    await expect(mine.save()).rejects.toThrow(/network error/);
    mine.set('name', 'edited');
    await mine.save();
    expect(server.rows).toEqual([{ id: 100, name: 'edited' }]);
    expect(mine.dirty).toBe(false);
  });
});
