/**
 * Acceptance tests for the issue "Writes you can trust" (API.md sections 5, 6 and 7), seen from
 * what a user of the public API sees: the records, the requests sent and the errors.
 *
 * 1. A sync skips records whose own save is in flight.
 * 2. A load answered with data from before a write must not undo it.
 * 3. A record held across a load stays the store's record.
 * 4. A 2xx create that fails locally must keep its idempotency key.
 * 5. `Location` is read only when the body has no id.
 * 6. `etag: true` with `batchActions: true` never writes a record that has an ETag without it.
 * 7. Ids beyond 2^53 fail the read that brings them.
 * 8. A body is decoded with the charset its Content-Type declares.
 * 9. The constructor refuses keys that are not declared fields.
 * 10. A record's own `success` field is not an envelope's.
 */
import { describe, expect, it, vi } from 'vitest';
import { Model, ProxyError, RestProxy, Store } from '../../src/index.js';
import { recordingFetch, type Answer, type RecordedCall, type RecordingFetch, type Responder } from '../helpers/recordingFetch.js';
import { bodyObject, deferred, pathOf, summary, within, type Deferred } from '../helpers/deferred.js';
import { idsInBody, proxyErrorOf } from '../helpers/proxyTestKit.js';

interface UserData {
  id: number;
  name: string;
  email: string;
  age: number;
}

class User extends Model<UserData> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', { name: 'email', type: 'string' }, { name: 'age', type: 'int' }];
}

const BASE = 'http://api.test/users';
const ROWS: readonly UserData[] = [
  { id: 1, name: 'Ann', email: 'ann@example.com', age: 30 },
  { id: 2, name: 'Ben', email: 'ben@example.com', age: 40 },
];

const rows = (): UserData[] => ROWS.map((row) => ({ ...row }));

/** How a promise settled, without throwing; a failure as one line ("ProxyError server: ..."). */
async function outcomeOf(promise: Promise<unknown>): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    await promise;
    return { ok: true };
  } catch (error) {
    const kind = error instanceof ProxyError ? ` ${error.kind}` : '';
    return { ok: false, error: error instanceof Error ? `${error.name}${kind}: ${error.message}` : String(error) };
  }
}

interface Hold {
  match: (call: RecordedCall) => boolean;
  arrived: Deferred<RecordedCall>;
  gate: Deferred<void>;
  taken: boolean;
}

interface FakeServer {
  rec: RecordingFetch;
  /** Keep the next call that matches waiting until `release()`; `arrived` resolves when it is sent. */
  hold(match: (call: RecordedCall) => boolean): { arrived: Promise<RecordedCall>; release(): void };
}

/**
 * A small REST server behind a recording fetch: GET answers `list()` (or one row of it by id),
 * POST assigns ids from 100, PUT echoes the body, DELETE answers 204. It keeps no state: a held
 * GET answers what `list()` gives when it is released.
 */
function fakeServer(list: () => UserData[] = rows): FakeServer {
  let nextId = 100;
  const holds: Hold[] = [];
  const answer = (call: RecordedCall): Answer => {
    switch (call.method) {
      case 'GET': {
        const id = /\/users\/([^/]+)$/.exec(pathOf(call))?.[1];
        if (id === undefined) return { body: list() };
        const row = list().find((candidate) => String(candidate.id) === id);
        return row ? { body: row } : { status: 404, body: { message: 'Not found' } };
      }
      case 'POST':
        return { status: 201, body: { ...bodyObject(call), id: nextId++ } };
      case 'DELETE':
        return { status: 204 };
      default:
        return { status: 200, body: call.json };
    }
  };
  const rec = recordingFetch(async (call) => {
    const held = holds.find((candidate) => !candidate.taken && candidate.match(call));
    if (held) {
      held.taken = true;
      held.arrived.resolve(call);
      await held.gate.promise;
    }
    return answer(call);
  });
  return {
    rec,
    hold(match) {
      const held: Hold = { match, arrived: deferred<RecordedCall>(), gate: deferred<void>(), taken: false };
      holds.push(held);
      return { arrived: held.arrived.promise, release: () => held.gate.resolve() };
    },
  };
}

function restProxy(rec: RecordingFetch): RestProxy {
  return new RestProxy({ url: BASE, fetch: rec, retry: 0 });
}

function makeStore(rec: RecordingFetch, options: { autoSync?: boolean; data?: UserData[] } = {}): Store<User> {
  return new Store({ model: User, proxy: restProxy(rec), data: options.data ?? rows(), autoSync: options.autoSync ?? false });
}

function userOf(store: Store<User>, id: number): User {
  const found = store.getById(id);
  if (!found) throw new Error(`no record ${id} in the store`);
  return found;
}

const isPut = (call: RecordedCall): boolean => call.method === 'PUT';
const isGet = (call: RecordedCall): boolean => call.method === 'GET';

/** The PUT bodies sent, as objects. */
function putBodies(rec: RecordingFetch): Record<string, unknown>[] {
  return rec.calls.filter(isPut).map((call) => bodyObject(call));
}

/** Record 1 of a store, edited and saving, its PUT held at the server until `firstPut.release()`. */
async function savingWithPutHeld(options: { autoSync?: boolean } = {}) {
  const server = fakeServer();
  const store = makeStore(server.rec, options);
  const record = userOf(store, 1);
  const firstPut = server.hold(isPut);
  record.set('name', 'Anne');
  const saving = record.save();
  await within(firstPut.arrived, 1000, 'the first PUT');
  return { server, store, record, firstPut, saving };
}

// ---- 1 -----------------------------------------------------------------------------------------

describe('1. A sync skips records whose own save is in flight', () => {
  it('(a) store.sync() waits for the save in flight, then sends the edit made meanwhile before it resolves', async () => {
    // The user saves a record, edits another field while the PUT is on its way, and syncs:
    // when the sync resolves, the second edit has been sent and the record is clean.
    const { server, store, record, firstPut, saving } = await savingWithPutHeld();
    record.set('age', 77);
    const syncing = store.sync();
    const sentWhenSynced = syncing.then(() => server.rec.calls.length);
    firstPut.release();
    await within(saving, 2000, 'the save');
    expect(await within(sentWhenSynced, 2000, 'the sync')).toBe(2);
    expect(summary(server.rec.calls)).toEqual(['PUT /users/1', 'PUT /users/1']);
    expect(putBodies(server.rec)[0]).toMatchObject({ name: 'Anne', age: 30 });
    expect(putBodies(server.rec)[1]).toMatchObject({ name: 'Anne', age: 77 });
    expect(record.dirty).toBe(false);
    expect(record.get('age')).toBe(77);
  });

  it('(b) with autoSync the edit made while the save is in flight is eventually sent', async () => {
    // With autoSync on, an edit made while the record's save is running is sent once it is done.
    const { server, record, firstPut, saving } = await savingWithPutHeld({ autoSync: true });
    record.set('age', 77);
    firstPut.release();
    await within(saving, 2000, 'the save');
    await vi.waitFor(
      () => {
        expect(putBodies(server.rec).some((body) => body['age'] === 77)).toBe(true);
        expect(record.dirty).toBe(false);
      },
      { timeout: 2000, interval: 20 },
    );
    expect(server.rec.calls.every(isPut)).toBe(true);
    expect(putBodies(server.rec).at(-1)).toMatchObject({ name: 'Anne', age: 77 });
  });

  it('(c) a record removed from the store while its save is in flight is destroyed by the next sync', async () => {
    // The user removes a record whose save is running and syncs: a DELETE goes out once the PUT is done.
    const { server, store, record, firstPut, saving } = await savingWithPutHeld();
    store.remove(record);
    const syncing = store.sync();
    const sentWhenSynced = syncing.then(() => server.rec.calls.length);
    firstPut.release();
    await within(saving, 2000, 'the save');
    expect(await within(sentWhenSynced, 2000, 'the sync')).toBe(2);
    expect(summary(server.rec.calls)).toEqual(['PUT /users/1', 'DELETE /users/1']);
    expect(record.erased).toBe(true);
    expect(store.getRemovedRecords()).toEqual([]);
    expect(store.getById(1)).toBeUndefined();
  });

  it('(d) a record another store is syncing: the edit made meanwhile is sent by this store\'s sync', async () => {
    // Two stores share one record; store B's sync of it is in flight when the user edits it
    // again and syncs store A: store A's sync sends the new edit.
    const server = fakeServer();
    const proxy = restProxy(server.rec);
    const storeA = new Store({ model: User, proxy, data: rows() });
    const storeB = new Store({ model: User, proxy });
    const record = userOf(storeA, 1);
    storeB.add(record);
    const firstPut = server.hold(isPut);
    record.set('name', 'Anne');
    const syncB = storeB.sync();
    await within(firstPut.arrived, 1000, 'store B\'s PUT');
    record.set('age', 77);
    const syncA = storeA.sync();
    const sentWhenASynced = syncA.then(() => server.rec.calls.length);
    firstPut.release();
    await within(syncB, 2000, 'store B\'s sync');
    expect(await within(sentWhenASynced, 2000, 'store A\'s sync')).toBe(2);
    expect(summary(server.rec.calls)).toEqual(['PUT /users/1', 'PUT /users/1']);
    expect(putBodies(server.rec)[1]).toMatchObject({ name: 'Anne', age: 77 });
    expect(record.dirty).toBe(false);
  });
});

// ---- 2 -----------------------------------------------------------------------------------------

describe('2. A load answered with data from before a write must not undo it', () => {
  it('(a) a record saved after the load was sent keeps the saved value and stays clean', async () => {
    // The load's answer was made before the save: the record still shows what was saved, and
    // nothing is pending.
    const server = fakeServer();
    const store = makeStore(server.rec);
    const get = server.hold(isGet);
    const loading = store.load();
    await within(get.arrived, 1000, 'the GET');
    userOf(store, 1).set('name', 'Anne');
    await within(store.sync(), 2000, 'the sync');
    expect(summary(server.rec.calls)).toEqual(['GET /users', 'PUT /users/1']);
    get.release(); // answers the old rows: name 'Ann'
    await within(loading, 2000, 'the load');
    const record = userOf(store, 1);
    expect(record.get('name')).toBe('Anne');
    expect(record.dirty).toBe(false);
    const sent = server.rec.calls.length;
    await within(store.sync(), 2000, 'the second sync');
    expect(server.rec.calls.length).toBe(sent);
  });

  it('(b) a record destroyed after the load was sent does not come back', async () => {
    // The older answer still lists the destroyed record: it stays gone.
    const server = fakeServer();
    const store = makeStore(server.rec);
    const get = server.hold(isGet);
    const loading = store.load();
    await within(get.arrived, 1000, 'the GET');
    store.remove(userOf(store, 2));
    await within(store.sync(), 2000, 'the sync');
    expect(summary(server.rec.calls)).toEqual(['GET /users', 'DELETE /users/2']);
    get.release(); // answers rows 1 and 2
    await within(loading, 2000, 'the load');
    expect(store.getById(2)).toBeUndefined();
    expect(store.getRange().map((record) => record.getId())).toEqual([1]);
    const sent = server.rec.calls.length;
    await within(store.sync(), 2000, 'the second sync');
    expect(server.rec.calls.length).toBe(sent);
  });

  it('(c) a record created after the load was sent stays in the store', async () => {
    // The older answer does not list the new record: it stays, with the id the server gave it.
    const server = fakeServer();
    const store = makeStore(server.rec);
    const get = server.hold(isGet);
    const loading = store.load();
    await within(get.arrived, 1000, 'the GET');
    const [created] = store.add({ name: 'Eve', email: 'eve@example.com', age: 20 });
    await within(store.sync(), 2000, 'the sync');
    expect(summary(server.rec.calls)).toEqual(['GET /users', 'POST /users']);
    expect(created?.getId()).toBe(100);
    get.release(); // answers rows 1 and 2 only
    await within(loading, 2000, 'the load');
    expect(store.getById(100)).toBe(created);
    expect(store.getRange().map((record) => record.getId()).sort()).toEqual([1, 100, 2].sort());
    expect(created?.phantom).toBe(false);
    const sent = server.rec.calls.length;
    await within(store.sync(), 2000, 'the second sync');
    expect(server.rec.calls.length).toBe(sent);
  });
});

// ---- 3 -----------------------------------------------------------------------------------------

describe('3. A record held across a load stays the store\'s record', () => {
  /** A store loaded once from a server whose rows the test can change before the next load. */
  async function loadedStore(): Promise<{ store: Store<User>; server: FakeServer; current: UserData[] }> {
    const current = rows();
    const server = fakeServer(() => current.map((row) => ({ ...row })));
    const store = makeStore(server.rec, { data: [] });
    await within(store.load(), 2000, 'the first load');
    return { store, server, current };
  }

  it('an edit of the held record after a reload is sent by the next sync', async () => {
    // The UI holds a record, the store reloads, the user edits the held record and syncs: a PUT goes out.
    const { store, server } = await loadedStore();
    const held = store.getAt(0);
    if (!held) throw new Error('the first load gave no record');
    await within(store.load(), 2000, 'the second load');
    held.set('age', 77);
    await within(store.sync(), 2000, 'the sync');
    const puts = server.rec.calls.filter(isPut);
    expect(puts.map((call) => pathOf(call))).toEqual([`/users/${String(held.getId())}`]);
    expect(bodyObject(puts[0] ?? server.rec.last())).toMatchObject({ id: held.getId(), age: 77 });
  });

  it('after a reload the store lists the same record object for the id', async () => {
    // One record object per id: the store's record is the one the UI holds.
    const { store } = await loadedStore();
    const held = store.getAt(0);
    await within(store.load(), 2000, 'the second load');
    expect(store.getAt(0)).toBe(held);
    expect(store.getById(1)).toBe(held);
  });

  it('a held clean record takes the server\'s new values', async () => {
    // Someone renamed the record on the server between the loads: the held record shows it.
    const { store, current } = await loadedStore();
    const held = store.getAt(0);
    const row = current[0];
    if (!held || !row) throw new Error('no record');
    row.name = 'Annie';
    await within(store.load(), 2000, 'the second load');
    expect(held.get('name')).toBe('Annie');
    expect(held.dirty).toBe(false);
  });

  it('a held dirty record keeps its local edit on top of the server\'s new values', async () => {
    // The user edited age, the server renamed the record: after the load the record has both,
    // the edit still unsaved, and the next sync sends it.
    const { store, server, current } = await loadedStore();
    const held = store.getAt(0);
    const row = current[0];
    if (!held || !row) throw new Error('no record');
    held.set('age', 77);
    row.name = 'Annie';
    await within(store.load(), 2000, 'the second load');
    expect(store.getAt(0)).toBe(held);
    expect(held.get('name')).toBe('Annie');
    expect(held.get('age')).toBe(77);
    expect(held.dirty).toBe(true);
    await within(store.sync(), 2000, 'the sync');
    expect(putBodies(server.rec)).toEqual([expect.objectContaining({ id: 1, name: 'Annie', age: 77 })]);
  });
});

// ---- 4 -----------------------------------------------------------------------------------------

interface CreateFailure {
  label: string;
  /** The answer to the first POST. */
  first: Answer;
  /** An onResponse hook that throws after the first answer. */
  throwingHook?: boolean;
  /** The kind the first save fails with, when the contract names it. */
  kind?: string;
}

const CREATE_FAILURES: CreateFailure[] = [
  { label: 'a 201 with no id in the body and no Location', first: { status: 201, body: { name: 'Ed' } }, kind: 'server' },
  { label: 'a 201 whose only id source is a Location that cannot be decoded', first: { status: 201, headers: { Location: '/users/caf%E9' }, body: { name: 'Ed' } }, kind: 'server' },
  { label: 'an onResponse hook that throws after the 201', first: { status: 201, body: { id: 7, name: 'Ed' } }, throwingHook: true },
];

/**
 * A User class with `idempotencyKey: true` whose first POST is answered by `failure`; every later
 * POST is answered 201 with id 7 (the server holds the record), a DELETE with 204.
 */
function defineKeyedUser(failure: CreateFailure) {
  let hookThrew = false;
  const rec = recordingFetch((call, index): Answer => {
    if (index === 0) return failure.first;
    if (call.method === 'POST') return { status: 201, body: { ...bodyObject(call), id: 7 } };
    if (call.method === 'DELETE') return { status: 204 };
    return { status: 200, body: call.json };
  });
  const onResponse = (): void => {
    if (failure.throwingHook && !hookThrew) {
      hookThrew = true;
      throw new Error('the onResponse hook failed');
    }
  };
  class KeyedUser extends Model<UserData> {
    static override fields = User.fields;
    static override proxy = new RestProxy({ url: BASE, fetch: rec, retry: 0, idempotencyKey: true, onResponse });
  }
  return { KeyedUser, rec };
}

function keyOf(call: RecordedCall | undefined): string | undefined {
  return call?.headers['idempotency-key'];
}

describe('4. A 2xx create that fails locally must keep its idempotency key', () => {
  it.each(CREATE_FAILURES)('$label: the save rejects, the record stays new, and the next save sends the same Idempotency-Key', async (failure) => {
    // The server applied the create; whatever failed here, the retry must replay it, not create again.
    const { KeyedUser, rec } = defineKeyedUser(failure);
    const user = new KeyedUser({ name: 'Ed' });
    const error = await within(proxyErrorOf(user.save()), 2000, 'the first save');
    expect(user.phantom).toBe(true);
    expect(user.dirty).toBe(true);
    const firstKey = keyOf(rec.calls[0]);
    expect(firstKey).toEqual(expect.any(String));
    await within(user.save(), 2000, 'the second save');
    expect(summary(rec.calls)).toEqual(['POST /users', 'POST /users']);
    expect(keyOf(rec.calls[1])).toBe(firstKey);
    expect(user.getId()).toBe(7);
    if (failure.kind !== undefined) expect(error.kind).toBe(failure.kind);
  });

  it.each(CREATE_FAILURES)('$label: destroy() afterwards is not a local drop while the server holds the record', async (failure) => {
    // The record may exist on the server: destroying it must either confirm the create (same
    // key) and DELETE the id it learns, or fail; never "done" without a request.
    const { KeyedUser, rec } = defineKeyedUser(failure);
    const user = new KeyedUser({ name: 'Ed' });
    await within(proxyErrorOf(user.save()), 2000, 'the first save');
    const firstKey = keyOf(rec.calls[0]);
    const before = rec.calls.length;
    const outcome = await within(outcomeOf(user.destroy()), 2000, 'the destroy');
    const sent = rec.calls.slice(before);
    if (outcome.ok) {
      expect(summary(sent)).toEqual(['POST /users', 'DELETE /users/7']);
      expect(keyOf(sent[0])).toBe(firstKey);
      expect(user.erased).toBe(true);
    } else {
      expect(user.erased).toBe(false);
    }
  });
});

// ---- 5 -----------------------------------------------------------------------------------------

describe('5. Location is read only when the body has no id', () => {
  function defineLocatedUser(answer: Answer) {
    const rec = recordingFetch(() => answer);
    class LocatedUser extends Model<UserData> {
      static override fields = User.fields;
      static override proxy = new RestProxy({ url: BASE, fetch: rec, retry: 0 });
    }
    return LocatedUser;
  }

  it('a 201 with body id 7 and Location .../users/9 gives the record id 7', async () => {
    // The body's id wins: the Location header is not even looked at.
    const LocatedUser = defineLocatedUser({ status: 201, headers: { Location: `${BASE}/9` }, body: { id: 7, name: 'Ed' } });
    const user = new LocatedUser({ name: 'Ed' });
    await within(user.save(), 2000, 'the save');
    expect(user.getId()).toBe(7);
    expect(user.phantom).toBe(false);
  });

  it('a 201 with a body id and a Location that cannot be decoded succeeds with the body\'s id', async () => {
    // An undecodable Location (caf%E9) does not fail a create whose body has the id.
    const LocatedUser = defineLocatedUser({ status: 201, headers: { Location: '/users/caf%E9' }, body: { id: 7, name: 'Ed' } });
    const user = new LocatedUser({ name: 'Ed' });
    const outcome = await within(outcomeOf(user.save()), 2000, 'the save');
    expect(outcome).toEqual({ ok: true });
    expect(user.getId()).toBe(7);
    expect(user.phantom).toBe(false);
    expect(user.dirty).toBe(false);
  });
});

// ---- 6 -----------------------------------------------------------------------------------------

describe('6. etag with batchActions: records that have an ETag are never written without If-Match', () => {
  /** A User class on a proxy with `etag: true, batchActions: true`; GET /users/:id answers `"<id>-1"`. */
  function defineTaggedUser() {
    const rec = recordingFetch((call): Answer => {
      const id = /\/users\/(\d+)$/.exec(pathOf(call))?.[1];
      switch (call.method) {
        case 'GET': {
          const row = ROWS.find((candidate) => String(candidate.id) === id);
          return row ? { headers: { ETag: `"${row.id}-1"` }, body: row } : { status: 404, body: { message: 'Not found' } };
        }
        case 'PUT':
          return id === undefined ? { status: 200, body: call.json } : { status: 200, headers: { ETag: `"${id}-2"` }, body: call.json };
        case 'DELETE':
          return { status: 204 };
        default:
          return { status: 201, body: call.json };
      }
    });
    class TaggedUser extends Model<UserData> {
      static override fields = User.fields;
      static override proxy = new RestProxy({ url: BASE, fetch: rec, retry: 0, etag: true, batchActions: true });
    }
    return { TaggedUser, rec };
  }

  /** The ids a call writes: the one in its path, or those of its (batched) body. */
  function idsWritten(call: RecordedCall): unknown[] {
    const inPath = /\/users\/(\d+)$/.exec(pathOf(call))?.[1];
    if (inPath !== undefined) return [Number(inPath)];
    return call.json === undefined ? [] : idsInBody(call.json);
  }

  /** Every write of `id`: one request to /users/<id> carrying `If-Match: etag`. */
  function expectWrittenWithIfMatch(calls: RecordedCall[], method: string, id: number, etag: string | undefined): void {
    const writes = calls.filter((call) => call.method === method && idsWritten(call).includes(id));
    expect(writes.map((call) => `${call.method} ${pathOf(call)} If-Match: ${call.headers['if-match'] ?? '(none)'}`)).toEqual([
      `${method} /users/${id} If-Match: ${etag ?? '(none)'}`,
    ]);
  }

  it('a sync updates each record that has an ETag in its own PUT with its own If-Match', async () => {
    // Records loaded one by one carry their ETag; a batched sync must not send them without it.
    const { TaggedUser, rec } = defineTaggedUser();
    const first = await within(TaggedUser.load(1), 2000, 'load 1');
    const second = await within(TaggedUser.load(2), 2000, 'load 2');
    expect([first.etag, second.etag]).toEqual(['"1-1"', '"2-1"']);
    const store = new Store({ model: TaggedUser, data: [{ id: 3, name: 'Cid', email: 'cid@example.com', age: 50 }] });
    store.add([first, second]);
    for (const record of store) record.set('name', `${String(record.get('name'))}!`);
    await within(store.sync(), 2000, 'the sync');
    const writes = rec.calls.slice(2);
    expectWrittenWithIfMatch(writes, 'PUT', 1, '"1-1"');
    expectWrittenWithIfMatch(writes, 'PUT', 2, '"2-1"');
    // The record without an ETag is saved too (batched or not).
    expect(writes.some((call) => call.method === 'PUT' && idsWritten(call).includes(3))).toBe(true);
    expect(store.getUpdatedRecords()).toEqual([]);
  });

  it('a sync destroys each record that has an ETag in its own DELETE with its own If-Match', async () => {
    const { TaggedUser, rec } = defineTaggedUser();
    const first = await within(TaggedUser.load(1), 2000, 'load 1');
    const second = await within(TaggedUser.load(2), 2000, 'load 2');
    const store = new Store({ model: TaggedUser, data: [{ id: 3, name: 'Cid', email: 'cid@example.com', age: 50 }] });
    store.add([first, second]);
    store.removeAll();
    await within(store.sync(), 2000, 'the sync');
    const writes = rec.calls.slice(2);
    expectWrittenWithIfMatch(writes, 'DELETE', 1, '"1-1"');
    expectWrittenWithIfMatch(writes, 'DELETE', 2, '"2-1"');
    expect(store.getRemovedRecords()).toEqual([]);
  });
});

// ---- 7 -----------------------------------------------------------------------------------------

describe('7. Ids beyond 2^53', () => {
  const BIG_LIST = '[{"id": 9007199254740993, "name": "x", "email": "x@example.com", "age": 1}]';
  const BIG_ONE = '{"id": 9007199254740993, "name": "x", "email": "x@example.com", "age": 1}';

  /** An untyped id field, so that nothing but JSON.parse touches the number. */
  function defineBigUser(listBody: string, oneBody: string) {
    const rec = recordingFetch((call): Answer => {
      if (call.method === 'GET') {
        const body = /\/users\/[^/]+$/.test(pathOf(call)) ? oneBody : listBody;
        return { headers: { 'Content-Type': 'application/json' }, body };
      }
      if (call.method === 'DELETE') return { status: 204 };
      return { status: 200, body: call.json };
    });
    class BigUser extends Model<UserData> {
      static override fields = ['id', 'name', 'email', 'age'];
      static override proxy = new RestProxy({ url: BASE, fetch: rec, retry: 0 });
    }
    return { BigUser, rec };
  }

  // The message names the id (as sent, or as JSON.parse rounded it) and advises string ids.
  const NAMES_THE_ID = /900719925474099[23]/;

  it('a store load of such an id fails with kind "parse", naming the id and advising string ids', async () => {
    const { BigUser } = defineBigUser(BIG_LIST, BIG_ONE);
    const store = new Store({ model: BigUser });
    const error = await within(proxyErrorOf(store.load()), 2000, 'the load');
    expect(error.kind).toBe('parse');
    expect(error.message).toMatch(NAMES_THE_ID);
    expect(error.message).toMatch(/string/i);
    expect(error.message).toMatch(/the id 900719925474099[23] \(as JSON\.parse read it\), beyond/);
  });

  it('Model.load of such an id fails with kind "parse"', async () => {
    const { BigUser } = defineBigUser(BIG_LIST, BIG_ONE);
    const error = await within(proxyErrorOf(BigUser.load(1)), 2000, 'the load');
    expect(error.kind).toBe('parse');
    expect(error.message).toMatch(NAMES_THE_ID);
  });

  it('no request is ever sent to /users/9007199254740992 (the rounded id)', async () => {
    // Whatever the user does after the read, no write goes to another record's url.
    const { BigUser, rec } = defineBigUser(BIG_LIST, BIG_ONE);
    const store = new Store({ model: BigUser });
    await within(outcomeOf(store.load()), 2000, 'the load');
    for (const record of store) record.set('name', 'y');
    await within(outcomeOf(store.sync()), 2000, 'the sync');
    store.removeAll();
    await within(outcomeOf(store.sync()), 2000, 'the second sync');
    const loaded = await within(outcomeOf(BigUser.load(1).then((user) => user.set('name', 'z').save())), 2000, 'load and save');
    expect(rec.calls.map((call) => pathOf(call)).filter((path) => path.includes('9007199254740992'))).toEqual([]);
    expect(loaded.ok).toBe(false);
  });
});

// ---- 8 -----------------------------------------------------------------------------------------

describe('8. A body is decoded with the charset its Content-Type declares', () => {
  it('a Latin-1 body declared charset=iso-8859-1 reads "José", and the next PUT writes "José"', async () => {
    // The server sends the byte 0xE9 for é, as Latin-1: the user sees José, not Jos\uFFFD.
    const latin1 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(text, (char) => char.charCodeAt(0));
    const rec = recordingFetch((call): Answer => {
      if (call.method === 'GET') {
        return new Response(latin1('{"id":1,"name":"Jos\xE9","email":"jose@example.com","age":40}'), {
          status: 200,
          headers: { 'Content-Type': 'application/json; charset=iso-8859-1' },
        });
      }
      return { status: 200, body: call.json };
    });
    class LatinUser extends Model<UserData> {
      static override fields = User.fields;
      static override proxy = new RestProxy({ url: BASE, fetch: rec, retry: 0 });
    }
    const user = await within(LatinUser.load(1), 2000, 'the load');
    expect(user.get('name')).toBe('Jos\u00e9');
    user.set('age', 41);
    await within(user.save(), 2000, 'the save');
    expect(rec.last().method).toBe('PUT');
    expect(bodyObject(rec.last())['name']).toBe('Jos\u00e9');
  });
});

// ---- 9 -----------------------------------------------------------------------------------------

describe('9. The constructor refuses keys that are not declared fields', () => {
  it('new User({ name, agee }) throws a TypeError naming "agee", as set() does', () => {
    // A typo in a key is an error at once, not a value silently kept (and sent).
    const init = { name: 'Ed', agee: 3 };
    expect(() => new User(init)).toThrow(TypeError);
    expect(() => new User(init)).toThrow(/agee/);
  });

  it('a model that declares no fields still accepts any key', () => {
    class Free extends Model {}
    const free = new Free({ anything: 1, other: 'x' });
    expect(free.get('anything')).toBe(1);
    expect(free.get('other')).toBe('x');
  });
});

// ---- 10 ----------------------------------------------------------------------------------------

interface FlagData {
  id: number;
  name: string;
  success: boolean;
}

describe('10. A record\'s own "success" field is not an envelope\'s', () => {
  /** A model with a `success` field, on a server that echoes writes (POST with id 1). */
  function defineFlag(respond?: Responder, reader?: { rootProperty: string }) {
    const rec = recordingFetch(
      respond ??
        ((call): Answer => {
          if (call.method === 'GET') {
            return /\/flags\/1$/.test(pathOf(call))
              ? { body: { id: 1, name: 'x', success: false } }
              : { body: [{ id: 1, name: 'x', success: false }] };
          }
          if (call.method === 'POST') return { status: 201, body: { ...bodyObject(call), id: 1 } };
          return { status: 200, body: call.json };
        }),
    );
    class Flag extends Model<FlagData> {
      static override fields = [{ name: 'id', type: 'int' }, 'name', { name: 'success', type: 'boolean' }];
      static override proxy = new RestProxy({ url: 'http://api.test/flags', fetch: rec, retry: 0, ...(reader ? { reader } : {}) });
    }
    return { Flag, rec };
  }

  it('store.load() reads records whose success is false', async () => {
    const { Flag } = defineFlag();
    const store = new Store({ model: Flag });
    await within(store.load(), 2000, 'the load');
    expect(store.getById(1)?.get('success')).toBe(false);
  });

  it('Model.load(id) reads a record whose success is false', async () => {
    // With rootProperty '' the body is the record itself, not an envelope.
    const { Flag } = defineFlag();
    const outcome = await within(outcomeOf(Flag.load(1)), 2000, 'the load');
    expect(outcome).toEqual({ ok: true });
    const flag = await within(Flag.load(1), 2000, 'the load');
    expect(flag.get('success')).toBe(false);
    expect(flag.get('name')).toBe('x');
  });

  it('an update answered with the record (success: false) succeeds', async () => {
    const { Flag } = defineFlag();
    const store = new Store({ model: Flag });
    await within(store.load(), 2000, 'the load');
    const flag = store.getById(1);
    if (!flag) throw new Error('no record 1');
    flag.set('name', 'y');
    const outcome = await within(outcomeOf(flag.save()), 2000, 'the save');
    expect(outcome).toEqual({ ok: true });
    expect(flag.dirty).toBe(false);
  });

  it('a create answered with the record (success: false) succeeds', async () => {
    const { Flag } = defineFlag();
    const flag = new Flag({ name: 'n', success: false });
    const outcome = await within(outcomeOf(flag.save()), 2000, 'the save');
    expect(outcome).toEqual({ ok: true });
    expect(flag.getId()).toBe(1);
    expect(flag.phantom).toBe(false);
  });

  it('a real envelope { success: false, message, data: [] } read with rootProperty "data" still fails with kind "server"', async () => {
    const { Flag } = defineFlag(() => ({ body: { success: false, message: 'nope', data: [] } }), { rootProperty: 'data' });
    const store = new Store({ model: Flag });
    const error = await within(proxyErrorOf(store.load()), 2000, 'the load');
    expect(error.kind).toBe('server');
    expect(error.message).toContain('nope');
  });
});
