/**
 * A create re-sent under its idempotency key after the user edited the record: a server that
 * replays the first try answers with that try's row, without the edit. A save or sync that
 * resolves has sent every change made before it was called, so it follows the create with an
 * update of those edits, and only of those (found by the soak, seeds 555 and 2026; the cases
 * below by a review of that fix).
 */
import { describe, expect, it } from 'vitest';
import { BatchError, Model, ProxyError, RestProxy, Store, type RestProxyConfig } from '../../src/index.js';
import { recordingFetch, type Answer, type RecordedCall } from '../helpers/recordingFetch.js';
import { bodyField, methods, replayServer, tick, type NoteRow } from '../helpers/replayServer.js';

interface NoteData {
  id: number;
  name: string;
  note: string;
}

class Note extends Model<NoteData> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', 'note'];
}

function setUp(extra: Partial<RestProxyConfig> = {}, answer?: (call: RecordedCall) => Answer | undefined) {
  const server = replayServer();
  const fetch = recordingFetch((call) => answer?.(call) ?? server.respond(call));
  const proxy = new RestProxy({ url: 'http://api.test/items', fetch, idempotencyKey: true, retry: 0, ...extra });
  return { server, fetch, proxy };
}

/** A record of its own model whose first create was applied, its answer lost. */
async function unconfirmedRecord() {
  const env = setUp();
  class Saved extends Note {}
  Saved.setProxy(env.proxy);
  const mine = new Saved({ name: 'first', note: 'n0' });
  env.server.losePosts(1);
  await expect(mine.save()).rejects.toThrow(/network error/);
  env.fetch.calls.length = 0;
  return { ...env, mine };
}

/** A store whose records' first creates were applied, their answers lost. */
async function unconfirmedStore(names: string[], extra: Partial<RestProxyConfig> = {}) {
  const env = setUp(extra);
  const store = new Store({ model: Note, pageSize: 0, proxy: env.proxy });
  const records = store.add(names.map((name) => ({ name, note: 'n0' })));
  env.server.losePosts(extra.batchActions === true ? 1 : names.length);
  await expect(store.sync()).rejects.toThrow(BatchError);
  env.fetch.calls.length = 0;
  return { ...env, store, records };
}

function only<T>(items: readonly T[]): T {
  const [item] = items;
  if (item === undefined || items.length !== 1) throw new Error(`expected one item, got ${items.length}`);
  return item;
}

async function batchErrorOf(promise: Promise<unknown>): Promise<BatchError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
  return error;
}

describe('edited since the first try: the create, then an update of the edits', () => {
  it('record.save() resolves with its create (201), the edit saved', async () => {
    const { server, fetch, mine } = await unconfirmedRecord();
    mine.set('name', 'edited');
    const operation = await mine.save();
    expect(operation.action).toBe('create');
    expect(operation.response?.status).toBe(201);
    expect(methods(fetch.calls)).toEqual(['POST /items', 'PUT /items/100']);
    expect(server.rows).toEqual([{ id: 100, name: 'edited', note: 'n0' }]);
    expect(mine.dirty).toBe(false);
  });

  it('the update refused: save() rejects with its error, the create kept and the edit unsaved, ready to send', async () => {
    const { server, mine } = await unconfirmedRecord();
    mine.set('name', 'edited');
    server.refusePuts(500);
    const error = await mine.save().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProxyError);
    expect(error instanceof ProxyError ? error.operation?.action : undefined).toBe('update');
    expect({ phantom: mine.phantom, id: mine.getId(), dirty: mine.dirty }).toEqual({ phantom: false, id: 100, dirty: true });
    server.refusePuts(undefined);
    await mine.save();
    expect(server.rows).toEqual([{ id: 100, name: 'edited', note: 'n0' }]);
  });

  it('store.sync() with pauseOnException: an update that never ran leaves the Batch paused, not complete', async () => {
    const { server, fetch, store, records } = await unconfirmedStore(['a', 'b']);
    for (const record of records) record.set('note', 'edited');
    server.refusePuts(500);
    const { batch } = await batchErrorOf(store.sync({ pauseOnException: true, concurrency: 1 }));
    expect(methods(fetch.calls)).toEqual(['POST /items', 'POST /items', 'PUT /items/100']);
    expect(batch.operations.map((operation) => operation.action)).toEqual(['create', 'create', 'update', 'update']);
    expect({ paused: batch.isPaused, complete: batch.isComplete }).toEqual({ paused: true, complete: false });
  });

  it('beforesync is asked about the update too: a listener refusing updates stops it', async () => {
    const { fetch, store, records } = await unconfirmedStore(['a']);
    only(records).set('name', 'edited');
    const asked: number[] = [];
    store.on('beforesync', ({ update }) => {
      asked.push(update.length);
      return update.length === 0;
    });
    await store.sync();
    expect(asked).toEqual([0, 1]);
    expect(methods(fetch.calls)).toEqual(['POST /items']);
    expect(only(records).dirty).toBe(true);
  });

  it('with etag: the update carries the replayed ETag as If-Match and takes the new one', async () => {
    const { fetch, store, records } = await unconfirmedStore(['a'], { etag: true });
    only(records).set('name', 'edited');
    await store.sync();
    expect(methods(fetch.calls)).toEqual(['POST /items', 'PUT /items/100']);
    expect(fetch.calls[1]?.headers['if-match']).toBe('"100-1"');
    expect(only(records).etag).toBe('"100-2"');
  });

  it('with batchActions: the records created in one POST are updated in one PUT', async () => {
    const { server, fetch, store, records } = await unconfirmedStore(['a', 'b'], { batchActions: true });
    for (const record of records) record.set('note', 'edited');
    await store.sync();
    expect(methods(fetch.calls)).toEqual(['POST /items', 'PUT /items']);
    expect(server.rows.map((row) => row.note)).toEqual(['edited', 'edited']);
    expect(store.hasChanges()).toBe(false);
  });

  it('save() and sync() called together, in either order: one POST, one PUT', async () => {
    for (const order of ['save first', 'sync first']) {
      const { server, fetch, store, records } = await unconfirmedStore(['a']);
      const mine = only(records);
      mine.set('name', 'edited');
      await Promise.all(order === 'save first' ? [mine.save(), store.sync()] : [store.sync(), mine.save()]);
      expect(methods(fetch.calls)).toEqual(['POST /items', 'PUT /items/100']);
      expect(server.rows).toEqual([{ id: 100, name: 'edited', note: 'n0' }]);
    }
  });
});

describe('only what the user edited before the call', () => {
  it('an edit made while the re-sent create travels stays unsaved, as on a first try; an invalid one does not fail the save', async () => {
    const { server, fetch, mine } = await unconfirmedRecord();
    const release = server.hold((call) => call.method === 'POST');
    const saving = mine.save();
    await tick();
    mine.set('name', ''); // the server would refuse it
    release();
    await expect(saving).resolves.toBeDefined();
    expect(methods(fetch.calls)).toEqual(['POST /items']);
    expect(server.rows).toEqual([{ id: 100, name: 'first', note: 'n0' }]);
    expect({ phantom: mine.phantom, dirty: mine.dirty }).toEqual({ phantom: false, dirty: true });
  });

  it('the same in a sync', async () => {
    const { server, fetch, store, records } = await unconfirmedStore(['a']);
    const release = server.hold((call) => call.method === 'POST');
    const syncing = store.sync();
    await tick();
    only(records).set('name', '');
    release();
    await expect(syncing).resolves.toBeDefined();
    expect(methods(fetch.calls)).toEqual(['POST /items']);
  });

  it('destroy() of an edited record: the create confirmed, then destroyed, no update of what it throws away', async () => {
    const { fetch, server, mine } = await unconfirmedRecord();
    mine.set('name', ''); // an update of it would be refused
    await mine.destroy();
    expect(methods(fetch.calls)).toEqual(['POST /items', 'DELETE /items/100']);
    expect(mine.erased).toBe(true);
    expect(server.rows).toEqual([]);
  });

  it('removed while the sync re-sends its create: destroyed by the next sync, never updated', async () => {
    const { server, fetch, store, records } = await unconfirmedStore(['a']);
    const mine = only(records);
    mine.set('name', 'edited');
    const release = server.hold((call) => call.method === 'POST');
    const syncing = store.sync();
    await tick();
    store.remove(mine);
    release();
    await syncing;
    await store.sync();
    expect(methods(fetch.calls)).toEqual(['POST /items', 'DELETE /items/100']);
    expect(server.rows).toEqual([]);
  });

  it('the first try never reached the server (503): the create is sent again as it was (same body), and the edit follows as an update', async () => {
    let first = true;
    const env = setUp({}, (call) => {
      if (call.method !== 'POST' || !first) return undefined;
      first = false;
      return { status: 503, body: { message: 'busy' } };
    });
    const store = new Store({ model: Note, pageSize: 0, proxy: env.proxy });
    const mine = only(store.add({ name: 'first', note: 'n0' }));
    await expect(store.sync()).rejects.toThrow(BatchError);
    mine.set('name', 'edited');
    await store.sync();
    expect(methods(env.fetch.calls)).toEqual(['POST /items', 'POST /items', 'PUT /items/100']);
    expect(env.fetch.calls[1]?.body).toBe(env.fetch.calls[0]?.body);
    expect(mine.dirty).toBe(false);
    expect(env.server.rows).toEqual([{ id: 100, name: 'edited', note: 'n0' }]);
  });
});

describe("a load's copy of the row still saving when the create is confirmed", () => {
  /** The record edited (name), a load's copy of its row edited (note) and saving, its PUT held. */
  async function withCopy() {
    const env = await unconfirmedStore(['first']);
    const mine = only(env.records);
    await env.store.load(); // lists row 100: a copy
    const copy = env.store.getById(100);
    if (copy === undefined || copy === mine) throw new Error('expected a copy');
    copy.set('note', 'copy note');
    mine.set('name', 'mine name');
    // The copy's PUT sends every field: its older name too.
    const releaseCopy = env.server.hold((call) => call.method === 'PUT' && bodyField(call, 'name') === 'first');
    const copySaving = copy.save();
    await tick();
    return { ...env, mine, releaseCopy, copySaving };
  }

  /** The row holds the record's edit and the copy's; the record is clean, nothing is pending. */
  function expectBothEdits(rows: readonly NoteRow[], store: Store<Note>, mine: Note): void {
    expect(rows).toEqual([{ id: 100, name: 'mine name', note: 'copy note' }]);
    expect({ name: mine.get('name'), dirty: mine.dirty, pending: store.hasChanges() }).toEqual({ name: 'mine name', dirty: false, pending: false });
  }

  it("record.save(): the update waits for the copy's, and the server ends with both edits", async () => {
    const { server, store, mine, releaseCopy, copySaving } = await withCopy();
    const saving = mine.save();
    await tick(20);
    releaseCopy();
    await Promise.all([saving, copySaving]);
    expectBothEdits(server.rows, store, mine);
  });

  it("store.sync(): the copy's older write landing last leaves the field unsaved, and the next sync sends it", async () => {
    const { server, store, mine, releaseCopy, copySaving } = await withCopy();
    const syncing = store.sync();
    await tick(20);
    releaseCopy();
    await Promise.all([syncing, copySaving]);
    await store.sync();
    expectBothEdits(server.rows, store, mine);
  });

  it('the copy saved while the sync re-sends the create: the same', async () => {
    const { server, store, records } = await unconfirmedStore(['first']);
    const mine = only(records);
    await store.load();
    const copy = store.getById(100);
    if (copy === undefined || copy === mine) throw new Error('expected a copy');
    mine.set('name', 'mine name');
    const releasePost = server.hold((call) => call.method === 'POST');
    const syncing = store.sync();
    await tick();
    copy.set('note', 'copy note');
    const releaseCopy = server.hold((call) => call.method === 'PUT' && bodyField(call, 'name') === 'first');
    const copySaving = copy.save();
    await tick();
    releasePost();
    await tick(20);
    releaseCopy();
    await Promise.all([syncing, copySaving]);
    await store.sync();
    expectBothEdits(server.rows, store, mine);
  });
});
