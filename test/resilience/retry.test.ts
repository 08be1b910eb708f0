/**
 * Retries of the AjaxProxy against the fault-injecting test server: which requests are retried
 * (idempotent verbs, on network errors, timeouts and the listed statuses), how long it waits
 * (exponential backoff with jitter, Retry-After honoured but bounded), and that it always ends.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, ProxyError, RestProxy, Store, type ProxyRetryEvent } from '../../src/index.js';
import { retryDelay, normalizeRetry } from '../../src/http/retry.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { defineItem, itemProxy, proxyErrorOf, rejectionOf, requestLines, requestsOf, rowsOf, type ItemData } from './helpers.js';

const SEED: ItemData[] = [
  { id: 1, uid: 'u1', name: 'one', rev: 0 },
  { id: 2, uid: 'u2', name: 'two', rev: 0 },
  { id: 3, uid: 'u3', name: 'three', rev: 0 },
];

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: SEED.map((row) => ({ ...row })) } });
});

afterEach(async () => {
  await server.close();
});

/** Records every retry event of a proxy. */
function retriesOf(proxy: RestProxy): ProxyRetryEvent[] {
  const events: ProxyRetryEvent[] = [];
  proxy.on('retry', (event) => {
    events.push(event);
  });
  return events;
}

describe('idempotent requests are retried', () => {
  it('a GET answered 503 twice is retried and the load succeeds', async () => {
    const proxy = itemProxy(server);
    const retries = retriesOf(proxy);
    const Item = defineItem(proxy);
    const store = new Store({ model: Item, pageSize: 0 });
    server.inject({ type: 'status', status: 503, times: 2, match: { method: 'GET' } });

    const records = await store.load();

    expect(records.map((record) => record.get('name'))).toEqual(['one', 'two', 'three']);
    expect(requestsOf(server, 'GET')).toHaveLength(3);
    expect(retries.map((event) => [event.attempt, event.reason])).toEqual([[1, 503], [2, 503]]);
    for (const event of retries) expect(event.delay).toBeLessThanOrEqual(50);
  });

  it('a PUT whose connection is reset is retried; the edit is saved once and the record is clean', async () => {
    const proxy = itemProxy(server);
    const retries = retriesOf(proxy);
    const Item = defineItem(proxy);
    const item = await Item.load(2);
    item.set('name', 'TWO');
    server.inject({ type: 'reset-before', match: { method: 'PUT' } });

    await item.save();

    expect(requestLines(server).filter((line) => line.startsWith('PUT'))).toEqual(['PUT /items/2', 'PUT /items/2']);
    expect(retries.map((event) => event.reason)).toEqual(['network']);
    expect(item.dirty).toBe(false);
    expect(server.db['items']?.find((row) => row['id'] === 2)).toMatchObject({ name: 'TWO' });
  });

  it.each([408, 429, 500, 502, 503, 504])('a DELETE answered %i is retried', async (status) => {
    const proxy = itemProxy(server);
    const retries = retriesOf(proxy);
    const Item = defineItem(proxy);
    const item = await Item.load(3);
    server.inject({ type: 'status', status, match: { method: 'DELETE' } });

    await item.destroy();

    expect(requestsOf(server, 'DELETE', '/items/3')).toHaveLength(2);
    expect(retries.map((event) => event.reason)).toEqual([status]);
    expect(item.erased).toBe(true);
    expect(rowsOf(server).map((row) => row['id'])).toEqual([1, 2]);
  });

  it('a request that times out (the server stalls) is retried with reason "timeout"', async () => {
    // Only the stalled try times out, however busy the machine: see idempotency.test.ts.
    const proxy = itemProxy(server, { timeout: 1_500 });
    const retries = retriesOf(proxy);
    const Item = defineItem(proxy);
    server.inject({ type: 'stall', ms: 10_000, match: { method: 'GET' } });

    const item = await Item.load(1);

    expect(item.get('name')).toBe('one');
    expect(requestsOf(server, 'GET')).toHaveLength(2);
    expect(retries.map((event) => event.reason)).toEqual(['timeout']);
  });

  it('a store sync retries its PUTs and DELETEs and the server ends equal to the client', async () => {
    const proxy = itemProxy(server);
    const Item = defineItem(proxy);
    const store = new Store({ model: Item, pageSize: 0 });
    await store.load();
    store.getById(1)?.set('name', 'ONE');
    const two = store.getById(2);
    if (two) store.remove(two);
    server.reset();
    server.inject({ type: 'status', status: 502, match: { method: 'PUT' } });
    server.inject({ type: 'reset-before', match: { method: 'DELETE' } });

    const batch = await store.sync();

    expect(batch.hasException()).toBe(false);
    expect(requestLines(server).sort()).toEqual(['DELETE /items/2', 'DELETE /items/2', 'PUT /items/1', 'PUT /items/1']);
    expect(rowsOf(server).map((row) => [row['id'], row['name']])).toEqual([[1, 'ONE'], [3, 'three']]);
    expect(store.hasChanges()).toBe(false);
  });
});

describe('the server applied the request but its answer was lost', () => {
  it('a PUT is retried and applied the same way again: the record is clean', async () => {
    const proxy = itemProxy(server);
    const Item = defineItem(proxy);
    const item = await Item.load(1);
    item.set('name', 'ONE');
    server.inject({ type: 'reset-after', match: { method: 'PUT' } });

    await item.save();

    expect(requestsOf(server, 'PUT')).toHaveLength(2);
    expect(item.dirty).toBe(false);
    expect(server.db['items']?.find((row) => row['id'] === 1)?.['name']).toBe('ONE');
  });

  // BUG: the retried DELETE finds the row already gone and gets 404; the destroy fails with
  // kind 'http' and the record stays "removed" in the store, so every later sync sends the
  // DELETE again and fails again: the sync never succeeds.
  it('a DELETE is retried; the 404 of the retry means "already gone": the destroy succeeds', async () => {
    const proxy = itemProxy(server);
    const Item = defineItem(proxy);
    const store = new Store({ model: Item, pageSize: 0 });
    await store.load();
    const two = store.getById(2);
    if (two) store.remove(two);
    server.reset();
    server.inject({ type: 'reset-after', match: { method: 'DELETE' } });

    const outcome = await store.sync().then(
      () => 'resolved',
      (error: unknown) => (error instanceof BatchError ? error.errors.map((e) => e.message).join('; ') : String(error)),
    );

    expect(rowsOf(server).map((row) => row['id'])).toEqual([1, 3]);
    expect(requestLines(server)).toEqual(['DELETE /items/2', 'DELETE /items/2']);
    expect(outcome).toBe('resolved');
    expect(store.getRemovedRecords()).toEqual([]);
    expect(two?.erased).toBe(true);
  });
});

describe('what is not retried', () => {
  it('a POST without idempotencyKey answered 503 is tried once; the record stays new', async () => {
    const proxy = itemProxy(server);
    const retries = retriesOf(proxy);
    const Item = defineItem(proxy);
    const item = new Item({ uid: 'n1', name: 'new', rev: 0 });
    server.inject({ type: 'status', status: 503, match: { method: 'POST' } });

    const error = await proxyErrorOf(item.save());

    expect(error.kind).toBe('http');
    expect(error.status).toBe(503);
    expect(error.message).toBe(`POST ${server.url}/items failed: 503 Service Unavailable: Injected 503`);
    expect(requestsOf(server, 'POST')).toHaveLength(1);
    expect(retries).toHaveLength(0);
    expect(item.phantom).toBe(true);
    expect(item.get('name')).toBe('new');
    expect(rowsOf(server)).toHaveLength(3);
  });

  it('a POST without idempotencyKey whose answer is lost is not retried (it could create twice)', async () => {
    const proxy = itemProxy(server);
    const Item = defineItem(proxy);
    const item = new Item({ uid: 'n2', name: 'new', rev: 0 });
    server.inject({ type: 'reset-after', match: { method: 'POST' } });

    const error = await proxyErrorOf(item.save());

    expect(error.kind).toBe('network');
    expect(error.message).toContain(`POST ${server.url}/items failed: network error`);
    expect(requestsOf(server, 'POST')).toHaveLength(1);
    expect(rowsOf(server).filter((row) => row['uid'] === 'n2')).toHaveLength(1);
    expect(item.phantom).toBe(true);
  });

  it.each([400, 401, 403, 404, 409, 412, 422])('a %i is not retried', async (status) => {
    const proxy = itemProxy(server);
    const retries = retriesOf(proxy);
    const Item = defineItem(proxy);
    server.inject({ type: 'status', status, match: { method: 'GET' } });

    const error = await proxyErrorOf(Item.load(1));

    expect(error.status).toBe(status);
    expect(requestsOf(server, 'GET')).toHaveLength(1);
    expect(retries).toHaveLength(0);
  });

  it('retry: 0 turns retries off; retry: 1 allows one retry', async () => {
    const off = itemProxy(server, { retry: 0 });
    server.inject({ type: 'status', status: 503, times: 5, match: { method: 'GET' } });
    await proxyErrorOf(defineItem(off).load(1));
    expect(requestsOf(server, 'GET')).toHaveLength(1);

    server.reset();
    const one = itemProxy(server, { retry: 1 });
    expect(one.retry.limit).toBe(1);
    server.inject({ type: 'status', status: 503, times: 5, match: { method: 'GET' } });
    // retry: 1 keeps the default delay (300 ms): one wait of 150..300 ms.
    await proxyErrorOf(defineItem(one).load(1));
    expect(requestsOf(server, 'GET')).toHaveLength(2);
  });

  it('methods and statusCodes narrow what is retried', async () => {
    const proxy = itemProxy(server, { retry: { limit: 3, delay: 5, backoffLimit: 50, methods: ['GET'], statusCodes: [418] } });
    const Item = defineItem(proxy);

    server.inject({ type: 'status', status: 503, match: { method: 'GET' } });
    await proxyErrorOf(Item.load(1));
    expect(requestsOf(server, 'GET')).toHaveLength(1);

    server.reset();
    server.inject({ type: 'status', status: 418, times: 2, match: { method: 'GET' } });
    const item = await Item.load(1);
    expect(requestsOf(server, 'GET')).toHaveLength(3);

    server.reset();
    item.set('name', 'ONE');
    server.inject({ type: 'status', status: 418, match: { method: 'PUT' } });
    const error = await proxyErrorOf(item.save());
    expect(error.status).toBe(418);
    expect(requestsOf(server, 'PUT')).toHaveLength(1);
    expect(item.dirty).toBe(true);
  });

  it('rejects retry options that make no sense, naming the option', () => {
    expect(() => new RestProxy({ url: 'http://x/items', retry: -1 })).toThrow(TypeError);
    expect(() => new RestProxy({ url: 'http://x/items', retry: -1 })).toThrow(/retry/);
    expect(() => new RestProxy({ url: 'http://x/items', retry: { limit: -2 } })).toThrow(/retry/);
    expect(() => new RestProxy({ url: 'http://x/items', retry: { delay: Number.POSITIVE_INFINITY } })).toThrow(/retry/);
    expect(() => new RestProxy({ url: 'http://x/items', retry: { statusCodes: [503.5] } })).toThrow(/retry/);
    const unknownKey: Record<string, unknown> = { tries: 3 };
    expect(() => new RestProxy({ url: 'http://x/items', retry: unknownKey })).toThrow(/retry/);
  });
});

describe('it always ends', () => {
  it('a server that always answers 503 ends after limit + 1 tries with a clear error', async () => {
    const proxy = itemProxy(server);
    const retries = retriesOf(proxy);
    const Item = defineItem(proxy);
    const store = new Store({ model: Item, pageSize: 0 });
    server.inject({ type: 'status', status: 503, times: Number.POSITIVE_INFINITY });
    const started = performance.now();

    const error = await proxyErrorOf(store.load());

    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error.kind).toBe('http');
    expect(error.status).toBe(503);
    expect(error.message).toBe(`GET ${server.url}/items failed: 503 Service Unavailable: Injected 503 (after 4 tries)`);
    expect(requestsOf(server, 'GET')).toHaveLength(4);
    expect(retries.map((event) => event.attempt)).toEqual([1, 2, 3]);
    expect(store.getCount()).toBe(0);
  });

  it('a server that always resets ends after limit + 1 tries with kind "network"', async () => {
    const proxy = itemProxy(server);
    const Item = defineItem(proxy);
    const item = await Item.load(1);
    item.set('name', 'ONE');
    server.reset();
    server.inject({ type: 'reset-before', times: Number.POSITIVE_INFINITY });

    const error = await proxyErrorOf(item.save());

    expect(error.kind).toBe('network');
    expect(error.status).toBe(0);
    expect(error.message).toContain(`PUT ${server.url}/items/1 failed: network error`);
    expect(error.message).toContain('the records are as they were');
    expect(requestsOf(server, 'PUT')).toHaveLength(4);
    expect(item.dirty).toBe(true);
    expect(item.get('name')).toBe('ONE');
    expect(item.modified).toEqual({ name: 'one' });
  });

  it('a sync against a server that always answers 503 rejects with a BatchError and keeps every change', async () => {
    const proxy = itemProxy(server, { idempotencyKey: true });
    const Item = defineItem(proxy);
    const store = new Store({ model: Item, pageSize: 0 });
    await store.load();
    store.add({ uid: 'n3', name: 'new', rev: 0 });
    store.getById(1)?.set('name', 'ONE');
    const three = store.getById(3);
    if (three) store.remove(three);
    server.reset();
    server.inject({ type: 'status', status: 503, times: Number.POSITIVE_INFINITY });

    const error = await rejectionOf(store.sync());

    expect(error).toBeInstanceOf(BatchError);
    const kinds = error instanceof BatchError ? error.errors.map((e) => [e.kind, e.status]) : [];
    expect(kinds).toEqual([['http', 503], ['http', 503], ['http', 503]]);
    expect(server.requests).toHaveLength(12);
    expect(store.getNewRecords()).toHaveLength(1);
    expect(store.getUpdatedRecords().map((record) => record.getId())).toEqual([1]);
    expect(store.getRemovedRecords().map((record) => record.getId())).toEqual([3]);
    expect(rowsOf(server)).toEqual(SEED);
  });
});

describe('how long it waits', () => {
  it('honours Retry-After in seconds', async () => {
    const proxy = itemProxy(server, { retry: { limit: 2, delay: 5, backoffLimit: 5_000 } });
    const retries = retriesOf(proxy);
    server.inject({ type: 'status', status: 503, headers: { 'Retry-After': '1' }, match: { method: 'GET' } });
    const started = performance.now();

    await defineItem(proxy).load(1);

    expect(retries.map((event) => event.delay)).toEqual([1_000]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const proxy = itemProxy(server, { retry: { limit: 2, delay: 5, backoffLimit: 5_000 } });
    const retries = retriesOf(proxy);
    const when = new Date(Date.now() + 2_000).toUTCString();
    server.inject({ type: 'status', status: 429, headers: { 'Retry-After': when }, match: { method: 'GET' } });

    await defineItem(proxy).load(1);

    expect(retries).toHaveLength(1);
    expect(retries[0]?.reason).toBe(429);
    // An HTTP date has whole seconds: 1..2 s from now.
    expect(retries[0]?.delay).toBeGreaterThan(900);
    expect(retries[0]?.delay).toBeLessThanOrEqual(2_000);
  });

  it.each([
    ['negative', '-5'],
    ['years away in seconds', '999999999'],
    ['a date years away', 'Fri, 01 Jan 2100 00:00:00 GMT'],
    ['a date in the past', 'Thu, 01 Jan 1970 00:00:00 GMT'],
    ['not a number', 'soon'],
    ['an exponent', '1e9'],
    ['Infinity', 'Infinity'],
    ['NaN', 'NaN'],
    ['empty', ''],
  ])('bounds an absurd Retry-After (%s) to [0, backoffLimit]', async (_label, value) => {
    const proxy = itemProxy(server, { retry: { limit: 3, delay: 5, backoffLimit: 50 } });
    const retries = retriesOf(proxy);
    server.inject({ type: 'status', status: 503, times: 3, headers: { 'Retry-After': value }, match: { method: 'GET' } });
    const started = performance.now();

    const item = await defineItem(proxy).load(2);

    expect(item.get('name')).toBe('two');
    expect(retries).toHaveLength(3);
    for (const event of retries) {
      expect(event.delay).toBeGreaterThanOrEqual(0);
      expect(event.delay).toBeLessThanOrEqual(50);
    }
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('waits with exponential backoff and jitter, never above backoffLimit', () => {
    const retry = normalizeRetry({ delay: 100, backoffLimit: 500 });
    for (let round = 0; round < 200; round++) {
      const waits = [1, 2, 3, 4, 5].map((attempt) => retryDelay(retry, attempt, null));
      expect(waits[0]).toBeGreaterThanOrEqual(50);
      expect(waits[0]).toBeLessThanOrEqual(100);
      expect(waits[1]).toBeGreaterThanOrEqual(100);
      expect(waits[1]).toBeLessThanOrEqual(200);
      expect(waits[2]).toBeGreaterThanOrEqual(200);
      expect(waits[2]).toBeLessThanOrEqual(400);
      expect(waits[3]).toBeLessThanOrEqual(500);
      expect(waits[4]).toBeLessThanOrEqual(500);
    }
    const distinct = new Set(Array.from({ length: 50 }, () => retryDelay(retry, 2, null)));
    expect(distinct.size).toBeGreaterThan(10);
  });

  it('retryDelay: Retry-After as seconds or a date, clamped; garbage falls back to backoff', () => {
    const retry = normalizeRetry({ delay: 100, backoffLimit: 10_000 });
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(retryDelay(retry, 1, '3', now)).toBe(3_000);
    expect(retryDelay(retry, 1, '0', now)).toBe(0);
    expect(retryDelay(retry, 1, '-1', now)).toBe(0);
    expect(retryDelay(retry, 1, '86400', now)).toBe(10_000);
    expect(retryDelay(retry, 1, new Date(now + 4_000).toUTCString(), now)).toBe(4_000);
    expect(retryDelay(retry, 1, new Date(now - 4_000).toUTCString(), now)).toBe(0);
    expect(retryDelay(retry, 1, 'Fri, 01 Jan 2100 00:00:00 GMT', now)).toBe(10_000);
    for (const garbage of ['soon', 'NaN', '', '   ', 'Infinity']) {
      const wait = retryDelay(retry, 1, garbage, now);
      expect(wait).toBeGreaterThanOrEqual(50);
      expect(wait).toBeLessThanOrEqual(100);
    }
  });

  it('an abort while waiting to retry ends at once with kind "abort" and sends nothing more', async () => {
    const proxy = itemProxy(server, { retry: { limit: 3, delay: 5, backoffLimit: 60_000 } });
    const Item = defineItem(proxy);
    const item = await Item.load(1);
    item.set('name', 'ONE');
    server.reset();
    server.inject({ type: 'status', status: 503, headers: { 'Retry-After': '30' }, match: { method: 'PUT' } });
    const controller = new AbortController();
    const retried = new Promise<void>((resolve) => proxy.on('retry', () => resolve()));
    const saving = item.save({ signal: controller.signal });
    await retried;
    const started = performance.now();
    controller.abort();

    const error = await proxyErrorOf(saving);

    expect(performance.now() - started).toBeLessThan(500);
    expect(error.kind).toBe('abort');
    expect(requestsOf(server, 'PUT')).toHaveLength(1);
    expect(item.dirty).toBe(true);
    expect(item.get('name')).toBe('ONE');
    expect(server.db['items']?.find((row) => row['id'] === 1)?.['name']).toBe('one');
  });
});

describe('error values', () => {
  it('is a ProxyError with the operation and request', async () => {
    const proxy = itemProxy(server, { retry: 0 });
    server.inject({ type: 'status', status: 500, match: { method: 'GET' } });
    const error = await proxyErrorOf(defineItem(proxy).load(1));
    expect(error).toBeInstanceOf(ProxyError);
    expect(error.operation?.action).toBe('read');
    expect(error.request?.method).toBe('GET');
    expect(error.message).toBe(`GET ${server.url}/items/1 failed: 500 Internal Server Error: Injected 500`);
  });
});
