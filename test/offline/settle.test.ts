/**
 * How saves and syncs settle through the outbox (API.md 10, issue 28): a write not yet attempted
 * (the outbox paused, or waiting behind the attempt that paused it) settles on its own answer,
 * never on another entry's error; an attempt that will be retried rejects with `queued: true`,
 * and a sync's BatchError says `queued` too; a load hides a record whose destroy is pending.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { attached, closeAll, proxyErrorOf, rejectionOf, requestsOf, rowsOf } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [{ id: 1, uid: 'a', name: 'ann', rev: 0 }, { id: 2, uid: 'b', name: 'bob', rev: 0 }] } });
});

afterEach(async () => {
  await closeAll();
  await server.close();
});

/** How a promise has settled so far: 'pending', 'saved', or the error's kind. */
function watch(promise: Promise<unknown>): { state: string } {
  const seen = { state: 'pending' };
  promise.then(
    () => (seen.state = 'saved'),
    (error: unknown) => (seen.state = error instanceof Error ? `${error.name} ${String(Reflect.get(error, 'kind'))}` : 'rejected'),
  );
  return seen;
}

describe('a write not yet attempted', () => {
  it("is never told another record's network error: saved while paused, or behind the probe, it settles on its own answer", async () => {
    const { Item, outbox } = await attached(server, { concurrency: 1 });
    server.inject({ type: 'reset-before', match: { method: 'POST' }, times: 2 });
    const first = proxyErrorOf(new Item({ uid: 'c', name: 'cid', rev: 0 }).save());
    const behind = watch(new Item({ uid: 'd', name: 'dan', rev: 0 }).save());
    expect(await first).toMatchObject({ kind: 'network', queued: true });
    const later = watch(new Item({ uid: 'e', name: 'eve', rev: 0 }).save());
    // The probe (the head: the first save's entry) fails again; the others were not attempted.
    await outbox.flush();
    expect(outbox.getSnapshot()).toMatchObject({ paused: 'offline', pending: 3 });
    expect([behind.state, later.state]).toEqual(['pending', 'pending']);
    await outbox.flush();
    expect([behind.state, later.state]).toEqual(['saved', 'saved']);
    expect(rowsOf(server).map((row) => row['uid'])).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(requestsOf(server, 'POST')).toHaveLength(5);
  });
});

describe('a failure that will be retried', () => {
  /** A store's sync of a new record (its POST answered 503) and an edited one (its PUT answered `status`): its rejection. */
  async function syncAnswered(status: number): Promise<unknown> {
    const { Item, outbox } = await attached(server);
    const store = new Store({ model: Item, pageSize: 0 });
    await store.load();
    store.add({ uid: 'c', name: 'cid', rev: 0 });
    store.getById(1)!.set('name', 'ANN');
    server.inject({ type: 'status', status: 503, match: { method: 'POST' } });
    server.inject({ type: 'status', status, match: { method: 'PUT' } });
    const error = await rejectionOf(store.sync());
    await outbox.flush();
    return error;
  }

  it("a store's sync rejects with a BatchError whose queued is true when every failure is kept", async () => {
    const error = await syncAnswered(500);
    expect(error).toBeInstanceOf(BatchError);
    expect(error instanceof BatchError && [error.queued, error.errors.map((one) => one.queued)]).toEqual([true, [true, true]]);
  });

  it('is false when one failure is not kept (failed for good)', async () => {
    const error = await syncAnswered(400);
    expect(error instanceof BatchError && [error.queued, error.errors.map((one) => one.kind)]).toEqual([false, ['http', 'http']]);
  });
});

describe('a pending destroy', () => {
  it('a load (of this store or another) does not list the record whose destroy is pending', async () => {
    const { Item, outbox } = await attached(server);
    const store = new Store({ model: Item, pageSize: 0 });
    await store.load();
    server.respond('DELETE', '/items/1', { status: 401, body: {} }, { times: 1 });
    store.remove(store.getById(1)!);
    expect(await proxyErrorOf(store.sync().catch((error: unknown) => Promise.reject(error instanceof BatchError ? error.errors[0] : error)))).toMatchObject({ status: 401, queued: true });
    expect(outbox.getSnapshot()).toMatchObject({ paused: 'auth', pending: 1 });
    await store.load();
    const other = new Store({ model: Item, pageSize: 0 });
    await other.load();
    expect([store.getRange().map((record) => record.getId()), other.getRange().map((record) => record.getId())]).toEqual([[2], [2]]);
    outbox.resume();
    await outbox.flush();
    expect(rowsOf(server).map((row) => row['id'])).toEqual([2]);
  });
});
