/**
 * Store.sync (API.md section 6) through a Rest proxy and a recording fetch: batched and unbatched,
 * partial failure then a second sync sending exactly the rest, concurrent syncs, destroy
 * bookkeeping, edits during a sync, unsynced changes surviving a load, commit/reject, autoSync.
 * Pitfalls 21, 25, 30, 31, 32, 33, 36, 37, 39, 40, 45 of the Ext reference each have a test here.
 */
import { describe, expect, it, vi } from 'vitest';
import { Batch, BatchError, Model, ProxyError, RestProxy, Store } from '../../src/index.js';
import { recordingFetch, type Answer, type RecordedCall, type RecordingFetch, type Responder } from '../helpers/recordingFetch.js';
import { bodyArray, bodyObject, parkingResponder, pathOf, summary } from '../helpers/deferred.js';

interface PersonData {
  id: number;
  name: string;
  dept: string;
}

class Person extends Model<PersonData> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', 'dept'];
}

class Tagged extends Model<PersonData> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', 'dept'];
  static override clientIdProperty = 'clientId';
}

const BASE = 'http://api.test/people';
const ROWS: PersonData[] = [
  { id: 1, name: 'Ann', dept: 'eng' },
  { id: 2, name: 'Ben', dept: 'ops' },
  { id: 3, name: 'Cid', dept: 'eng' },
  { id: 4, name: 'Dee', dept: 'ops' },
];

/**
 * A small REST server behind the recording fetch: POST assigns ids from 100 (echoing the body,
 * clientId included), PUT echoes, DELETE answers 204, GET answers `rows()`. `fail` may answer a
 * call instead (return undefined to let it through).
 */
function echoServer(options: { fail?: (call: RecordedCall) => Answer | undefined; rows?: () => unknown } = {}): Responder {
  let nextId = 100;
  return (call) => {
    const failure = options.fail?.(call);
    if (failure) return failure;
    switch (call.method) {
      case 'POST':
        if (Array.isArray(call.json)) return { status: 201, body: bodyArray(call).map((item) => ({ ...item, id: nextId++ })) };
        return { status: 201, body: { ...bodyObject(call), id: nextId++ } };
      case 'PUT':
        return { status: 200, body: call.json };
      case 'DELETE':
        return { status: 204 };
      default:
        return { body: options.rows ? options.rows() : [] };
    }
  };
}

interface Setup<M extends Person | Tagged> {
  store: Store<M>;
  rec: RecordingFetch;
}

function makeStore(respond: Responder, options: { batchActions?: boolean; autoSync?: boolean } = {}): Setup<Person> {
  const rec = recordingFetch(respond);
  const store = new Store({
    model: Person,
    data: ROWS.map((row) => ({ ...row })),
    autoSync: options.autoSync ?? false,
    proxy: new RestProxy({ url: BASE, fetch: rec, retry: 0, batchActions: options.batchActions ?? false }),
  });
  return { store, rec };
}

function record<M extends Person | Tagged>(store: Store<M>, id: number): M {
  const found = store.getById(id);
  if (!found) throw new Error(`no record ${id} in the store`);
  return found;
}

async function batchRejection(promise: Promise<unknown>): Promise<BatchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof BatchError) return error;
    throw new Error(`expected a BatchError, got ${String(error)}`);
  }
  throw new Error('expected the sync to reject');
}

const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

/** The sorted "METHOD /path name" lines of the calls, to compare sets of requests. */
function described(calls: RecordedCall[]): string[] {
  return calls
    .map((call) => {
      const name = call.method === 'POST' || call.method === 'PUT' ? ` ${String(bodyObject(call)['name'])}` : '';
      return `${call.method} ${pathOf(call)}${name}`;
    })
    .sort();
}

/** Ids named by a batched destroy body: `[1, 2]` or `[{ id: 1 }, { id: 2 }]`. */
function destroyedIds(call: RecordedCall): unknown[] {
  const json = call.json;
  if (!Array.isArray(json)) throw new Error(`expected an array body, got ${String(call.body)}`);
  return json.map((item: unknown) => (typeof item === 'object' && item !== null && 'id' in item ? item.id : item));
}

describe('Store.sync without batchActions: one request per record', () => {
  it('sends POST for new, PUT for updated and DELETE for removed records, and commits them', async () => {
    const { store, rec } = makeStore(echoServer());
    const [fresh] = store.add({ name: 'Eve', dept: 'eng' });
    record(store, 1).set('name', 'Anne');
    store.remove(record(store, 2));
    expect(store.getNewRecords()).toEqual([fresh]);
    expect(store.getUpdatedRecords().map((r) => r.getId())).toEqual([1]);
    expect(store.getRemovedRecords().map((r) => r.getId())).toEqual([2]);

    const batch = await store.sync();
    expect(rec.calls.map((call) => call.method)).toEqual(['POST', 'PUT', 'DELETE']);
    expect(described(rec.calls)).toEqual(['DELETE /people/2', 'POST /people Eve', 'PUT /people/1 Anne']);
    expect(rec.calls.find((call) => call.method === 'DELETE')?.body).toBeUndefined();
    const created = bodyObject(rec.calls[0] ?? rec.last());
    expect(created['id'] === undefined || created['id'] === null).toBe(true);

    expect(batch).toBeInstanceOf(Batch);
    expect(batch.isComplete).toBe(true);
    expect(batch.hasException()).toBe(false);
    expect(batch.operations).toHaveLength(3);
    // The completed operations still know their records.
    expect(batch.operations.map((operation) => [operation.action, operation.records.length])).toEqual([
      ['create', 1], ['update', 1], ['destroy', 1],
    ]);

    expect(fresh?.phantom).toBe(false);
    expect(fresh?.getId()).toBe(100);
    expect(store.getById(100)).toBe(fresh);
    expect(record(store, 1).dirty).toBe(false);
    expect(store.getNewRecords()).toEqual([]);
    expect(store.getUpdatedRecords()).toEqual([]);
    expect(store.getRemovedRecords()).toEqual([]);

    await store.sync();
    expect(rec.calls).toHaveLength(3);
  });

  it('a sync with nothing to do sends nothing and still resolves with a Batch', async () => {
    const { store, rec } = makeStore(echoServer());
    const batch = await store.sync();
    expect(batch).toBeInstanceOf(Batch);
    expect(rec.calls).toHaveLength(0);
  });

  it('keeps at most 4 requests in flight by default, and the concurrency option changes it', async () => {
    let inFlight = 0;
    let peak = 0;
    const echo = echoServer();
    const respond: Responder = async (call, index) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await tick(5);
      inFlight--;
      return echo(call, index);
    };
    const { store, rec } = makeStore(respond);
    store.add(Array.from({ length: 10 }, (_, i) => ({ name: `n${i}`, dept: 'eng' })));
    await store.sync();
    expect(rec.calls).toHaveLength(10);
    expect(peak).toBe(4);

    peak = 0;
    store.add(Array.from({ length: 6 }, (_, i) => ({ name: `m${i}`, dept: 'eng' })));
    await store.sync({ concurrency: 2 });
    expect(rec.calls).toHaveLength(16);
    expect(peak).toBe(2);
  });

  it('beforesync can cancel: nothing is sent and the changes stay pending', async () => {
    const { store, rec } = makeStore(echoServer());
    store.add({ name: 'Eve', dept: 'eng' });
    const off = store.on('beforesync', () => false);
    await store.sync().catch(() => undefined);
    expect(rec.calls).toHaveLength(0);
    expect(store.getNewRecords()).toHaveLength(1);
    off();
    await store.sync();
    expect(rec.calls).toHaveLength(1);
  });

  it('fires write for the successful operations and exception for a failed one', async () => {
    const { store } = makeStore(echoServer({ fail: (call) => (call.method === 'DELETE' ? { status: 500 } : undefined) }));
    const writes: unknown[] = [];
    const exceptions: unknown[] = [];
    store.on('write', (event) => {
      writes.push(event);
    });
    store.on('exception', (event) => {
      exceptions.push(event);
    });
    store.add({ name: 'Eve', dept: 'eng' });
    record(store, 1).set('name', 'Anne');
    store.remove(record(store, 2));
    await batchRejection(store.sync());
    expect(writes.length).toBeGreaterThan(0);
    expect(exceptions).toHaveLength(1);
  });
});

describe('Store.sync: which records count as unsaved', () => {
  it('a record constructed with an id is taken as saved: sync sends nothing for it', async () => {
    const { store, rec } = makeStore(echoServer());
    const [known] = store.add(new Person({ id: 9, name: 'Known', dept: 'eng' }));
    expect(known?.phantom).toBe(false);
    expect(store.getNewRecords()).toEqual([]);
    await store.sync();
    expect(rec.calls).toHaveLength(0);
    known?.set('name', 'Changed');
    await store.sync();
    expect(described(rec.calls)).toEqual(['PUT /people/9 Changed']);
  });

  it('record.save() of a record in a store with its own proxy goes through the store\'s proxy', async () => {
    const modelFetch = recordingFetch();
    class Member extends Model<PersonData> {
      static override fields = ['id', 'name', 'dept'];
      static override proxy = new RestProxy({ url: 'http://api.test/members', fetch: modelFetch, retry: 0 });
    }
    const storeFetch = recordingFetch();
    const store = new Store({ model: Member, data: [{ id: 1, name: 'Ann', dept: 'eng' }], proxy: new RestProxy({ url: BASE, fetch: storeFetch, retry: 0 }) });
    const ann = record(store, 1);
    ann.set('name', 'Anne');
    await ann.save();
    expect(modelFetch.calls).toHaveLength(0);
    expect(summary(storeFetch.calls)).toEqual(['PUT /people/1']);
    expect(store.getUpdatedRecords()).toEqual([]);
  });
});

describe('Store.sync with batchActions: one request per action type', () => {
  it('sends one POST, one PUT and one DELETE with all records of each type', async () => {
    const { store, rec } = makeStore(echoServer(), { batchActions: true });
    const added = store.add([{ name: 'Eve', dept: 'eng' }, { name: 'Fay', dept: 'ops' }]);
    record(store, 1).set('name', 'Anne');
    record(store, 3).set('dept', 'ops');
    store.remove([record(store, 2), record(store, 4)]);
    const batch = await store.sync();
    expect(summary(rec.calls)).toEqual(['POST /people', 'PUT /people', 'DELETE /people']);
    const [post, put, del] = rec.calls;
    if (!post || !put || !del) throw new Error('three calls expected');
    expect(bodyArray(post).map((item) => item['name'])).toEqual(['Eve', 'Fay']);
    expect(bodyArray(post).every((item) => item['id'] === undefined || item['id'] === null)).toBe(true);
    expect(bodyArray(put).map((item) => [item['id'], item['name'], item['dept']])).toEqual([[1, 'Anne', 'eng'], [3, 'Cid', 'ops']]);
    expect(destroyedIds(del)).toEqual([2, 4]);
    expect(batch.operations).toHaveLength(3);
    // Matched back by position.
    expect(added.map((r) => r.getId())).toEqual([100, 101]);
    expect(added.every((r) => !r.phantom && !r.dirty)).toBe(true);
    expect(store.getNewRecords()).toEqual([]);
    expect(store.getUpdatedRecords()).toEqual([]);
    expect(store.getRemovedRecords()).toEqual([]);
  });

  it('matches created records back by client id when the server answers in another order', async () => {
    const rec = recordingFetch((call) => {
      const items = bodyArray(call);
      return { status: 201, body: items.map((item, i) => ({ ...item, id: 200 + i })).reverse() };
    });
    const store = new Store({ model: Tagged, proxy: new RestProxy({ url: BASE, fetch: rec, retry: 0, batchActions: true }) });
    const [eve, fay, gus] = store.add([{ name: 'Eve' }, { name: 'Fay' }, { name: 'Gus' }]);
    await store.sync();
    const sent = bodyArray(rec.last());
    expect(sent.map((item) => item['clientId'])).toEqual([eve?.clientId, fay?.clientId, gus?.clientId]);
    expect([eve?.getId(), fay?.getId(), gus?.getId()]).toEqual([200, 201, 202]);
    expect(eve?.get('name')).toBe('Eve');
    expect(gus?.get('name')).toBe('Gus');
  });

  it('a record the server answered no id for stays new (no committed phantom)', async () => {
    // The server gives an id to the first record of an array only; a single record, none.
    const rec = recordingFetch((call) =>
      Array.isArray(call.json) ? { status: 201, body: bodyArray(call).slice(0, 1).map((item) => ({ ...item, id: 10 })) } : { status: 201, body: {} },
    );
    const store = new Store({ model: Person, proxy: new RestProxy({ url: BASE, fetch: rec, retry: 0, batchActions: true }) });
    const [eve, fay] = store.add([{ name: 'Eve' }, { name: 'Fay' }]);
    const error = await batchRejection(store.sync());
    expect(error.errors[0]?.kind).toBe('server');
    expect(fay?.phantom).toBe(true);
    expect(fay?.getId()).toBeUndefined();
    expect(store.getNewRecords()).toContain(fay);
    // Eve got her id: she is saved, so the next sync creates only Fay (no duplicate Eve).
    expect(eve?.phantom).toBe(false);
    expect(eve?.getId()).toBe(10);
    await batchRejection(store.sync());
    expect(rec.calls).toHaveLength(2);
    expect(rec.last().json).toEqual({ name: 'Fay' });
  });

  it('a failed action type stays pending as a whole while the others are committed; the next sync sends exactly it', async () => {
    let healthy = false;
    const { store, rec } = makeStore(echoServer({ fail: (call) => (!healthy && call.method === 'POST' ? { status: 500 } : undefined) }), { batchActions: true });
    const added = store.add([{ name: 'Eve', dept: 'eng' }, { name: 'Fay', dept: 'ops' }]);
    record(store, 1).set('name', 'Anne');
    const error = await batchRejection(store.sync());
    expect(error.errors).toHaveLength(1);
    expect(error.errors[0]).toBeInstanceOf(ProxyError);
    expect(added.every((r) => r.phantom)).toBe(true);
    expect(record(store, 1).dirty).toBe(false);
    healthy = true;
    const before = rec.calls.length;
    await store.sync();
    const second = rec.calls.slice(before);
    expect(summary(second)).toEqual(['POST /people']);
    expect(bodyArray(second[0] ?? rec.last()).map((item) => item['name'])).toEqual(['Eve', 'Fay']);
  });
});

describe('Store.sync partial failure', () => {
  it('commits what succeeded, keeps what failed pending, and the next sync sends exactly the rest', async () => {
    let healthy = false;
    const failing = (call: RecordedCall): Answer | undefined => {
      if (healthy) return undefined;
      if (call.method === 'POST' && bodyObject(call)['name'] === 'Fay') return { status: 500 };
      if (call.method === 'PUT' && pathOf(call) === '/people/2') return { status: 500 };
      if (call.method === 'DELETE' && pathOf(call) === '/people/4') return { status: 503 };
      return undefined;
    };
    const { store, rec } = makeStore(echoServer({ fail: failing }));
    const [eve, fay, gus] = store.add([{ name: 'Eve', dept: 'x' }, { name: 'Fay', dept: 'x' }, { name: 'Gus', dept: 'x' }]);
    record(store, 1).set('name', 'Anne');
    record(store, 2).set('name', 'Benny');
    store.remove([record(store, 3), record(store, 4)]);
    const exceptions: unknown[] = [];
    store.on('exception', (event) => {
      exceptions.push(event);
    });

    const error = await batchRejection(store.sync());
    expect(error.batch).toBeInstanceOf(Batch);
    expect(error.errors).toHaveLength(3);
    expect(error.errors.every((e) => e instanceof ProxyError)).toBe(true);
    expect(error.batch.exceptions).toHaveLength(3);
    expect(exceptions.length).toBeGreaterThan(0);
    // The failed operations still know their records.
    const failedRecords = error.errors.flatMap((e) => e.operation?.records ?? []);
    expect(failedRecords).toEqual(expect.arrayContaining([fay, record(store, 2)]));

    // Succeeded: committed.
    expect(eve?.phantom).toBe(false);
    expect(gus?.phantom).toBe(false);
    expect(record(store, 1).dirty).toBe(false);
    // Failed: still new, dirty, removed.
    expect(fay?.phantom).toBe(true);
    expect(store.getNewRecords()).toEqual([fay]);
    expect(store.getUpdatedRecords().map((r) => r.getId())).toEqual([2]);
    expect(record(store, 2).get('name')).toBe('Benny');
    expect(record(store, 2).modified).toEqual({ name: 'Ben' });
    expect(store.getRemovedRecords().map((r) => r.getId())).toEqual([4]);

    healthy = true;
    const before = rec.calls.length;
    await store.sync();
    expect(described(rec.calls.slice(before))).toEqual(['DELETE /people/4', 'POST /people Fay', 'PUT /people/2 Benny']);
    expect(store.getNewRecords()).toEqual([]);
    expect(store.getUpdatedRecords()).toEqual([]);
    expect(store.getRemovedRecords()).toEqual([]);
    // Nothing created twice.
    const posted = rec.calls.filter((call) => call.method === 'POST').map((call) => bodyObject(call)['name']);
    expect(posted.sort()).toEqual(['Eve', 'Fay', 'Fay', 'Gus']);
    const okPosts = rec.calls.slice(0, before).filter((call) => call.method === 'POST' && bodyObject(call)['name'] !== 'Fay');
    expect(okPosts).toHaveLength(2);
  });

  it('does not stop at the first failure (pauseOnException is off by default)', async () => {
    const { store, rec } = makeStore(echoServer({ fail: (call) => (bodyObject(call)['name'] === 'A' ? { status: 500 } : undefined) }));
    store.add([{ name: 'A' }, { name: 'B' }, { name: 'C' }]);
    await batchRejection(store.sync());
    expect(rec.calls).toHaveLength(3);
    expect(store.getNewRecords().map((r) => r.get('name'))).toEqual(['A']);
  });
});

describe('Store.sync called while one runs', () => {
  it('waits and never sends a duplicate create', async () => {
    const { respond, parked } = parkingResponder();
    const { store, rec } = makeStore(respond);
    const [eve] = store.add({ name: 'Eve', dept: 'eng' });
    const first = store.sync();
    await vi.waitFor(() => expect(rec.calls).toHaveLength(1));
    const second = store.sync();
    await tick();
    expect(rec.calls).toHaveLength(1);
    parked[0]?.answer({ status: 201, body: { id: 100, name: 'Eve', dept: 'eng' } });
    await Promise.all([first, second]);
    await tick();
    expect(summary(rec.calls)).toEqual(['POST /people']);
    expect(eve?.getId()).toBe(100);
  });

  it('then sends only what became pending meanwhile', async () => {
    const { respond, parked } = parkingResponder();
    const { store, rec } = makeStore(respond);
    store.add({ name: 'Eve', dept: 'eng' });
    const first = store.sync();
    await vi.waitFor(() => expect(rec.calls).toHaveLength(1));
    store.add({ name: 'Fay', dept: 'ops' });
    record(store, 1).set('name', 'Anne');
    const second = store.sync();
    await tick();
    expect(rec.calls).toHaveLength(1);
    parked[0]?.answer({ status: 201, body: { id: 100, name: 'Eve', dept: 'eng' } });
    await first;
    await vi.waitFor(() => expect(rec.calls).toHaveLength(2));
    parked[1]?.answer({ status: 201, body: { ...bodyObject(parked[1].call), id: 101 } });
    await vi.waitFor(() => expect(parked).toHaveLength(3));
    parked[2]?.answer({ body: parked[2].call.json });
    await second;
    expect(described(rec.calls)).toEqual(['POST /people Eve', 'POST /people Fay', 'PUT /people/1 Anne']);
  });

  it('sends again what the running sync failed to send, exactly once', async () => {
    const { respond, parked } = parkingResponder();
    const { store, rec } = makeStore(respond);
    const [eve] = store.add({ name: 'Eve', dept: 'eng' });
    const first = batchRejection(store.sync());
    await vi.waitFor(() => expect(rec.calls).toHaveLength(1));
    const second = store.sync();
    parked[0]?.answer({ status: 500 });
    await first;
    await vi.waitFor(() => expect(rec.calls).toHaveLength(2));
    parked[1]?.answer({ status: 201, body: { id: 100, name: 'Eve', dept: 'eng' } });
    await second;
    await tick();
    expect(summary(rec.calls)).toEqual(['POST /people', 'POST /people']);
    expect(eve?.getId()).toBe(100);
  });

  it('autoSync: a failed sync is reported by the exception event and the record stays new', async () => {
    const { store, rec } = makeStore(() => ({ status: 500 }), { autoSync: true });
    const exceptions: unknown[] = [];
    store.on('exception', (event) => {
      exceptions.push(event);
    });
    const [eve] = store.add({ name: 'Eve', dept: 'eng' });
    await vi.waitFor(() => expect(exceptions.length).toBeGreaterThan(0));
    expect(rec.calls).toHaveLength(1);
    expect(eve?.phantom).toBe(true);
    expect(store.getNewRecords()).toEqual([eve]);
  });

  it('autoSync: rapid edits send every record once', async () => {
    const echo = echoServer();
    const { store, rec } = makeStore(async (call, index) => {
      await tick(10);
      return echo(call, index);
    }, { autoSync: true });
    store.add({ name: 'Eve', dept: 'eng' });
    await tick(2);
    store.add({ name: 'Fay', dept: 'eng' });
    record(store, 1).set('name', 'Anne');
    await vi.waitFor(() => {
      expect(store.getNewRecords()).toEqual([]);
      expect(store.getUpdatedRecords()).toEqual([]);
    });
    await tick(50);
    expect(described(rec.calls)).toEqual(['POST /people Eve', 'POST /people Fay', 'PUT /people/1 Anne']);
  });
});

describe('Store.sync destroy bookkeeping', () => {
  it('a successful destroy clears only its own record from the pending removals', async () => {
    let healthy = false;
    const { store, rec } = makeStore(echoServer({ fail: (call) => (!healthy && pathOf(call) === '/people/2' ? { status: 500 } : undefined) }));
    store.remove([record(store, 1), record(store, 2), record(store, 3)]);
    await batchRejection(store.sync());
    expect(store.getRemovedRecords().map((r) => r.getId())).toEqual([2]);
    healthy = true;
    const before = rec.calls.length;
    await store.sync();
    expect(summary(rec.calls.slice(before))).toEqual(['DELETE /people/2']);
    expect(store.getRemovedRecords()).toEqual([]);
  });

  it('a removal made while a destroy is in flight stays pending', async () => {
    const { respond, parked } = parkingResponder();
    const { store, rec } = makeStore(respond);
    store.remove(record(store, 1));
    const first = store.sync();
    await vi.waitFor(() => expect(rec.calls).toHaveLength(1));
    store.remove(record(store, 3));
    parked[0]?.answer({ status: 204 });
    await first;
    expect(store.getRemovedRecords().map((r) => r.getId())).toEqual([3]);
    const second = store.sync();
    await vi.waitFor(() => expect(rec.calls).toHaveLength(2));
    parked[1]?.answer({ status: 204 });
    await second;
    expect(summary(rec.calls)).toEqual(['DELETE /people/1', 'DELETE /people/3']);
  });

  it('a record removed while its create is in flight is deleted by the next sync (no orphan)', async () => {
    const { respond, parked } = parkingResponder();
    const { store, rec } = makeStore(respond);
    const [eve] = store.add({ name: 'Eve', dept: 'eng' });
    if (!eve) throw new Error('fixture');
    const first = store.sync();
    await vi.waitFor(() => expect(rec.calls).toHaveLength(1));
    store.remove(eve);
    parked[0]?.answer({ status: 201, body: { id: 100, name: 'Eve', dept: 'eng' } });
    await first;
    expect(store.getById(100)).toBeUndefined();
    const second = store.sync();
    await vi.waitFor(() => expect(rec.calls).toHaveLength(2));
    parked[1]?.answer({ status: 204 });
    await second;
    expect(summary(rec.calls)).toEqual(['POST /people', 'DELETE /people/100']);
  });
});

describe('Store and record.destroy()', () => {
  it('a record destroyed by itself leaves the store and is not deleted a second time by sync', async () => {
    const { store, rec } = makeStore(echoServer());
    const ben = record(store, 2);
    await ben.destroy();
    expect(store.getById(2)).toBeUndefined();
    expect(store.getCount()).toBe(3);
    expect(store.getRemovedRecords()).toEqual([]);
    await store.sync();
    expect(summary(rec.calls)).toEqual(['DELETE /people/2']);
  });
});

describe('Store.sync: edits made while the sync is in flight', () => {
  it('stay dirty with the new value and are sent by the next sync', async () => {
    const { respond, parked } = parkingResponder();
    const { store, rec } = makeStore(respond);
    const ann = record(store, 1);
    ann.set('name', 'Anne');
    const first = store.sync();
    await vi.waitFor(() => expect(rec.calls).toHaveLength(1));
    ann.set('name', 'Annie');
    parked[0]?.answer({ body: { id: 1, name: 'Anne', dept: 'eng' } });
    await first;
    expect(ann.get('name')).toBe('Annie');
    expect(ann.dirty).toBe(true);
    expect(store.getUpdatedRecords()).toEqual([ann]);
    const second = store.sync();
    await vi.waitFor(() => expect(rec.calls).toHaveLength(2));
    expect(bodyObject(rec.last())['name']).toBe('Annie');
    parked[1]?.answer({ body: { id: 1, name: 'Annie', dept: 'eng' } });
    await second;
    expect(ann.dirty).toBe(false);
  });
});

describe('Store: unsynced changes survive a load', () => {
  const serverRows = (): PersonData[] => [
    { id: 1, name: 'Ann', dept: 'research' },
    { id: 2, name: 'Ben', dept: 'ops' },
    { id: 3, name: 'Cid', dept: 'eng' },
  ];

  function editedStore(): Setup<Person> & { fresh: Person } {
    const { store, rec } = makeStore(echoServer({ rows: serverRows }));
    const [fresh] = store.add({ name: 'Eve', dept: 'eng' });
    if (!fresh) throw new Error('fixture');
    record(store, 1).set('name', 'Anne');
    store.remove(record(store, 2));
    return { store, rec, fresh };
  }

  it('keeps new, dirty and removed records pending, local edits on top of server values', async () => {
    const { store, rec, fresh } = editedStore();
    await store.load();
    expect(store.indexOf(fresh)).not.toBe(-1);
    expect(store.getNewRecords()).toEqual([fresh]);
    const ann = record(store, 1);
    expect(ann.get('name')).toBe('Anne');
    expect(ann.get('dept')).toBe('research');
    expect(ann.dirty).toBe(true);
    expect(ann.isModified('name')).toBe(true);
    expect(store.getRemovedRecords().map((r) => r.getId())).toEqual([2]);

    const before = rec.calls.length;
    await store.sync();
    expect(described(rec.calls.slice(before))).toEqual(['DELETE /people/2', 'POST /people Eve', 'PUT /people/1 Anne']);
  });

  it('an edited record that is not on the loaded page stays pending and is synced', async () => {
    const { store, rec } = makeStore(echoServer({ rows: serverRows }));
    record(store, 4).set('name', 'Deedee');
    await store.load();
    expect(store.getUpdatedRecords().map((r) => r.getId())).toEqual([4]);
    const before = rec.calls.length;
    await store.sync();
    expect(described(rec.calls.slice(before))).toEqual(['PUT /people/4 Deedee']);
  });

  it('load({ discardChanges: true }) drops them', async () => {
    const { store, rec, fresh } = editedStore();
    await store.load({ discardChanges: true });
    expect(store.getRange().map((r) => r.getId())).toEqual([1, 2, 3]);
    expect(store.indexOf(fresh)).toBe(-1);
    expect(record(store, 1).get('name')).toBe('Ann');
    expect(record(store, 1).dirty).toBe(false);
    expect(store.getNewRecords()).toEqual([]);
    expect(store.getUpdatedRecords()).toEqual([]);
    expect(store.getRemovedRecords()).toEqual([]);
    const before = rec.calls.length;
    await store.sync();
    expect(rec.calls.length).toBe(before);
  });

  it('rejectChanges() drops them without a request', async () => {
    const { store, rec, fresh } = editedStore();
    store.rejectChanges();
    expect(store.indexOf(fresh)).toBe(-1);
    expect(record(store, 1).get('name')).toBe('Ann');
    expect(record(store, 1).dirty).toBe(false);
    expect(store.getById(2)?.get('name')).toBe('Ben');
    expect(store.getCount()).toBe(4);
    expect(store.getNewRecords()).toEqual([]);
    expect(store.getUpdatedRecords()).toEqual([]);
    expect(store.getRemovedRecords()).toEqual([]);
    await store.sync();
    expect(rec.calls).toHaveLength(0);
  });

  it('commitChanges() marks edits and removals as saved without a request', async () => {
    const { store, rec } = makeStore(echoServer());
    record(store, 1).set('name', 'Anne');
    store.remove(record(store, 2));
    store.commitChanges();
    expect(record(store, 1).dirty).toBe(false);
    expect(record(store, 1).get('name')).toBe('Anne');
    expect(store.getUpdatedRecords()).toEqual([]);
    expect(store.getRemovedRecords()).toEqual([]);
    await store.sync();
    expect(rec.calls).toHaveLength(0);
  });
});

describe('Store.sync keeps the total count in step', () => {
  it('adds the records created and takes away those destroyed', async () => {
    const rec = recordingFetch((call) => {
      if (call.method === 'GET') return { body: [{ id: 1, name: 'Ann', dept: 'eng' }, { id: 2, name: 'Bob', dept: 'ops' }], headers: { 'X-Total-Count': '40' } };
      if (call.method === 'POST') return { status: 201, body: { ...bodyObject(call), id: 100 } };
      return { status: 204 };
    });
    const store = new Store({ model: Person, proxy: new RestProxy({ url: BASE, fetch: rec, retry: 0, reader: { totalHeader: 'X-Total-Count' } }) });
    await store.load();
    expect(store.getTotalCount()).toBe(40);
    store.add({ name: 'Eve', dept: 'eng' });
    store.remove(record(store, 1));
    store.remove(record(store, 2));
    await store.sync();
    expect(store.getTotalCount()).toBe(39);
  });
});
