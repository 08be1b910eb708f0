/**
 * What a stored intent carries (issue 28), with the Item model on the test server: a replayed
 * update sends every field where the writer does (PUT replaces the row), and a create's
 * idempotency key is the record's from the moment its entry is stored (close(), then a direct
 * save, then a reopen: created once).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/index.js';
import type { Outbox } from '../../src/offline.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { attached, closeAll, opened, proxyErrorOf, ReopenableStorage, requestsOf, rowsOf } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [{ id: 1, uid: 'a', name: 'ann', rev: 3 }] } });
});

afterEach(async () => {
  await closeAll();
  await server.close();
});

/** The first page's outbox closed (a reload): its entries stay stored. */
async function reload(outbox: Outbox): Promise<void> {
  await outbox.close();
  opened.splice(opened.indexOf(outbox), 1);
}

describe('a replayed update, where the writer sends every field', () => {
  it('is sent after a reload with every field (a PUT replaces the row: no column wiped)', async () => {
    const storage = new ReopenableStorage();
    const first = await attached(server, { storage });
    const store = new Store({ model: first.Item, pageSize: 0 });
    await store.load();
    server.inject({ type: 'reset-before', times: 100 });
    store.getById(1)!.set('name', 'ANN');
    expect(await proxyErrorOf(store.getById(1)!.save())).toMatchObject({ kind: 'network', queued: true });
    await reload(first.outbox);
    server.reset();
    const second = await attached(server, { storage });
    await second.outbox.flush();
    expect(second.outbox.failed).toEqual([]);
    expect(requestsOf(server, 'PUT').map((request) => request.json)).toEqual([{ uid: 'a', name: 'ANN', rev: 3, id: 1 }]);
    expect(rowsOf(server)).toEqual([expect.objectContaining({ id: 1, uid: 'a', name: 'ANN', rev: 3 })]);
  });

  it('with PATCH, only the changed field is stored and sent', async () => {
    const storage = new ReopenableStorage();
    const proxy = { actionMethods: { update: 'PATCH' } } as const;
    const first = await attached(server, { storage, proxy });
    const store = new Store({ model: first.Item, pageSize: 0 });
    await store.load();
    server.inject({ type: 'reset-before', times: 100 });
    store.getById(1)!.set('name', 'ANN');
    await proxyErrorOf(store.getById(1)!.save());
    await reload(first.outbox);
    server.reset();
    const second = await attached(server, { storage, proxy });
    await second.outbox.flush();
    expect(requestsOf(server, 'PATCH').map((request) => request.json)).toEqual([{ name: 'ANN', id: 1 }]);
    expect(rowsOf(server)).toEqual([expect.objectContaining({ id: 1, uid: 'a', name: 'ANN', rev: 3 })]);
  });
});

describe("a create's idempotency key", () => {
  it('reaches the record when its entry is stored: close(), a direct save, a reopen: created once', async () => {
    const storage = new ReopenableStorage();
    const first = await attached(server, { storage });
    server.inject({ type: 'reset-before', times: 100 });
    // The first save is the probe (refused); the second is stored, never attempted.
    await proxyErrorOf(new first.Item({ uid: 'p', name: 'probe', rev: 0 }).save());
    const bob = new first.Item({ uid: 'b', name: 'bob', rev: 0 });
    void bob.save().catch(() => undefined);
    await reload(first.outbox);
    server.reset();
    await bob.save(); // the model is detached: through its proxy
    const second = await attached(server, { storage });
    await second.outbox.flush();
    expect(second.outbox.failed).toEqual([]);
    expect(rowsOf(server).filter((row) => row['uid'] === 'b')).toHaveLength(1);
    const keys = requestsOf(server, 'POST').filter((request) => JSON.stringify(request.json).includes('"bob"')).map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });
});
