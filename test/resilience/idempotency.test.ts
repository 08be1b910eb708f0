/**
 * `idempotencyKey: true`: every create carries an Idempotency-Key that stays the same across the
 * retries of one create and across later syncs of the same record until it succeeds, so that a
 * POST may be retried without ever creating a record twice. The test server replays the first
 * answer to a key it has already applied.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { defineItem, itemProxy, proxyErrorOf, rejectionOf, requestsOf, rowsOf, type ItemData } from './helpers.js';

const SEED: ItemData[] = [{ id: 1, uid: 'u1', name: 'one', rev: 0 }];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: SEED.map((row) => ({ ...row })) } });
});

afterEach(async () => {
  await server.close();
});

function keysOfPosts(): (string | undefined)[] {
  return requestsOf(server, 'POST').map((request) => request.headers['idempotency-key']);
}

function rowsWithUid(uid: string): Record<string, unknown>[] {
  return rowsOf(server).filter((row) => row['uid'] === uid);
}

function keyedStore(options: { batchActions?: boolean } = {}) {
  const proxy = itemProxy(server, { idempotencyKey: true, batchActions: options.batchActions ?? false });
  const Item = defineItem(proxy);
  const store = new Store({ model: Item, pageSize: 0 });
  return { proxy, Item, store };
}

describe('the header', () => {
  it('every create carries its own key; updates, destroys and reads carry none', async () => {
    const { store } = keyedStore();
    await store.load();
    store.add([{ uid: 'a', name: 'A', rev: 0 }, { uid: 'b', name: 'B', rev: 0 }]);
    store.getById(1)?.set('name', 'ONE');
    await store.sync();

    const keys = keysOfPosts();
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key).toMatch(UUID);
    expect(new Set(keys).size).toBe(2);
    for (const request of server.requests.filter((r) => r.method !== 'POST')) {
      expect(request.headers['idempotency-key']).toBeUndefined();
    }
  });

  it('without idempotencyKey no key is sent', async () => {
    const proxy = itemProxy(server);
    const Item = defineItem(proxy);
    await new Item({ uid: 'c', name: 'C', rev: 0 }).save();
    expect(keysOfPosts()).toEqual([undefined]);
  });

  it('a record created once gets a new key never again: its next writes are PUTs without one', async () => {
    const { Item } = keyedStore();
    const item = new Item({ uid: 'd', name: 'D', rev: 0 });
    await item.save();
    item.set('name', 'DD');
    await item.save();
    const other = new Item({ uid: 'e', name: 'E', rev: 0 });
    await other.save();

    const keys = keysOfPosts();
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
    expect(requestsOf(server, 'PUT')[0]?.headers['idempotency-key']).toBeUndefined();
  });
});

describe('retries of one create', () => {
  it('a POST answered 503 is retried with the same key and creates one row', async () => {
    const { Item } = keyedStore();
    const item = new Item({ uid: 'f', name: 'F', rev: 0 });
    server.inject({ type: 'status', status: 503, times: 2, match: { method: 'POST' } });

    await item.save();

    const keys = keysOfPosts();
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(rowsWithUid('f')).toHaveLength(1);
    expect(item.phantom).toBe(false);
    expect(item.getId()).toBe(rowsWithUid('f')[0]?.['id']);
  });

  it('a POST applied but whose answer was lost is retried with the same key: the server replays, one row', async () => {
    const { Item } = keyedStore();
    const item = new Item({ uid: 'g', name: 'G', rev: 0 });
    server.inject({ type: 'reset-after', match: { method: 'POST' } });

    await item.save();

    expect(keysOfPosts()).toHaveLength(2);
    expect(new Set(keysOfPosts()).size).toBe(1);
    expect(rowsWithUid('g')).toHaveLength(1);
    expect(item.phantom).toBe(false);
    expect(item.dirty).toBe(false);
    expect(item.getId()).toBe(rowsWithUid('g')[0]?.['id']);
  });

  it('a POST delivered twice (duplicate) creates one row', async () => {
    const { Item } = keyedStore();
    const item = new Item({ uid: 'h', name: 'H', rev: 0 });
    server.inject({ type: 'duplicate', match: { method: 'POST' } });

    await item.save();

    expect(rowsWithUid('h')).toHaveLength(1);
    expect(item.getId()).toBe(rowsWithUid('h')[0]?.['id']);
  });

  it('a POST that times out while the server stalls is retried with the same key', async () => {
    // The try's timeout far above a loaded machine's answer time, the stall far above the timeout:
    // only the stalled try times out (150 ms let the retry time out too when the machine was busy).
    const proxy = itemProxy(server, { idempotencyKey: true, timeout: 1_500 });
    const Item = defineItem(proxy);
    const item = new Item({ uid: 'i', name: 'I', rev: 0 });
    server.inject({ type: 'stall', ms: 10_000, match: { method: 'POST' } });

    await item.save();

    expect(new Set(keysOfPosts()).size).toBe(1);
    expect(keysOfPosts()).toHaveLength(2);
    expect(rowsWithUid('i')).toHaveLength(1);
  });
});

describe('the key survives a failed sync', () => {
  it('every try of every later sync sends the same key until the create succeeds; one row', async () => {
    const { store } = keyedStore();
    const [item] = store.add({ uid: 'j', name: 'J', rev: 0 });
    // limit 3: four tries, all applied and all answers lost.
    server.inject({ type: 'reset-after', times: 4, match: { method: 'POST' } });

    const error = await rejectionOf(store.sync());
    expect(error).toBeInstanceOf(BatchError);
    expect(error instanceof BatchError ? error.errors[0]?.kind : undefined).toBe('network');
    expect(item?.phantom).toBe(true);
    expect(store.getNewRecords()).toEqual([item]);

    await store.sync();

    const keys = keysOfPosts();
    expect(keys).toHaveLength(5);
    expect(new Set(keys).size).toBe(1);
    expect(rowsWithUid('j')).toHaveLength(1);
    expect(item?.phantom).toBe(false);
    expect(item?.getId()).toBe(rowsWithUid('j')[0]?.['id']);
    expect(store.hasChanges()).toBe(false);
  });

  it('Model.save: a second save after a failed one sends the same key', async () => {
    const { Item } = keyedStore();
    const item = new Item({ uid: 'k', name: 'K', rev: 0 });
    server.inject({ type: 'reset-after', times: 4, match: { method: 'POST' } });

    const error = await proxyErrorOf(item.save());
    expect(error.kind).toBe('network');
    await item.save();

    expect(new Set(keysOfPosts()).size).toBe(1);
    expect(rowsWithUid('k')).toHaveLength(1);
  });

  it('a truncated answer to an applied create (kind "parse") is followed by a replay, not a second row', async () => {
    const { store } = keyedStore();
    const [item] = store.add({ uid: 'l', name: 'L', rev: 0 });
    server.inject({ type: 'truncate', match: { method: 'POST' } });

    const error = await rejectionOf(store.sync());
    expect(error instanceof BatchError ? error.errors[0]?.kind : undefined).toBe('parse');
    expect(item?.phantom).toBe(true);
    await store.sync();

    expect(new Set(keysOfPosts()).size).toBe(1);
    expect(rowsWithUid('l')).toHaveLength(1);
    expect(item?.getId()).toBe(rowsWithUid('l')[0]?.['id']);
  });

  it('batchActions: one key for the batch, the same across retries and syncs; each record created once', async () => {
    const { store } = keyedStore({ batchActions: true });
    store.add([{ uid: 'm1', name: 'M1', rev: 0 }, { uid: 'm2', name: 'M2', rev: 0 }]);
    server.inject({ type: 'reset-after', times: 4, match: { method: 'POST' } });

    await rejectionOf(store.sync());
    await store.sync();

    const keys = keysOfPosts();
    expect(keys).toHaveLength(5);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/\S/);
    expect(rowsWithUid('m1')).toHaveLength(1);
    expect(rowsWithUid('m2')).toHaveLength(1);
    expect(store.getRange().map((record) => record.phantom)).toEqual([false, false]);
  });
});

describe('changes made while a create is unconfirmed', () => {
  // BUG: with batchActions the key of a batched create is a hash of its records' keys; a record
  // added before the next sync changes the key, so the server does not recognise the batch and
  // creates the first records a second time.
  it('batchActions: a record added before the next sync does not make the earlier ones twice', async () => {
    const { store } = keyedStore({ batchActions: true });
    store.add([{ uid: 'q1', name: 'Q1', rev: 0 }, { uid: 'q2', name: 'Q2', rev: 0 }]);
    server.inject({ type: 'reset-after', times: 4, match: { method: 'POST' } });
    await rejectionOf(store.sync());
    store.add({ uid: 'q3', name: 'Q3', rev: 0 });

    for (let round = 0; round < 3 && store.hasChanges(); round++) await store.sync();

    expect(store.hasChanges()).toBe(false);
    expect(rowsWithUid('q3')).toHaveLength(1);
    expect(rowsWithUid('q1')).toHaveLength(1);
    expect(rowsWithUid('q2')).toHaveLength(1);
  });

  // BUG: the second sync sends the edited values with the same key; the server replays its
  // first answer (the old values), and the record takes them as saved: it ends clean with the
  // OLD name, and the server never receives the edit. The edit is silently lost.
  it('an edit made after a failed create reaches the server', async () => {
    const { store } = keyedStore();
    const [item] = store.add({ uid: 'n', name: 'before', rev: 0 });
    server.inject({ type: 'reset-after', times: 4, match: { method: 'POST' } });
    await rejectionOf(store.sync());
    item?.set({ name: 'after', rev: 1 });

    // A bounded number of syncs: the edit may need a PUT after the replayed create.
    for (let round = 0; round < 3 && store.hasChanges(); round++) await store.sync();

    expect(rowsWithUid('n')).toHaveLength(1);
    expect(item?.get('name')).toBe('after');
    expect(rowsWithUid('n')[0]).toMatchObject({ name: 'after', rev: 1 });
    expect(item?.dirty).toBe(false);
  });

  // BUG: Store.remove drops a phantom record without a request, although its create may have
  // been applied (the answer was lost). The row stays on the server for good.
  it('a record removed after a failed create does not stay on the server', async () => {
    const { store } = keyedStore();
    const [item] = store.add({ uid: 'o', name: 'O', rev: 0 });
    server.inject({ type: 'reset-after', times: 4, match: { method: 'POST' } });
    await rejectionOf(store.sync());
    expect(rowsWithUid('o')).toHaveLength(1); // applied four times over, stored once
    if (item) store.remove(item);

    for (let round = 0; round < 3 && store.hasChanges(); round++) await store.sync();

    expect(store.hasChanges()).toBe(false);
    expect(rowsWithUid('o')).toHaveLength(0);
  });

  it('a record removed after a create that certainly failed (400) is just dropped', async () => {
    const { store } = keyedStore();
    const [item] = store.add({ uid: 'p', name: 'P', rev: 0 });
    server.inject({ type: 'status', status: 400, match: { method: 'POST' } });
    await rejectionOf(store.sync());
    if (item) store.remove(item);
    server.reset();

    await store.sync();

    expect(server.requests).toHaveLength(0);
    expect(rowsWithUid('p')).toHaveLength(0);
  });
});
