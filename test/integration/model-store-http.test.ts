/**
 * Model and Store against the project's own HTTP test server (test/server/API.md): a full CRUD
 * round trip, syncs of creates, updates and destroys (batched and unbatched), and a sync that
 * partly fails followed by one that sends exactly the failed part, after which the server holds
 * exactly the client's records.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Model, ProxyError, RestProxy, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';

interface UserData {
  id: number;
  name: string;
  email: string;
  age: number;
}

const SEED: UserData[] = [
  { id: 1, name: 'Ed', email: 'ed@example.com', age: 30 },
  { id: 2, name: 'Tommy', email: 'tommy@example.com', age: 25 },
  { id: 3, name: 'Aaron', email: 'aaron@example.com', age: 41 },
  { id: 4, name: 'Abe', email: 'abe@example.com', age: 52 },
];

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({
    resources: { users: SEED.map((row) => ({ ...row })) },
    required: { users: ['name'] },
  });
});

afterEach(async () => {
  await server.close();
});

/** A User class bound to this test's server (retries off, so an injected fault is seen once). */
function defineUser(options: { batchActions?: boolean } = {}) {
  const proxy = new RestProxy({
    url: `${server.url}/users`, retry: 0, batchActions: options.batchActions ?? false, reader: { totalHeader: 'X-Total-Count' },
  });
  class User extends Model<UserData> {
    static override fields = [{ name: 'id', type: 'int' }, 'name', 'email', { name: 'age', type: 'int' }];
    static override proxy = proxy;
  }
  return User;
}

function serverUsers(): Record<string, unknown>[] {
  return [...(server.db['users'] ?? [])]
    .map((row) => ({ id: row['id'], name: row['name'], email: row['email'], age: row['age'] }))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

function clientUsers(store: Store<Model<UserData>>): Record<string, unknown>[] {
  return store
    .getRange()
    .map((record) => ({ id: record.get('id'), name: record.get('name'), email: record.get('email'), age: record.get('age') }))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

function methods(): string[] {
  return server.requests.map((request) => `${request.method} ${request.path}`);
}

describe('Model CRUD round trip over HTTP', () => {
  it('creates, reads, updates and destroys one user', async () => {
    const User = defineUser();
    const zoe = new User({ name: 'Zoe', email: 'zoe@example.com', age: 22 });
    await zoe.save();
    expect(zoe.phantom).toBe(false);
    expect(zoe.getId()).toBe(5);
    expect(server.db['users']?.find((row) => row['id'] === 5)).toMatchObject({ name: 'Zoe', email: 'zoe@example.com', age: 22 });

    const loaded = await User.load(5);
    expect(loaded.getData()).toMatchObject({ id: 5, name: 'Zoe', email: 'zoe@example.com', age: 22 });

    loaded.set('age', 23);
    await loaded.save();
    expect(loaded.dirty).toBe(false);
    expect(server.db['users']?.find((row) => row['id'] === 5)?.['age']).toBe(23);

    await loaded.destroy();
    expect(server.db['users']?.some((row) => row['id'] === 5)).toBe(false);
    const error = await User.load(5).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ProxyError);
    expect(error instanceof ProxyError && error.status).toBe(404);
    expect(methods()).toEqual(['POST /users', 'GET /users/5', 'PUT /users/5', 'DELETE /users/5', 'GET /users/5']);
  });

  it('a 422 from the server puts the field errors on the record and leaves it unsaved', async () => {
    const User = defineUser();
    const nameless = new User({ name: '', email: 'x@example.com', age: 1 });
    const error = await nameless.save().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error instanceof ProxyError && error.kind).toBe('validation');
    expect(nameless.errors).toEqual({ name: ['is required'] });
    expect(nameless.phantom).toBe(true);
    expect(server.db['users']).toHaveLength(4);
  });

  it('the server\'s Location header gives the id of a create answered without a body', async () => {
    const User = defineUser();
    server.respond('POST', '/users', { status: 201, headers: { Location: `${server.url}/users/77` } }, { times: 1 });
    const user = new User({ name: 'Loc', email: 'l@example.com', age: 9 });
    await user.save();
    expect(user.getId()).toBe(77);
    expect(user.phantom).toBe(false);
  });
});

describe('Store over HTTP', () => {
  it('loads a page and the total', async () => {
    const User = defineUser();
    const store = new Store({ model: User, pageSize: 2 });
    await store.loadPage(2);
    expect(store.getRange().map((record) => record.getId())).toEqual([3, 4]);
    expect(store.getTotalCount()).toBe(4);
  });

  it.each([false, true])('syncs creates, updates and destroys (batchActions %s) and the server ends equal to the client', async (batchActions) => {
    const User = defineUser({ batchActions });
    const store = new Store({ model: User, pageSize: 0 });
    await store.load();
    store.add([{ name: 'Zoe', email: 'zoe@example.com', age: 22 }, { name: 'Yan', email: 'yan@example.com', age: 33 }]);
    store.getById(1)?.set('age', 31);
    store.getById(2)?.set({ name: 'Tom', email: 'tom@example.com' });
    const three = store.getById(3);
    const four = store.getById(4);
    if (three && four) store.remove([three, four]);
    server.reset();

    const batch = await store.sync();
    expect(batch.hasException()).toBe(false);
    if (batchActions) {
      expect(methods()).toEqual(['POST /users', 'PUT /users', 'DELETE /users']);
    } else {
      expect(methods().sort()).toEqual(['DELETE /users/3', 'DELETE /users/4', 'POST /users', 'POST /users', 'PUT /users/1', 'PUT /users/2']);
    }
    expect(store.getNewRecords()).toEqual([]);
    expect(store.getUpdatedRecords()).toEqual([]);
    expect(store.getRemovedRecords()).toEqual([]);
    expect(clientUsers(store)).toEqual(serverUsers());
    // The two POSTs are in flight at once: which row the server numbers first is theirs to race.
    expect(serverUsers().map((row) => row['name']).sort()).toEqual(['Ed', 'Tom', 'Yan', 'Zoe']);

    server.reset();
    await store.sync();
    expect(server.requests).toHaveLength(0);
  });

  it('a sync that partly fails, then one that sends exactly the failed part (one request per record)', async () => {
    const User = defineUser();
    const store = new Store({ model: User, pageSize: 0 });
    await store.load();
    store.add([{ name: 'Zoe', email: 'zoe@example.com', age: 22 }, { name: 'Yan', email: 'yan@example.com', age: 33 }]);
    store.getById(1)?.set('age', 31);
    store.getById(2)?.set('age', 26);
    const three = store.getById(3);
    const four = store.getById(4);
    if (three && four) store.remove([three, four]);
    server.reset();
    server.inject({ type: 'status', status: 500, match: { method: 'PUT', path: '/users/2' } });
    server.inject({ type: 'status', status: 503, match: { method: 'DELETE', path: '/users/4' } });
    server.inject({ type: 'status', status: 500, match: { method: 'POST' } });

    const error = await store.sync().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(BatchError);
    expect(error instanceof BatchError && error.errors.length).toBe(3);
    expect(store.getNewRecords()).toHaveLength(1);
    expect(store.getUpdatedRecords().map((record) => record.getId())).toEqual([2]);
    expect(store.getRemovedRecords().map((record) => record.getId())).toEqual([4]);
    const stillNew = store.getNewRecords()[0]?.get('name');

    server.reset();
    await store.sync();
    expect(methods().sort()).toEqual(['DELETE /users/4', 'POST /users', 'PUT /users/2']);
    const posted = server.requests.find((request) => request.method === 'POST');
    expect(posted?.json).toMatchObject({ name: stillNew });
    expect(clientUsers(store)).toEqual(serverUsers());
    expect(serverUsers()).toHaveLength(4);
  });

  it('a batched sync whose create fails, then one that sends exactly the creates', async () => {
    const User = defineUser({ batchActions: true });
    const store = new Store({ model: User, pageSize: 0 });
    await store.load();
    store.add([{ name: 'Zoe', email: 'zoe@example.com', age: 22 }, { name: 'Yan', email: 'yan@example.com', age: 33 }]);
    store.getById(1)?.set('age', 31);
    const four = store.getById(4);
    if (four) store.remove(four);
    server.reset();
    server.inject({ type: 'status', status: 500, match: { method: 'POST' } });

    await expect(store.sync()).rejects.toBeInstanceOf(BatchError);
    expect(store.getNewRecords()).toHaveLength(2);
    expect(store.getUpdatedRecords()).toEqual([]);
    expect(store.getRemovedRecords()).toEqual([]);

    server.reset();
    await store.sync();
    expect(methods()).toEqual(['POST /users']);
    expect(Array.isArray(server.requests[0]?.json) && server.requests[0]?.json.length).toBe(2);
    expect(clientUsers(store)).toEqual(serverUsers());
    expect(serverUsers()).toHaveLength(5);
  });

  it('unsynced changes survive a reload from the server and are then synced', async () => {
    const User = defineUser();
    const store = new Store({ model: User, pageSize: 0 });
    await store.load();
    store.add({ name: 'Zoe', email: 'zoe@example.com', age: 22 });
    store.getById(1)?.set('name', 'Edward');
    const two = store.getById(2);
    if (two) store.remove(two);
    // Someone else changes Ed's age meanwhile.
    const ed = server.db['users']?.find((row) => row['id'] === 1);
    if (ed) ed['age'] = 99;
    await store.load();
    expect(store.getById(1)?.get('name')).toBe('Edward');
    expect(store.getById(1)?.get('age')).toBe(99);
    await store.sync();
    expect(clientUsers(store)).toEqual(serverUsers());
    expect(serverUsers().map((row) => row['name'])).toEqual(['Edward', 'Aaron', 'Abe', 'Zoe']);
  });
});
