/**
 * BufferedStore (API.md section 11): options, ranges, sparse reads, the visible range and its
 * prefetch, the purge, failed reads and unknown length, against the test server on 127.0.0.1.
 * Request counts and orders are asserted (a fetch gate holds reads in flight), never timings.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BufferedStore, isPlaceholder, type BufferedStoreConfig } from '../../src/buffered.js';
import { ProxyError } from '../../src/index.js';
import '../../src/presets.js';
import { collected } from '../helpers/gc.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { computedRows, gate, Order, ordersStore, settle, type Gate } from './helpers.js';

let server: TestServer;
let stores: BufferedStore<Order>[] = [];
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  for (const store of stores) store.destroy();
  stores = [];
  await server.close();
});

function make(g: Gate | undefined, config: BufferedStoreConfig<Order> = {}): BufferedStore<Order> {
  return ordersStore(server.url, g, config, stores);
}

function ids(rows: readonly unknown[]): (number | null)[] {
  return rows.map((row) => (row instanceof Order ? row.get('id') : null));
}

function reads(): string[] {
  return server.requests.filter((req) => req.method === 'GET').map((req) => req.url);
}

describe('options', () => {
  it('a bad option is a TypeError naming it; construction sends nothing', () => {
    const bad: [string, Record<string, unknown>][] = [
      ['pageSize', { pageSize: 0 }], ['pageSize', { pageSize: 2.5 }], ['cacheSize', { cacheSize: 0 }], ['cacheSize', { cacheSize: '3' }],
      ['maxConcurrentRequests', { maxConcurrentRequests: 0 }], ['leadingBufferZone', { leadingBufferZone: -1 }], ['trailingBufferZone', { trailingBufferZone: 1.5 }],
      ['remoteSort', { remoteSort: false }], ['remoteFilter', { remoteFilter: false }], ['data', { data: [] }], ['groupField', { groupField: 'title' }],
      ['autoLoad', { autoLoad: true }], ['sorters', { sorters: 'id' }], ['filters', { filters: [{ value: 1 }] }], ['params', { params: 3 }], ['model', { model: {} }],
      ['colour', { colour: 'red' }],
    ];
    for (const [name, config] of bad) expect(() => new BufferedStore(config), name).toThrow(new RegExp(`^BufferedStore: .*${name}`));
    for (const [, config] of bad) expect(() => new BufferedStore(config)).toThrow(TypeError);
    const store = make(undefined, { cacheSize: Infinity, maxConcurrentRequests: Infinity, remoteSort: true, remoteFilter: true });
    expect([store.pageSize, store.leadingBufferZone, store.trailingBufferZone, store.cacheSize, store.maxConcurrentRequests]).toEqual([100, 200, 50, Infinity, Infinity]);
    expect(new BufferedStore({ model: Order }).cacheSize).toBe(20);
    expect(server.requests).toEqual([]);
  });

  it('a negative, non-integer, non-finite or reversed range is a RangeError naming the method and the value, nothing sent', async () => {
    const store = make(undefined);
    for (const [start, end] of [[-1, 3], [1.5, 3], [0, Infinity], [Number.NaN, 2], [5, 4]]) {
      expect(() => store.getRange(start as number, end as number)).toThrow(RangeError);
      expect(() => store.setVisibleRange(start as number, end as number)).toThrow(/^BufferedStore\.setVisibleRange: /);
      await expect(store.loadRange(start as number, end as number)).rejects.toThrow(RangeError);
    }
    expect(() => store.getRange(-1, 3)).toThrow('BufferedStore.getRange: start must be a non-negative integer, got -1');
    expect(() => store.getRange(5, 4)).toThrow('BufferedStore.getRange: end (4) is before start (5)');
    expect(() => store.getAt(-2)).toThrow('BufferedStore.getAt: the index must be a non-negative integer, got -2');
    await settle();
    expect(server.requests).toEqual([]);
  });
});

describe('sparse reads', () => {
  it('getRange answers at once with placeholders and reads only the missing whole pages, one GET each, with the paging params', async () => {
    computedRows(server, 1000);
    const g = gate();
    const store = make(g);
    const rows = store.getRange(150, 249);
    expect(rows).toHaveLength(100);
    expect(rows.every(isPlaceholder)).toBe(true);
    expect(rows[0]).toEqual({ index: 150 });
    expect(Object.isFrozen(rows[0])).toBe(true);
    store.getRange(150, 249); // in flight: not asked again
    store.getRange(200, 210);
    await g.release();
    expect(reads()).toEqual(['/orders?page=2&start=100&limit=100', '/orders?page=3&start=200&limit=100']);
    expect(ids(store.getRange(150, 152))).toEqual([151, 152, 153]);
    expect(store.getCachedPages()).toEqual([2, 3]);
    // Cached: no request; a neighbour page only when asked for.
    store.getRange(100, 299);
    await settle();
    expect(reads()).toHaveLength(2);
    store.getRange(299, 300);
    await g.release();
    expect(reads()).toEqual(['/orders?page=2&start=100&limit=100', '/orders?page=3&start=200&limit=100', '/orders?page=4&start=300&limit=100']);
  });

  it("loadRange resolves with the records; the preset's paging params and dialect are sent", async () => {
    const rows = Array.from({ length: 250 }, (_, index) => ({ id: index + 1, title: `Order ${index + 1}`, amount: index % 97 }));
    await server.close();
    server = await startTestServer({ conventions: 'django-rest', resources: { orders: rows } });
    const store = new BufferedStore<Order>({ model: Order, proxy: { url: `${server.url}/orders/`, preset: 'django-rest', noCache: false }, pageSize: 100 });
    stores.push(store);
    const records = await store.loadRange(95, 104);
    expect(records.map((record) => record.get('id'))).toEqual([96, 97, 98, 99, 100, 101, 102, 103, 104, 105]);
    expect(reads()).toEqual(['/orders/?page=1&page_size=100', '/orders/?page=2&page_size=100']);
    expect(store.getTotalCount()).toBe(250);
    expect(await store.loadRange(240, 400)).toHaveLength(10);
    expect(reads()).toHaveLength(3);
  });

  it('getAt, getById and indexOf see cached rows only and never send a request; ranges past the known end are clipped, not before the first answer', async () => {
    computedRows(server, 120);
    const store = make(undefined);
    expect(store.getAt(5)).toBeUndefined();
    expect(store.getById(6)).toBeUndefined();
    expect(store.getRange(0, 199)).toHaveLength(200); // not clipped yet
    expect(store.getCount()).toBe(0);
    await store.loadRange(0, 199);
    expect(store.getTotalCount()).toBe(120);
    expect(store.getCount()).toBe(120);
    expect(store.getRange(100, 500)).toHaveLength(20);
    expect(store.getRange(130, 140)).toEqual([]);
    const record = store.getAt(5);
    expect(record?.get('id')).toBe(6);
    expect(store.getById(6)).toBe(record);
    expect(store.getById('6')).toBe(record);
    if (record) expect(store.indexOf(record)).toBe(5);
    expect(reads()).toEqual(['/orders?page=1&start=0&limit=100', '/orders?page=2&start=100&limit=100']);
  });
});

describe('the visible range', () => {
  it('loads the visible pages first, then the leading zone in the direction of travel, then the trailing zone, nearest first', async () => {
    computedRows(server, 100_000);
    const g = gate();
    const store = make(g, { maxConcurrentRequests: 1 });
    store.setVisibleRange(500, 549); // page 6; ahead 550-749: 7, 8; behind 450-499: 5
    await g.drain();
    expect(g.pages()).toEqual([6, 7, 5, 8]);
    // Backwards: page 4 visible, leading zone 100-299 (pages 3, 2), trailing 350-399 (page 4).
    store.setVisibleRange(300, 349);
    await g.drain();
    expect(g.pages().slice(4)).toEqual([4, 3, 2]);
    expect(store.getSnapshot().rows.every((row) => !isPlaceholder(row))).toBe(true);
  });

  it('keeps at most maxConcurrentRequests reads in flight, and never sends a queued page nothing needs any more', async () => {
    computedRows(server, 1_000_000);
    const g = gate();
    const store = make(g, { maxConcurrentRequests: 2, leadingBufferZone: 300, trailingBufferZone: 0 });
    store.setVisibleRange(0, 49);
    await settle();
    expect(g.pages()).toEqual([1, 2]); // 3 and 4 wait
    expect(g.held).toBe(2);
    // The grid jumps: 3 and 4 are not needed any more, and are never sent.
    store.setVisibleRange(500_000, 500_049);
    await g.release(1);
    expect(g.held).toBe(2);
    await g.release();
    for (let turn = 0; turn < 10 && g.held > 0; turn++) {
      expect(g.held).toBeLessThanOrEqual(2);
      await g.release();
    }
    expect(g.pages()).toEqual([1, 2, 5001, 5002, 5003, 5004]);
    expect(new Set(g.pages()).size).toBe(g.pages().length);
  });

  it('a page in flight or cached is never requested again; the snapshot shows the visible rows and loading', async () => {
    computedRows(server, 10_000);
    const g = gate();
    const store = make(g, { leadingBufferZone: 0, trailingBufferZone: 0 });
    store.setVisibleRange(0, 9);
    store.setVisibleRange(0, 9);
    store.getRange(0, 9);
    void store.loadRange(0, 9);
    await settle();
    expect(store.getSnapshot()).toMatchObject({ start: 0, end: 9, loading: true, count: 0, total: undefined });
    await g.release();
    expect(g.pages()).toEqual([1]);
    const snapshot = store.getSnapshot();
    expect(snapshot).toMatchObject({ start: 0, end: 9, loading: false, count: 10_000, total: 10_000, error: undefined });
    expect(ids(snapshot.rows)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    store.setVisibleRange(5, 20);
    await settle();
    expect(g.pages()).toEqual([1]);
  });
});

describe('the purge', () => {
  it('keeps at most cacheSize pages whatever is scrolled, never the visible ones; a purged page is read again when needed; purged records are collectable', async () => {
    computedRows(server, 100_000);
    const g = gate();
    g.open();
    const store = make(g, { cacheSize: 3, leadingBufferZone: 100, trailingBufferZone: 0, pageSize: 50 });
    const refs: WeakRef<Order>[] = [];
    for (let start = 0; start < 2000; start += 25) {
      store.setVisibleRange(start, start + 24);
      await store.loadRange(start, start + 24);
      await settle();
      expect(store.getCachedPages().length).toBeLessThanOrEqual(3);
      expect(store.getCachedPages()).toContain(Math.floor(start / 50) + 1);
      if (start === 0) for (let index = 0; index < 25; index++) refs.push(new WeakRef(store.getAt(index) ?? new Order()));
    }
    const read = g.pages();
    expect(new Set(read).size).toBe(read.length); // scrolling forward: no page twice
    expect(store.getAt(0)).toBeUndefined();
    expect(await collected(refs)).toBe(0);
    store.setVisibleRange(0, 24);
    await store.loadRange(0, 24);
    expect(g.pages().filter((page) => page === 1)).toHaveLength(2);
  });

  it('never purges a page holding a record with unsaved changes; it goes once saved', async () => {
    const rows = Array.from({ length: 1000 }, (_, index) => ({ id: index + 1, title: `Order ${index + 1}`, amount: 1 }));
    await server.close();
    server = await startTestServer({ resources: { orders: rows } });
    const store = make(undefined, { cacheSize: 2, leadingBufferZone: 0, trailingBufferZone: 0 });
    await store.loadRange(0, 9);
    const edited = store.getAt(3);
    edited?.set('title', 'Edited');
    for (const page of [2, 3, 4, 5]) {
      store.setVisibleRange((page - 1) * 100, (page - 1) * 100 + 9);
      await store.loadRange((page - 1) * 100, (page - 1) * 100 + 9);
    }
    expect(store.getCachedPages()).toEqual([1, 5]);
    expect(store.getById(4)).toBe(edited);
    expect(store.getUpdatedRecords()).toEqual([edited]);
    await edited?.save();
    expect(server.db.orders?.[3]).toMatchObject({ title: 'Edited' });
    store.setVisibleRange(600, 609);
    await store.loadRange(600, 609);
    expect(store.getCachedPages()).toEqual([5, 7]);
    expect(server.requests.filter((req) => req.method === 'GET')).toHaveLength(6);
  });
});

describe('failures and unknown length', () => {
  it('a failed read leaves placeholders, sets the error, fires exception, rejects loadRange, and is read again only when asked for again', async () => {
    computedRows(server, 1000);
    const store = make(undefined, { leadingBufferZone: 100, trailingBufferZone: 0, maxConcurrentRequests: 1 });
    const errors: unknown[] = [];
    store.on('exception', ({ error }) => errors.push(error));
    server.inject({ type: 'status', status: 400, match: { method: 'GET', path: '/orders' } });
    const failing = store.loadRange(0, 9);
    store.setVisibleRange(0, 9);
    const error: unknown = await failing.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProxyError);
    await store.loadRange(100, 109); // the leading page, read on
    await settle();
    expect(errors).toHaveLength(1);
    expect(store.getSnapshot().rows.every(isPlaceholder)).toBe(true);
    expect(reads().filter((url) => url.includes('page=1&'))).toHaveLength(1);
    expect(store.getSnapshot().error).toBeUndefined(); // the next answer cleared it
    expect(await store.loadRange(0, 9)).toHaveLength(10); // asked again
    expect(reads().filter((url) => url.includes('page=1&'))).toHaveLength(2);
  });

  it('with no total the count grows as pages arrive until a short page fixes it', async () => {
    computedRows(server, 250, { total: false });
    const store = make(undefined, { leadingBufferZone: 0, trailingBufferZone: 0 });
    await store.loadRange(0, 99);
    expect(store.getTotalCount()).toBeUndefined();
    expect(store.getCount()).toBe(200);
    expect(store.getRange(0, 10_000)).toHaveLength(200);
    await store.loadRange(100, 199);
    expect(store.getCount()).toBe(300);
    expect(await store.loadRange(200, 299)).toHaveLength(50);
    expect(store.getTotalCount()).toBe(250);
    expect(store.getCount()).toBe(250);
    expect(store.getRange(240, 10_000)).toHaveLength(10);
    expect(reads()).toHaveLength(3);
  });
});
