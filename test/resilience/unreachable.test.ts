/**
 * A sync against a server that cannot be reached: once a request failed with kind 'network' or
 * 'timeout' (its retries spent), the batch sends nothing more, whatever `pauseOnException` says.
 * The records not sent stay pending, and the BatchError says how many failed and how many were
 * not sent. Against a server that accepts connections and never answers, 500 records would
 * otherwise take 500 / concurrency timeouts.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchError, RestProxy, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { defineItem, itemProxy, rejectionOf, requestsOf, rowsOf } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** A TCP server on 127.0.0.1 that accepts every connection and never answers. */
async function silentServer(): Promise<{ url: string; requests: () => number }> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => count++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}`, requests: () => count };
}

async function testServer(): Promise<TestServer> {
  const server = await startTestServer({ resources: { items: [{ id: 1, uid: 'one', name: 'one', rev: 0 }] } });
  cleanups.push(() => server.close());
  return server;
}

function items(count: number): { uid: string; name: string; rev: number }[] {
  return Array.from({ length: count }, (_, index) => ({ uid: `u${index}`, name: `n${index}`, rev: 0 }));
}

async function batchErrorOf(promise: Promise<unknown>): Promise<BatchError> {
  const error = await rejectionOf(promise);
  if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
  return error;
}

describe('a batch stops at an unreachable server', () => {
  it('a server that never answers: 4 requests (the concurrency) time out, the other 496 records are not sent and stay new', async () => {
    const silent = await silentServer();
    const proxy = new RestProxy({ url: `${silent.url}/items`, timeout: 150, retry: 0 });
    const store = new Store({ model: defineItem(proxy), pageSize: 0 });
    store.add(items(500));
    let failures = 0;
    proxy.on('exception', () => {
      failures++;
    });

    const started = Date.now();
    const error = await batchErrorOf(store.sync());
    const elapsed = Date.now() - started;

    expect(error.message).toMatch(/^4 of 500 operations failed; 496 not sent: /);
    expect(error.errors.map((failure) => failure.kind)).toEqual(['timeout', 'timeout', 'timeout', 'timeout']);
    expect(error.batch.unsent).toHaveLength(496);
    expect({ complete: error.batch.isComplete, paused: error.batch.isPaused }).toEqual({ complete: false, paused: true });
    expect(silent.requests()).toBeLessThanOrEqual(4); // one may be cut before it was written
    // Counted, not timed: the proxy failed 4 times (one wave of the concurrency), not 500 times.
    expect(failures).toBe(4);
    // And it did not wait for the 124 waves of 150 ms timeouts it spared (a loaded machine is slow, not that slow).
    expect(elapsed).toBeLessThan((124 * 150) / 2);
    expect(store.getNewRecords()).toHaveLength(500);
  });

  it('the records not sent are sent by the next sync, each created once; a later action type is not sent either', async () => {
    const server = await testServer();
    const proxy = itemProxy(server, { retry: 0 });
    const store = new Store({ model: defineItem(proxy), pageSize: 0 });
    await store.load();
    // Long enough for the 4 POSTs to reach the server on a busy machine (at 150 ms they timed out
    // before it had seen them), far shorter than the stall.
    proxy.timeout = 1_500;
    store.getById(1)?.set('name', 'ONE');
    store.add(items(40));
    server.inject({ type: 'stall', ms: 10_000, times: 4, match: { method: 'POST' } });

    const error = await batchErrorOf(store.sync({ pauseOnException: false }));
    expect(error.message).toMatch(/^4 of 41 operations failed; 37 not sent: /);
    expect(requestsOf(server, 'POST')).toHaveLength(4);
    expect(requestsOf(server, 'PUT')).toHaveLength(0);
    expect(store.getNewRecords()).toHaveLength(40);
    expect(store.getUpdatedRecords()).toHaveLength(1);

    proxy.timeout = 15_000;
    await store.sync();
    expect(rowsOf(server)).toHaveLength(41);
    expect(new Set(rowsOf(server).map((row) => row['uid'])).size).toBe(41);
    expect(rowsOf(server)[0]).toMatchObject({ id: 1, name: 'ONE' });
    expect(store.hasChanges()).toBe(false);
  });

  it('a refused connection (kind "network") stops it too; an answered failure (500) does not', async () => {
    const closed = await silentServer();
    await cleanups.pop()?.();
    const proxy = new RestProxy({ url: `${closed.url}/items`, retry: 0 });
    const store = new Store({ model: defineItem(proxy), pageSize: 0 });
    store.add(items(20));
    const error = await batchErrorOf(store.sync({ concurrency: 1 }));
    expect(error.message).toMatch(/^1 of 20 operations failed; 19 not sent: /);
    expect(error.errors[0]?.kind).toBe('network');

    const server = await testServer();
    const answered = new Store({ model: defineItem(itemProxy(server, { retry: 0 })), pageSize: 0 });
    answered.add(items(5));
    server.inject({ type: 'status', status: 500, match: { method: 'POST' } });
    const failed = await batchErrorOf(answered.sync({ concurrency: 1 }));
    expect(failed.message).toMatch(/^1 of 5 operations failed: /);
    expect(failed.batch.unsent).toEqual([]);
    expect(rowsOf(server)).toHaveLength(5);
  });
});

// Issue 29 item 8: a refused connection (ECONNREFUSED) sent nothing, so its write was not applied;
// and an undo of a write that may have been applied carries the confirmed values, null included.
describe('after a refused connection', () => {
  /** A url on 127.0.0.1 where nothing listens (a port just closed): connections are refused. */
  async function refusingUrl(): Promise<string> {
    const closed = await silentServer();
    await cleanups.pop()?.();
    return closed.url;
  }

  it('the write counts as not applied: rejectChanges() leaves the store clean and the next sync sends nothing', async () => {
    const server = await testServer();
    const refused = await refusingUrl();
    let refuse = false;
    const proxy = itemProxy(server, { retry: 0, fetch: (input, init) => fetch(refuse ? String(input).replace(server.url, refused) : input, init) });
    const store = new Store({ model: defineItem(proxy) });
    await store.load();
    store.getById(1)?.set('name', 'ONE');
    refuse = true;
    const error = await batchErrorOf(store.sync());
    refuse = false;
    expect(error.errors.map((failure) => [failure.kind, failure.mayHaveBeenApplied])).toEqual([['network', false]]);
    expect(error.errors[0]?.message).toMatch(/ECONNREFUSED/);
    store.rejectChanges();
    expect(store.hasChanges()).toBe(false);
    expect(store.getById(1)?.get('name')).toBe('one');
    await store.sync();
    expect(requestsOf(server, 'PUT')).toEqual([]);
    expect(rowsOf(server)[0]).toMatchObject({ id: 1, name: 'one' });
  });

  it('an undo of a write that may have been applied sends the values the server last confirmed, null included', async () => {
    const server = await startTestServer({ resources: { items: [{ id: 1, uid: 'one', rev: 0 }] } });
    cleanups.push(() => server.close());
    const store = new Store({ model: defineItem(itemProxy(server, { retry: 0 })) });
    await store.load();
    const item = store.getById(1);
    expect(item?.get('name')).toBeNull();
    item?.set('name', 'ONE');
    server.inject({ type: 'reset-after', match: { method: 'PUT' } });
    await batchErrorOf(store.sync());
    expect(rowsOf(server)[0]?.['name']).toBe('ONE');
    store.rejectChanges();
    expect(item?.get('name')).toBeNull();
    await store.sync();
    expect(requestsOf(server, 'PUT').at(-1)?.json).toEqual({ id: 1, uid: 'one', name: null, rev: 0 });
    expect(rowsOf(server)[0]?.['name']).toBeNull();
    expect(store.hasChanges()).toBe(false);
  });
});
