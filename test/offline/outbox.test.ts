/**
 * The outbox's write path against a real server on 127.0.0.1: durable before the first attempt,
 * counted at once, settled on the server's answer, coalescing, restore after a reload.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Model, ProxyError, Store } from '../../src/index.js';
import { MemoryStorage, Outbox, OutboxError } from '../../src/offline.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { attached, closeAll, outboxProxy, proxyErrorOf, rejectionOf, ReopenableStorage, requestLines, requestsOf, rowsOf } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [{ id: 1, uid: 'a', name: 'ann', rev: 0 }] } });
});

afterEach(async () => {
  await closeAll();
  await server.close();
});

describe('the write path', () => {
  it('stores a save before its first attempt, counts it in the same run, and settles on the answer', async () => {
    const storage = new MemoryStorage();
    const { Item, outbox } = await attached(server, { storage });
    const record = new Item({ uid: 'b', name: 'bob', rev: 0 });
    const storedWhenSent: number[] = [];
    server.respond('POST', '/items', async (req) => {
      storedWhenSent.push((await storage.load()).length);
      return { status: 201, body: { ...JSON.parse(req.body), id: 2 } };
    }, { times: 1 });
    const sent: string[] = [];
    outbox.on('sent', ({ action }) => sent.push(action));
    const saved = record.save();
    expect(outbox.getSnapshot().pending).toBe(1);
    await saved;
    expect(storedWhenSent).toEqual([1]);
    expect(record.getId()).toBe(2);
    expect(record.phantom).toBe(false);
    expect(sent).toEqual(['create']);
    expect(await storage.load()).toEqual([]);
    expect(outbox.getSnapshot()).toMatchObject({ pending: 0, sending: 0, failed: 0, paused: false, oldestPendingAt: null });
  });

  it('sends each attempt once: the proxy does not retry', async () => {
    const { Item } = await attached(server, { proxy: { retry: { limit: 3, delay: 1 } } });
    server.inject({ type: 'status', status: 500, match: { method: 'POST' } });
    const error = await proxyErrorOf(new Item({ uid: 'b', name: 'bob', rev: 0 }).save());
    expect(error.queued).toBe(true);
    expect(requestsOf(server, 'POST')).toHaveLength(1);
  });

  it('routes destroy and a store sync through the outbox', async () => {
    const { Item, outbox } = await attached(server);
    const store = new Store({ model: Item, pageSize: 0 });
    await store.load();
    const ann = store.getAt(0)!;
    ann.set('name', 'ANN');
    store.add({ uid: 'c', name: 'cid', rev: 0 });
    const synced = store.sync();
    expect(outbox.getSnapshot().pending).toBe(2);
    await synced;
    expect(rowsOf(server).map((row) => row['name'])).toEqual(['ANN', 'cid']);
    const destroyed = ann.destroy();
    expect(outbox.getSnapshot().pending).toBe(1);
    await destroyed;
    expect(rowsOf(server).map((row) => row['name'])).toEqual(['cid']);
  });
});

describe('coalescing', () => {
  it('create + updates = one POST with the latest values', async () => {
    const { Item, outbox } = await attached(server);
    const record = new Item({ uid: 'b', name: 'bob', rev: 0 });
    const first = record.save();
    record.set('rev', 1);
    const second = record.save();
    expect(outbox.getSnapshot().pending).toBe(1);
    const [a, b] = await Promise.all([first, second]);
    expect(a).toBe(b);
    expect(requestLines(server)).toEqual(['POST /items']);
    expect(rowsOf(server).find((row) => row['uid'] === 'b')).toMatchObject({ rev: 1 });
  });

  it('create + destroy before sending = nothing, and the destroy resolves without a request', async () => {
    const { Item, outbox } = await attached(server);
    const record = new Item({ uid: 'b', name: 'bob', rev: 0 });
    const saved = record.save();
    await record.destroy();
    await saved;
    await outbox.flush();
    expect(server.requests).toEqual([]);
    expect(record.erased).toBe(true);
    expect(outbox.getSnapshot().pending).toBe(0);
  });

  it('update + update = one PUT (later values win); update + destroy = one DELETE', async () => {
    server.db['items']!.push({ id: 2, uid: 'b', name: 'bob', rev: 0 }, { id: 3, uid: 'c', name: 'cid', rev: 0 });
    const { Item, outbox } = await attached(server);
    // A 401 pauses the outbox: the writes after it wait, and coalesce.
    server.respond('PUT', '/items/1', { status: 401, body: {} }, { times: 1 });
    const ann = new Item({ id: 1, uid: 'a', name: 'ann', rev: 0 });
    ann.set('rev', 1);
    expect(await proxyErrorOf(ann.save())).toMatchObject({ status: 401, queued: true });
    expect(outbox.getSnapshot().paused).toBe('auth');
    const bob = new Item({ id: 2, uid: 'b', name: 'bob', rev: 0 });
    bob.set('name', 'x');
    const one = bob.save().catch((error: unknown) => error);
    bob.set('name', 'y');
    const two = bob.save().catch((error: unknown) => error);
    const cid = new Item({ id: 3, uid: 'c', name: 'cid', rev: 0 });
    cid.set('name', 'z');
    const three = cid.save().catch((error: unknown) => error);
    const four = cid.destroy().catch((error: unknown) => error);
    expect(outbox.getSnapshot().pending).toBe(3);
    // Not attempted while paused: they settle on their own answers, once resumed.
    outbox.resume();
    await outbox.flush();
    await Promise.all([one, two, three, four]);
    expect(requestLines(server)).toEqual(['PUT /items/1', 'PUT /items/1', 'PUT /items/2', 'DELETE /items/3']);
    expect(rowsOf(server)).toMatchObject([{ id: 1, rev: 1 }, { id: 2, name: 'y' }]);
    expect(cid.erased).toBe(true);
  });
});

describe('reload', () => {
  it('a new outbox over the same storage sends a create that may have been applied again with the same key, once', async () => {
    const storage = new ReopenableStorage();
    const first = await attached(server, { storage });
    server.inject({ type: 'reset-after', match: { method: 'POST' } });
    const error = await proxyErrorOf(new first.Item({ uid: 'b', name: 'bob', rev: 0 }).save());
    expect(error).toMatchObject({ kind: 'network', queued: true });
    expect(first.outbox.getSnapshot().paused).toBe('offline');
    await first.outbox.close();
    const second = await attached(server, { storage });
    await second.outbox.flush();
    const posts = requestsOf(server, 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    expect(rowsOf(server).filter((row) => row['uid'] === 'b')).toHaveLength(1);
    expect(await storage.load()).toEqual([]);
  });
});

describe('reload after edits', () => {
  it('a create that may have been applied, edited since, is sent again as it was first sent; the edits follow in an update', async () => {
    const storage = new ReopenableStorage();
    const first = await attached(server, { storage });
    server.inject({ type: 'reset-after', match: { method: 'POST' } });
    const record = new first.Item({ uid: 'b', name: 'bob', rev: 0 });
    await proxyErrorOf(record.save());
    record.set('name', 'BOB');
    void record.save().catch(() => undefined); // not attempted while offline: pending
    expect(first.outbox.getSnapshot().pending).toBe(2);
    await first.outbox.close();
    const second = await attached(server, { storage });
    await second.outbox.flush();
    expect(second.outbox.failed).toEqual([]);
    const posts = requestsOf(server, 'POST');
    expect(posts.map((post) => post.json)).toEqual([posts[0]!.json, posts[0]!.json]);
    expect(rowsOf(server).filter((row) => row['uid'] === 'b')).toMatchObject([{ name: 'BOB' }]);
    expect(requestLines(server).at(-1)).toMatch(/^PUT \/items\/\d+$/);
  });
});

describe('bad input', () => {
  it('refuses at construction, naming the problem', async () => {
    const { Item } = await attached(server);
    const storage = new MemoryStorage();
    const fresh = () => class extends Item {};
    expect(() => new Outbox({ name: 'other', storage, models: [Item] })).toThrow(/items is already attached to the outbox "test"/);
    expect(() => new Outbox({ name: 'test', storage, models: [fresh()] })).toThrow(/an outbox named "test" is already open/);
    expect(() => new Outbox({ name: 'x', storage, models: [] })).toThrow(/models must be a non-empty array/);
    expect(() => new Outbox({ name: 'x', storage, models: [fresh()], maxAttempts: 0 })).toThrow(/maxAttempts must be a number >= 1/);
    class NoProxy extends Model<{ id: number }> {
      static override entityName = 'loose';
    }
    expect(() => new Outbox({ name: 'x', storage, models: [NoProxy] })).toThrow(/loose has no proxy/);
    class Batched extends Model<{ id: number }> {
      static override entityName = 'batched';
      static override proxy = outboxProxy(server, { batchActions: true });
    }
    expect(() => new Outbox({ name: 'x', storage, models: [Batched] })).toThrow(/batched's proxy has batchActions/);
    const Twin = fresh();
    Twin.proxy = outboxProxy(server);
    expect(() => new Outbox({ name: 'x', storage, models: [fresh(), Twin] })).toThrow(/two attached models are named "items"/);
    // Nothing of a refused outbox stays attached: the name and the models are free.
    const ok = new Outbox({ name: 'x', storage, models: [fresh()] });
    await ok.close();
    expect(() => new Outbox({ name: 'x', storage: {} as never, models: [fresh()] })).toThrow(/storage must be an OutboxStorage/);
  });

  it('a save of an attached model with no answer yet settles only on the answer; a ProxyError there is a ProxyError', async () => {
    const { Item } = await attached(server);
    server.respond('POST', '/items', { status: 500, body: {} }, { times: 1 });
    const error = await proxyErrorOf(new Item({ uid: 'b', name: 'bob', rev: 0 }).save());
    expect(error).toBeInstanceOf(ProxyError);
    expect(error.mayHaveBeenApplied).toBe(true);
    expect(OutboxError).toBeDefined();
  });
});

describe('restore', () => {
  it('stores of attached models show restored new records after their first load, hide pending destroys, keep pending updates on top', async () => {
    server.db['items']!.push({ id: 2, uid: 'b', name: 'bob', rev: 0 });
    const storage = new ReopenableStorage();
    const before = await attached(server, { storage });
    server.respond('PUT', '/items/1', { status: 401, body: {} }, { times: 1 });
    const ann = new before.Item({ id: 1, uid: 'a', name: 'ann', rev: 0 });
    ann.set('name', 'ANN');
    await proxyErrorOf(ann.save());
    // Not attempted while paused: their saves stay pending (their entries are stored at once).
    void new before.Item({ uid: 'c', name: 'cid', rev: 0 }).save().catch(() => undefined);
    void new before.Item({ id: 2, uid: 'b', name: 'bob', rev: 0 }).destroy().catch(() => undefined);
    expect(before.outbox.getSnapshot()).toMatchObject({ pending: 3, paused: 'auth' });
    await before.outbox.close();

    // The reload: new classes, a new outbox over the same storage; the server refuses the first write again.
    server.respond('PUT', '/items/1', { status: 401, body: {} }, { times: 1 });
    const after = await attached(server, { storage, concurrency: 1 });
    await after.outbox.flush();
    expect(after.outbox.getSnapshot()).toMatchObject({ pending: 3, paused: 'auth' });
    const store = new Store({ model: after.Item, pageSize: 0 });
    await store.load();
    const names = store.getRange().map((record) => [record.get('name'), record.phantom, record.dirty]).sort();
    expect(names).toEqual([['ANN', false, true], ['cid', true, true]]);
    after.outbox.resume();
    await after.outbox.flush();
    expect(rowsOf(server).map((row) => row['name'])).toEqual(['ANN', 'cid']);
    expect(store.getRange().every((record) => !record.dirty)).toBe(true);
  });
});

describe('more of the write path', () => {
  it('a sync that meets a kept failure rejects with a BatchError of queued errors; the outbox sends it later', async () => {
    const { Item, outbox } = await attached(server);
    const store = new Store({ model: Item, pageSize: 0 });
    await store.load();
    store.add({ uid: 'b', name: 'bob', rev: 0 });
    server.inject({ type: 'status', status: 500, match: { method: 'POST' } });
    const error = await rejectionOf(store.sync());
    expect(error).toBeInstanceOf(BatchError);
    expect((error as BatchError).errors.map((one) => one.queued)).toEqual([true]);
    expect(store.getNewRecords()).toHaveLength(1);
    // Nothing failed: it backs off.
    expect(outbox.getSnapshot()).toMatchObject({ pending: 1, failed: 0 });
  });

  it('a create that may have been applied is never cancelled: a destroy waits for it, sent again under its key', async () => {
    const { Item, outbox } = await attached(server);
    server.inject({ type: 'reset-after', match: { method: 'POST' } });
    const record = new Item({ uid: 'b', name: 'bob', rev: 0 });
    await proxyErrorOf(record.save());
    const destroyed = record.destroy().catch((error: unknown) => error);
    await outbox.flush();
    await destroyed;
    const posts = requestsOf(server, 'POST');
    expect(requestLines(server)).toEqual(['POST /items', 'POST /items', `DELETE /items/${String(record.getId())}`]);
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    expect(rowsOf(server).map((row) => row['uid'])).toEqual(['a']);
    expect(record.erased).toBe(true);
  });

  it('the snapshot is the same object until something changes; subscribers hear of each change', async () => {
    const { Item, outbox } = await attached(server);
    const first = outbox.getSnapshot();
    expect(outbox.getSnapshot()).toBe(first);
    const told: number[] = [];
    const stop = outbox.subscribe(() => told.push(outbox.getSnapshot().pending));
    const saved = new Item({ uid: 'b', name: 'bob', rev: 0 }).save();
    expect(outbox.getSnapshot()).not.toBe(first);
    expect(outbox.getSnapshot().oldestPendingAt).toBeTypeOf('number');
    await saved;
    await outbox.flush();
    stop();
    expect(told[0]).toBe(0);
    expect(told).toContain(1);
    expect(told.at(-1)).toBe(0);
  });
});

describe('the rest of the surface', () => {
  it('requestPersistence() is false where the browser cannot keep the storage (Node); close() frees the name and the models', async () => {
    const { Item, outbox } = await attached(server);
    expect(await outbox.requestPersistence()).toBe(false);
    await outbox.close();
    // Detached: its writes go straight to the proxy again.
    const record = new Item({ uid: 'b', name: 'bob', rev: 0 });
    await record.save();
    expect(outbox.getSnapshot().pending).toBe(0);
    expect(record.phantom).toBe(false);
    const again = new Outbox({ name: 'test', storage: new MemoryStorage(), models: [Item] });
    await again.close();
  });

  it('subscribe and getSnapshot work as plain function values', async () => {
    const { Item, outbox } = await attached(server);
    const { subscribe, getSnapshot } = outbox;
    const seen: number[] = [];
    const unsubscribe = subscribe(() => seen.push(getSnapshot().pending));
    server.inject({ type: 'reset-before', match: { method: 'POST' }, times: 100 });
    void new Item({ uid: 'b', name: 'bob', rev: 0 }).save().catch(() => undefined);
    expect(getSnapshot().pending).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toContain(1);
    unsubscribe();
  });
});
