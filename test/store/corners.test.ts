/**
 * The corners of the write lifecycle (issue 18, items 3, 4, 6, 7 and 8; API.md sections 5 and 6),
 * against the project's test server on 127.0.0.1: a reload or a discarding load whose answer was
 * read before a write completed, a new record given an id with setId, a record re-added after it
 * moved off the page, and rejectChanges() of a create that may have been applied. Each asserts
 * what the user sees and what the server holds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Model, RestProxy, Store, type RestProxyConfig } from '../../src/index.js';
import { deferred, within } from '../helpers/deferred.js';
import { startTestServer, type RecordedRequest, type TestServer } from '../server/index.js';

interface UserData {
  id: number;
  name: string;
  age: number;
}

const SEED: readonly UserData[] = [
  { id: 1, name: 'Ann', age: 30 },
  { id: 2, name: 'Ben', age: 40 },
];

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { users: SEED.map((row) => ({ ...row })) } });
});

afterEach(async () => {
  await server.close();
});

function defineUser(config: Partial<RestProxyConfig> = {}) {
  const proxy = new RestProxy({ url: `${server.url}/users`, retry: 0, reader: { totalHeader: 'X-Total-Count' }, ...config });
  return class User extends Model<UserData> {
    static override fields = [{ name: 'id', type: 'int' }, 'name', { name: 'age', type: 'int' }];
    static override proxy = proxy;
  };
}

type UserModel = ReturnType<typeof defineUser>;

function rows(): Record<string, unknown>[] {
  return [...(server.db['users'] ?? [])].map((row) => ({ id: row['id'], name: row['name'], age: row['age'] })).sort((a, b) => Number(a.id) - Number(b.id));
}

function requests(): string[] {
  return server.requests.map((request) => `${request.method} ${request.path}`);
}

function held(store: Store<InstanceType<UserModel>>, id: number): InstanceType<UserModel> {
  const record = store.getById(id);
  if (record === undefined) throw new Error(`no record ${id} in the store`);
  return record;
}

/**
 * The next GET of `path` reads the server's rows when it arrives and answers them only once
 * released: a read that predates what the test does meanwhile.
 */
function holdRead(path: string | RegExp, only: (row: Record<string, unknown>) => boolean = () => true): { arrived: Promise<void>; release(): void } {
  const arrived = deferred<void>();
  const gate = deferred<void>();
  server.respond(
    'GET',
    path,
    async (request: RecordedRequest) => {
      const all = structuredClone(server.db['users'] ?? []).filter(only);
      const id = /\/users\/(\d+)$/.exec(request.path)?.[1];
      const body = id === undefined ? all : all.find((row) => String(row['id']) === id);
      arrived.resolve();
      await gate.promise;
      return { status: 200, headers: { 'X-Total-Count': String(all.length) }, body: body ?? {} };
    },
    { times: 1 },
  );
  return { arrived: arrived.promise, release: () => gate.resolve() };
}

/** The next PUT of `path` is applied and answered only once released. */
function holdUpdate(path: string): { arrived: Promise<void>; release(): void } {
  const arrived = deferred<void>();
  const gate = deferred<void>();
  server.respond(
    'PUT',
    path,
    async (request: RecordedRequest) => {
      arrived.resolve();
      await gate.promise;
      const row = (server.db['users'] ?? []).find((candidate) => `/users/${String(candidate['id'])}` === path);
      if (row === undefined || typeof request.json !== 'object' || request.json === null) return { status: 404, body: {} };
      Object.assign(row, request.json, { id: row['id'] });
      return { status: 200, body: { ...row } };
    },
    { times: 1 },
  );
  return { arrived: arrived.promise, release: () => gate.resolve() };
}

async function loadedStore(User: UserModel, pageSize = 0): Promise<Store<InstanceType<UserModel>>> {
  const store = new Store({ model: User, pageSize });
  await store.load();
  return store;
}

describe('3. record.reload() never undoes a write that completed while it was in flight', () => {
  it('a save that completes before the answer keeps its value, and the next save does not write the old one back', async () => {
    const User = defineUser();
    const ann = await User.load(1);
    const read = holdRead('/users/1');
    const reloading = ann.reload();
    await read.arrived;
    ann.set('name', 'Annie');
    await ann.save();
    read.release();
    await within(reloading, 2000, 'the reload');
    expect({ name: ann.get('name'), dirty: ann.dirty }).toEqual({ name: 'Annie', dirty: false });
    ann.set('age', 31);
    await ann.save();
    expect(rows()[0]).toEqual({ id: 1, name: 'Annie', age: 31 });
  });

  it('edits made meanwhile are kept on top of the answer, and saved by the next save', async () => {
    const User = defineUser();
    const ann = await User.load(1);
    const read = holdRead('/users/1');
    const reloading = ann.reload();
    await read.arrived;
    ann.set('age', 33);
    read.release();
    await within(reloading, 2000, 'the reload');
    expect({ age: ann.get('age'), dirty: ann.dirty, modified: ann.modified }).toEqual({ age: 33, dirty: true, modified: { age: 30 } });
    await ann.save();
    expect(rows()[0]).toEqual({ id: 1, name: 'Ann', age: 33 });
  });

  it('a store record saved while its reload runs keeps the saved value, in the store too', async () => {
    const User = defineUser();
    const store = await loadedStore(User);
    const ben = held(store, 2);
    const read = holdRead('/users/2');
    const reloading = ben.reload();
    await read.arrived;
    ben.set('name', 'Benny');
    await store.sync();
    read.release();
    await within(reloading, 2000, 'the reload');
    expect({ name: held(store, 2).get('name'), changes: store.hasChanges() }).toEqual({ name: 'Benny', changes: false });
    expect(rows()[1]).toEqual({ id: 2, name: 'Benny', age: 40 });
  });
});

describe('4. load({ discardChanges: true }) discards only what was pending when it was called', () => {
  it('edits and new records made while it is in flight are kept; those made before are dropped', async () => {
    const User = defineUser();
    const store = await loadedStore(User);
    held(store, 1).set('name', 'Before');
    const early = store.add({ name: 'Early', age: 1 });
    const read = holdRead('/users');
    const loading = store.load({ discardChanges: true });
    await read.arrived;
    held(store, 1).set('age', 99);
    held(store, 2).set('name', 'After');
    const late = store.add({ name: 'Late', age: 2 });
    read.release();
    await within(loading, 2000, 'the load');
    expect({ name: held(store, 1).get('name'), age: held(store, 1).get('age'), modified: held(store, 1).modified }).toEqual({ name: 'Ann', age: 99, modified: { age: 30 } });
    expect(held(store, 2).get('name')).toBe('After');
    expect(store.getNewRecords()).toEqual(late);
    expect(early.map((record) => store.indexOf(record))).toEqual([-1]);
    await within(store.sync(), 2000, 'the sync');
    expect(rows()).toEqual([
      { id: 1, name: 'Ann', age: 99 },
      { id: 2, name: 'After', age: 40 },
      { id: 3, name: 'Late', age: 2 },
    ]);
  });

  it('a save that completes meanwhile is neither reverted nor written back', async () => {
    const User = defineUser();
    const store = await loadedStore(User);
    const ann = held(store, 1);
    ann.set('name', 'Saved');
    const read = holdRead('/users');
    const loading = store.load({ discardChanges: true });
    await read.arrived;
    await ann.save();
    read.release();
    await within(loading, 2000, 'the load');
    expect({ name: ann.get('name'), dirty: ann.dirty }).toEqual({ name: 'Saved', dirty: false });
    const before = server.requests.length;
    await store.sync();
    expect(server.requests.length).toBe(before);
    expect(rows()[0]).toEqual({ id: 1, name: 'Saved', age: 30 });
  });

  it('a save still in flight when the answer arrives is not reverted, and the next sync writes nothing back', async () => {
    const User = defineUser();
    const store = await loadedStore(User);
    const ann = held(store, 1);
    ann.set('name', 'Saving');
    const read = holdRead('/users');
    const loading = store.load({ discardChanges: true });
    await read.arrived;
    const write = holdUpdate('/users/1');
    const saving = ann.save();
    await write.arrived;
    read.release();
    await within(loading, 2000, 'the load');
    write.release();
    await within(saving, 2000, 'the save');
    expect({ name: ann.get('name'), dirty: ann.dirty }).toEqual({ name: 'Saving', dirty: false });
    const before = server.requests.length;
    await store.sync();
    expect(server.requests.length).toBe(before);
    expect(rows()[0]).toEqual({ id: 1, name: 'Saving', age: 30 });
  });

  it('a record off the page edited meanwhile stays pending with that edit only', async () => {
    const User = defineUser();
    const store = await loadedStore(User);
    const ann = held(store, 1);
    ann.set('name', 'Before');
    const read = holdRead('/users', (row) => row['id'] !== 1);
    const loading = store.load({ discardChanges: true });
    await read.arrived;
    ann.set('age', 50);
    read.release();
    await within(loading, 2000, 'the load');
    expect(store.indexOf(ann)).toBe(-1);
    expect(store.getUpdatedRecords()).toEqual([ann]);
    expect({ name: ann.get('name'), modified: ann.modified }).toEqual({ name: 'Ann', modified: { age: 30 } });
    await store.sync();
    expect(rows()[0]).toEqual({ id: 1, name: 'Ann', age: 50 });
  });

  it('a record removed meanwhile stays removed and is destroyed by the next sync', async () => {
    const User = defineUser();
    const store = await loadedStore(User);
    const read = holdRead('/users');
    const loading = store.load({ discardChanges: true });
    await read.arrived;
    store.remove(held(store, 2));
    read.release();
    await within(loading, 2000, 'the load');
    expect(store.getById(2)).toBeUndefined();
    await store.sync();
    expect(rows()).toEqual([{ id: 1, name: 'Ann', age: 30 }]);
  });
});

describe('6. a new record given an id with setId() is never matched to a server row', () => {
  it('a load keeps the draft as it is and lists the row as its own record; the sync creates only the draft', async () => {
    const User = defineUser();
    const store = new Store({ model: User, pageSize: 0 });
    const [draft] = store.add({ name: 'Draft', age: 5 });
    draft?.setId(1);
    await store.load();
    expect({ name: draft?.get('name'), phantom: draft?.phantom }).toEqual({ name: 'Draft', phantom: true });
    expect(store.getCount()).toBe(3);
    expect(store.getRange().filter((record) => !record.phantom).map((record) => record.get('name'))).toEqual(['Ann', 'Ben']);
    await store.sort('name', 'ASC');
    expect(store.getById(1)?.get('name')).toBe('Ann');
    await store.sync();
    expect(requests().slice(1)).toEqual(['POST /users']);
    expect(rows()).toEqual([...SEED, { id: 3, name: 'Draft', age: 5 }]);
  });

  it('setId of an id another record of the store holds is a TypeError naming it; nothing changes', async () => {
    const User = defineUser();
    const store = await loadedStore(User);
    const [draft] = store.add({ name: 'Draft' });
    expect(() => draft?.setId(2)).toThrow(TypeError);
    expect(() => draft?.setId(2)).toThrow(/\b2\b/);
    expect(() => held(store, 1).setId('2')).toThrow(TypeError);
    expect({ draft: draft?.getId(), ann: held(store, 1).getId(), dirty: held(store, 1).dirty }).toEqual({ draft: undefined, ann: 1, dirty: false });
    expect(() => held(store, 1).setId(1)).not.toThrow();
    draft?.setId(7);
    expect(draft?.getId()).toBe(7);
    store.remove(held(store, 1));
    expect(() => draft?.setId(1)).toThrow(TypeError);
  });
});

describe('7. a record re-added after it moved off the page is listed once', () => {
  it('sync sends its edit once and completes; a later save completes too', async () => {
    const User = defineUser();
    const store = await loadedStore(User, 1);
    const ann = held(store, 1);
    ann.set('name', 'Annie');
    await store.loadPage(2);
    expect(store.getUpdatedRecords()).toEqual([ann]);
    store.add(ann);
    expect(store.getUpdatedRecords()).toEqual([ann]);
    await within(store.sync(), 2000, 'the sync');
    expect(requests().filter((line) => line.startsWith('PUT'))).toEqual(['PUT /users/1']);
    ann.set('age', 31);
    await within(ann.save(), 2000, 'the save');
    expect(rows()[0]).toEqual({ id: 1, name: 'Annie', age: 31 });
  });
});

describe('8. rejectChanges() treats a create that may have been applied as remove() does', () => {
  it('the record leaves the list and the next sync confirms its create, then destroys it', async () => {
    const User = defineUser({ idempotencyKey: true });
    const store = await loadedStore(User);
    const [cid] = store.add({ name: 'Cid', age: 9 });
    server.inject({ type: 'reset-after', match: { method: 'POST' } });
    await expect(store.sync()).rejects.toThrow(BatchError);
    expect(rows().map((row) => row['name'])).toEqual(['Ann', 'Ben', 'Cid']);
    store.rejectChanges();
    expect(store.indexOf(cid ?? held(store, 1))).toBe(-1);
    expect(store.getNewRecords()).toEqual([]);
    expect(store.getRemovedRecords()).toEqual([cid]);
    await within(store.sync(), 2000, 'the sync');
    expect(requests().slice(-2)).toEqual(['POST /users', 'DELETE /users/3']);
    expect(rows()).toEqual([...SEED]);
    expect(cid?.erased).toBe(true);
    await store.load();
    expect(store.getRange().map((record) => record.get('name'))).toEqual(['Ann', 'Ben']);
  });
});

describe('a new record removed while its save runs, the save refused with nothing applied', () => {
  it('is let go: nothing stays pending, and the sync sends nothing', async () => {
    const User = defineUser();
    const store = await loadedStore(User);
    const [draft] = store.add({ name: 'Draft' });
    server.respond('POST', '/users', { status: 422, body: { errors: { name: ['is taken'] } } }, { times: 1 });
    const saving = draft?.save();
    store.remove(draft ?? []);
    await expect(saving).rejects.toThrow(/422/);
    expect({ changes: store.hasChanges(), removed: store.getRemovedRecords() }).toEqual({ changes: false, removed: [] });
    const before = server.requests.length;
    await within(store.sync(), 2000, 'the sync');
    expect(server.requests.length).toBe(before);
    expect(rows()).toEqual([...SEED]);
  });
});
