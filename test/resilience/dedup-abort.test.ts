/**
 * Identical concurrent GETs of one proxy share one request, and a caller that aborts stops only
 * its own wait. Every operation takes an AbortSignal; aborting leaves the records as they were.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { defineItem, itemProxy, proxyErrorOf, rejectionOf, requestsOf, rowsOf, sleep, type ItemData } from './helpers.js';

const SEED: ItemData[] = [
  { id: 1, uid: 'u1', name: 'one', rev: 0 },
  { id: 2, uid: 'u2', name: 'two', rev: 0 },
];

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: SEED.map((row) => ({ ...row })) } });
});

afterEach(async () => {
  await server.close();
});

/** Hold the next matching request for `ms` before the server applies and answers it. */
function slow(method: string, ms = 200, times = 1): void {
  server.inject({ type: 'delay', ms, times, match: { method } });
}

describe('identical GETs in flight share one request', () => {
  it('two loads of the same record: one GET, both get the record', async () => {
    const Item = defineItem(itemProxy(server));
    slow('GET');
    const [a, b] = await Promise.all([Item.load(1), Item.load(1)]);
    expect(requestsOf(server, 'GET')).toHaveLength(1);
    expect(a.get('name')).toBe('one');
    expect(b.get('name')).toBe('one');
    expect(a).not.toBe(b);
  });

  it('two stores on one proxy loading the same page: one GET', async () => {
    const proxy = itemProxy(server);
    const Item = defineItem(proxy);
    const first = new Store({ model: Item, pageSize: 0 });
    const second = new Store({ model: Item, pageSize: 0 });
    slow('GET');
    await Promise.all([first.load(), second.load()]);
    expect(requestsOf(server, 'GET')).toHaveLength(1);
    expect(first.getCount()).toBe(2);
    expect(second.getCount()).toBe(2);
    expect(first.getAt(0)).not.toBe(second.getAt(0));
  });

  it('different GETs, and the same GET on two proxies, are not shared', async () => {
    const Item = defineItem(itemProxy(server));
    const Other = defineItem(itemProxy(server));
    slow('GET', 100, 3);
    await Promise.all([Item.load(1), Item.load(2), Other.load(1)]);
    expect(requestsOf(server, 'GET')).toHaveLength(3);
  });

  it('GETs one after the other are not shared (nothing is cached)', async () => {
    const Item = defineItem(itemProxy(server));
    await Item.load(1);
    await Item.load(1);
    expect(requestsOf(server, 'GET')).toHaveLength(2);
  });

  it('writes are never shared', async () => {
    const proxy = itemProxy(server);
    const Item = defineItem(proxy);
    const a = await Item.load(1);
    const b = await Item.load(1);
    a.set('name', 'same');
    b.set('name', 'same');
    slow('PUT', 100, 2);
    await Promise.all([a.save(), b.save()]);
    expect(requestsOf(server, 'PUT')).toHaveLength(2);
  });

  it('a shared GET that is retried is retried once for everyone', async () => {
    const Item = defineItem(itemProxy(server));
    server.inject({ type: 'status', status: 503, match: { method: 'GET' } });
    const [a, b] = await Promise.all([Item.load(2), Item.load(2)]);
    expect(requestsOf(server, 'GET')).toHaveLength(2);
    expect([a.get('name'), b.get('name')]).toEqual(['two', 'two']);
  });

  it('a shared GET that stalls: a caller that timed out retries with a request of its own, not the stalled one', async () => {
    const Item = defineItem(itemProxy(server, { timeout: 400, retry: { limit: 2, delay: 5, backoffLimit: 10 } }));
    server.inject({ type: 'stall', ms: 5_000, match: { method: 'GET' } });
    const first = Item.load(1);
    await sleep(100);
    // Joins the stalled GET, and keeps it alive after the first caller's try timed out.
    const second = Item.load(1);
    const names = await Promise.all([first, second].map((loading) => loading.then((item) => item.get('name'), (error: unknown) => String(error))));
    expect(names).toEqual(['one', 'one']);
    expect(requestsOf(server, 'GET').length).toBeGreaterThan(1);
  });

  it('a shared GET that fails: each caller gets an error of its own, naming its own operation', async () => {
    const proxy = itemProxy(server, { retry: 0 });
    const Item = defineItem(proxy);
    const told: boolean[] = [];
    proxy.on('exception', ({ operation, error }) => told.push(error.operation === operation && operation.error === error));
    server.inject({ type: 'reset-before', match: { method: 'GET' } });
    const [a, b] = await Promise.all([proxyErrorOf(Item.load(1)), proxyErrorOf(Item.load(1))]);
    expect(requestsOf(server, 'GET')).toHaveLength(1);
    expect([a.kind, b.kind]).toEqual(['network', 'network']);
    expect(told).toEqual([true, true]);
    expect(a).not.toBe(b);
  });
});

describe('an aborted write says what it may have left', () => {
  it('a PUT aborted in flight: mayHaveBeenApplied, and the message does not say "nothing was changed" alone', async () => {
    const item = await defineItem(itemProxy(server)).load(1);
    item.set('name', 'changed');
    slow('PUT', 300);
    const controller = new AbortController();
    const saving = item.save({ signal: controller.signal });
    await sleep(50);
    controller.abort();
    const error = await proxyErrorOf(saving);
    expect(error.kind).toBe('abort');
    expect(error.mayHaveBeenApplied).toBe(true);
    expect(error.message).toContain('the server may still have applied it');
    expect(error.message).not.toMatch(/aborted; nothing was changed/);
    expect(item.dirty).toBe(true);
  });
});

describe('a caller aborting a shared GET', () => {
  it('rejects with kind "abort" for that caller only; the other still gets the answer', async () => {
    const Item = defineItem(itemProxy(server));
    slow('GET', 200);
    const controller = new AbortController();
    const aborted = Item.load(1, { signal: controller.signal });
    const kept = Item.load(1);
    await sleep(30);
    controller.abort();

    const error = await proxyErrorOf(aborted);
    const record = await kept;

    expect(error.kind).toBe('abort');
    expect(record.get('name')).toBe('one');
    expect(requestsOf(server, 'GET')).toHaveLength(1);
  });

  it('when every caller aborts, each rejects with kind "abort"', async () => {
    const Item = defineItem(itemProxy(server));
    slow('GET', 300);
    const controller = new AbortController();
    const a = Item.load(1, { signal: controller.signal });
    const b = Item.load(1, { signal: controller.signal });
    await sleep(30);
    controller.abort();
    expect((await proxyErrorOf(a)).kind).toBe('abort');
    expect((await proxyErrorOf(b)).kind).toBe('abort');
  });

  // BUG: the last waiter's abort cancels the shared request, but the entry stays in the
  // in-flight map until its promise settles (a later microtask). An identical GET started right
  // after the abort joins the cancelled request and rejects with kind 'abort' although its
  // caller never aborted.
  it('an identical GET started just after the only caller aborted is not aborted with it', async () => {
    const Item = defineItem(itemProxy(server));
    slow('GET', 200);
    const controller = new AbortController();
    const first = Item.load(1, { signal: controller.signal });
    await sleep(20);
    controller.abort();
    const second = Item.load(1);

    expect((await proxyErrorOf(first)).kind).toBe('abort');
    const outcome = await second.then(
      (record) => record.get('name'),
      (error: unknown) => (error instanceof Error ? `rejected: ${error.message}` : 'rejected'),
    );
    expect(outcome).toBe('one');
  });

  // BUG (same cause): Store.load aborts the load it supersedes before it starts its own GET,
  // which is identical and joins the request just cancelled: the newer load rejects too.
  it('a load that supersedes an identical one in flight succeeds', async () => {
    const Item = defineItem(itemProxy(server));
    const store = new Store({ model: Item, pageSize: 0 });
    slow('GET', 100);
    const older = store.load();
    const newer = store.load();

    const olderError = await proxyErrorOf(older);
    expect(olderError.kind).toBe('abort');
    const outcome = await newer.then(
      (records) => records.length,
      (error: unknown) => (error instanceof Error ? `rejected: ${error.message}` : 'rejected'),
    );
    expect(outcome).toBe(2);
    expect(store.getCount()).toBe(2);
  });
});

describe('every operation takes an AbortSignal; aborting leaves records as they were', () => {
  it('an already aborted signal sends nothing', async () => {
    const Item = defineItem(itemProxy(server));
    const item = new Item({ uid: 'n', name: 'new', rev: 0 });
    const signal = AbortSignal.abort();
    expect((await proxyErrorOf(item.save({ signal }))).kind).toBe('abort');
    expect((await proxyErrorOf(Item.load(1, { signal }))).kind).toBe('abort');
    expect(server.requests).toHaveLength(0);
    expect(item.phantom).toBe(true);
  });

  it('save (update): the record keeps its edits and stays dirty', async () => {
    const Item = defineItem(itemProxy(server));
    const item = await Item.load(1);
    item.set({ name: 'edited', rev: 1 });
    slow('PUT', 300);
    const controller = new AbortController();
    const saving = item.save({ signal: controller.signal });
    await sleep(30);
    controller.abort();

    const error = await proxyErrorOf(saving);

    expect(error.kind).toBe('abort');
    expect(item.dirty).toBe(true);
    expect(item.getChanges()).toEqual({ name: 'edited', rev: 1 });
    expect(item.modified).toEqual({ name: 'one', rev: 0 });
    expect(item.saving).toBe(false);
  });

  it('save (create): the record stays new; saving again with idempotencyKey creates one row', async () => {
    const Item = defineItem(itemProxy(server, { idempotencyKey: true }));
    const item = new Item({ uid: 'ab', name: 'new', rev: 0 });
    slow('POST', 150);
    const controller = new AbortController();
    const saving = item.save({ signal: controller.signal });
    await sleep(30);
    controller.abort();

    expect((await proxyErrorOf(saving)).kind).toBe('abort');
    expect(item.phantom).toBe(true);
    expect(item.getId()).toBeUndefined();
    await sleep(200); // the server applies the aborted POST anyway

    await item.save();

    expect(rowsOf(server).filter((row) => row['uid'] === 'ab')).toHaveLength(1);
    expect(item.getId()).toBe(rowsOf(server).find((row) => row['uid'] === 'ab')?.['id']);
  });

  it('destroy: the record is not erased', async () => {
    const Item = defineItem(itemProxy(server));
    const item = await Item.load(2);
    slow('DELETE', 300);
    const controller = new AbortController();
    const destroying = item.destroy({ signal: controller.signal });
    await sleep(30);
    controller.abort();

    expect((await proxyErrorOf(destroying)).kind).toBe('abort');
    expect(item.erased).toBe(false);
  });

  it('store.load: the records already there stay', async () => {
    const Item = defineItem(itemProxy(server));
    const store = new Store({ model: Item, pageSize: 0 });
    await store.load();
    const before = store.getRange();
    server.db['items']?.push({ id: 3, uid: 'u3', name: 'three', rev: 0 });
    slow('GET', 300);
    const controller = new AbortController();
    const loading = store.load({ signal: controller.signal });
    await sleep(30);
    controller.abort();

    expect((await proxyErrorOf(loading)).kind).toBe('abort');
    expect(store.getRange()).toEqual(before);
    expect(store.loading).toBe(false);
  });

  it('store.sync: every change stays pending, and the next sync sends it', async () => {
    const Item = defineItem(itemProxy(server, { idempotencyKey: true }));
    const store = new Store({ model: Item, pageSize: 0 });
    await store.load();
    store.add({ uid: 'sy', name: 'new', rev: 0 });
    store.getById(1)?.set('name', 'ONE');
    const two = store.getById(2);
    if (two) store.remove(two);
    server.reset();
    server.inject({ type: 'stall', ms: 400, match: { method: 'POST' } });
    const controller = new AbortController();
    const syncing = store.sync({ signal: controller.signal });
    await sleep(50);
    controller.abort();

    const error = await rejectionOf(syncing);

    expect(error).toBeInstanceOf(BatchError);
    const kinds = error instanceof BatchError ? error.errors.map((e) => e.kind) : [];
    expect(kinds.length).toBeGreaterThan(0);
    expect(new Set(kinds)).toEqual(new Set(['abort']));
    expect(store.getNewRecords()).toHaveLength(1);
    expect(store.getUpdatedRecords().map((record) => record.getId())).toEqual([1]);
    expect(store.getRemovedRecords().map((record) => record.getId())).toEqual([2]);
    expect(store.getById(1)?.get('name')).toBe('ONE');

    await store.sync();

    expect(store.hasChanges()).toBe(false);
    expect(rowsOf(server).map((row) => [row['uid'], row['name']])).toEqual([['u1', 'ONE'], ['sy', 'new']]);
  });
});
