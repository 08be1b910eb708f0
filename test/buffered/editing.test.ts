/**
 * BufferedStore (API.md section 11): generations (sort, filter, load, reload), edits inside
 * (records saved, added on top, removed with shifting indices, synced), snapshots and destroy,
 * against the test server on 127.0.0.1. Request counts and orders, never timings.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BufferedStore, isPlaceholder, type BufferedStoreConfig } from '../../src/buffered.js';
import { ProxyError } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { computedRows, gate, Order, ordersStore, settle, type Gate } from './helpers.js';

let server: TestServer;
let stores: BufferedStore<Order>[] = [];
beforeEach(async () => {
  server = await startTestServer({ resources: { orders: Array.from({ length: 300 }, (_, index) => ({ id: index + 1, title: `Order ${index + 1}`, amount: index % 7 })) } });
});
afterEach(async () => {
  for (const store of stores) store.destroy();
  stores = [];
  await server.close();
});

function make(g: Gate | undefined, config: BufferedStoreConfig<Order> = {}): BufferedStore<Order> {
  return ordersStore(server.url, g, { leadingBufferZone: 0, trailingBufferZone: 0, ...config }, stores);
}

function ids(rows: readonly unknown[]): (number | null)[] {
  return rows.map((row) => (row instanceof Order ? row.get('id') : null));
}

function sent(method?: string): string[] {
  return server.requests.filter((req) => method === undefined || req.method === method).map((req) => `${req.method} ${req.url}`);
}

describe('generations', () => {
  it('sort() drops the cached pages, aborts reads in flight, rejects pending loadRanges, ignores late answers, and resolves when the visible pages are loaded', async () => {
    await server.close();
    server = await startTestServer();
    computedRows(server, 1000);
    const g = gate(true);
    const store = make(g, { pageSize: 100 });
    store.setVisibleRange(0, 9);
    await g.release();
    const pending = store.loadRange(500, 509);
    await settle();
    expect(g.held).toBe(1);
    const sorted = store.sort('id', 'DESC');
    expect(store.getCachedPages()).toEqual([]);
    expect(store.getTotalCount()).toBeUndefined();
    const error: unknown = await pending.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProxyError);
    expect(error).toMatchObject({ kind: 'abort' });
    await g.release(); // the late answer of page 6 (old sort) and page 1 of the new sort
    await g.release();
    const records = await sorted;
    expect(records.map((record) => record.get('id'))).toEqual([1000, 999, 998, 997, 996, 995, 994, 993, 992, 991]);
    expect(store.getCachedPages()).toEqual([1]);
    expect(store.getTotalCount()).toBe(1000);
    expect(g.started.at(-1)).toBe(`/orders?page=1&start=0&limit=100&sort=${encodeURIComponent('[{"property":"id","direction":"DESC"}]')}`);
  });

  it('filter() and clearFilter() are remote: a new generation with the filter sent, the total of its first answer', async () => {
    await server.close();
    server = await startTestServer();
    computedRows(server, 700);
    const store = make(undefined, { pageSize: 50 });
    store.setVisibleRange(0, 9);
    await store.load();
    expect(store.getTotalCount()).toBe(700);
    const records = await store.filter('amount', 5);
    expect(records.every((record) => record.get('amount') === 5)).toBe(true);
    expect(store.getTotalCount()).toBe(8); // ids 5, 102, ... 684
    expect(store.getSnapshot().rows).toHaveLength(8);
    expect(sent('GET').at(-1)).toContain(`filter=${encodeURIComponent('[{"property":"amount","value":5}]')}`);
    await store.clearFilter();
    expect(store.getTotalCount()).toBe(700);
  });

  it('reload() keeps the rows shown until their replacements arrive, reads the visible pages first, one record per id with local edits on top', async () => {
    const g = gate();
    const store = make(g, { pageSize: 100 });
    store.setVisibleRange(0, 9);
    await g.release();
    void store.loadRange(200, 209);
    await g.release();
    expect(store.getCachedPages()).toEqual([1, 3]);
    const first = store.getAt(0);
    const second = store.getAt(1);
    second?.set('title', 'Mine');
    const rows = server.db.orders ?? [];
    Object.assign(rows[0] ?? {}, { title: 'Changed' });
    Object.assign(rows[1] ?? {}, { amount: 42 });
    const reloaded = store.reload();
    expect(store.getCachedPages()).toEqual([1]); // page 3 dropped, page 1 kept on screen
    await settle();
    expect(store.getSnapshot().rows.some(isPlaceholder)).toBe(false);
    expect(store.getAt(0)).toBe(first);
    await g.release();
    await reloaded;
    expect(store.getAt(0)).toBe(first);
    expect(first?.get('title')).toBe('Changed');
    expect(store.getAt(1)).toBe(second);
    expect(second?.get('title')).toBe('Mine');
    expect(second?.get('amount')).toBe(42);
    expect(second?.dirty).toBe(true);
    expect(g.pages()).toEqual([1, 3, 1]);
  });
});

describe('edits inside', () => {
  it('a loaded record saves as any record (PUT, no read); one record per id across reads', async () => {
    const store = make(undefined, { pageSize: 100 });
    await store.loadRange(0, 9);
    const record = store.getAt(2);
    record?.set('title', 'Saved');
    await record?.save();
    expect(sent()).toEqual(['GET /orders?page=1&start=0&limit=100', 'PUT /orders/3']);
    expect(server.db.orders?.[2]).toMatchObject({ title: 'Saved' });
    expect(record?.dirty).toBe(false);
    store.setVisibleRange(0, 9);
    await store.reload();
    expect(store.getAt(2)).toBe(record);
    expect(record?.get('title')).toBe('Saved');
  });

  it('add() puts new records on top and shifts every later index, no request; sync() creates them; they stay on top until a load places them', async () => {
    const store = make(undefined, { pageSize: 100 });
    await store.loadRange(0, 9);
    const [first] = store.add({ title: 'First', amount: 1 });
    const [a, b] = store.add([{ title: 'A', amount: 1 }, { title: 'B', amount: 1 }]);
    expect(store.getRange(0, 4)).toEqual([a, b, first, store.getById(1), store.getById(2)]);
    expect(store.getCount()).toBe(303);
    expect(store.getTotalCount()).toBe(303);
    expect(store.getNewRecords()).toEqual([a, b, first]);
    await settle();
    expect(sent()).toEqual(['GET /orders?page=1&start=0&limit=100']);
    await store.sync();
    expect(sent('POST')).toHaveLength(3);
    expect(server.db.orders).toHaveLength(303);
    expect(store.getAt(0)).toBe(a);
    expect(a?.phantom).toBe(false);
    expect(store.getNewRecords()).toEqual([]);
    store.setVisibleRange(0, 9);
    await store.load();
    expect(ids(store.getRange(0, 2))).toEqual([1, 2, 3]);
    expect(store.getCount()).toBe(303);
  });

  it('remove() takes rows out at once and shifts later indices without a re-read; sync() sends the DELETEs; rejectChanges() brings them back', async () => {
    const store = make(undefined, { pageSize: 100 });
    await store.loadRange(0, 199);
    store.remove(store.getAt(5) ?? []);
    store.removeAt(0);
    expect(ids(store.getRange(0, 5))).toEqual([2, 3, 4, 5, 7, 8]);
    expect(store.getAt(197)?.get('id')).toBe(200);
    expect(store.getCount()).toBe(298);
    expect(store.getById(6)).toBeUndefined();
    expect(store.getRemovedRecords().map((record) => record.get('id'))).toEqual([6, 1]);
    store.rejectChanges();
    expect(ids(store.getRange(0, 5))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(store.getCount()).toBe(300);
    store.remove([store.getAt(5), store.getAt(0)].filter((record) => record !== undefined));
    await settle();
    expect(sent('GET')).toHaveLength(2);
    await store.sync();
    expect(sent('DELETE').sort()).toEqual(['DELETE /orders/1', 'DELETE /orders/6']);
    expect(ids(store.getRange(0, 1))).toEqual([2, 3]);
    expect(store.getCount()).toBe(298);
    expect(store.getRemovedRecords()).toEqual([]);
  });

  it('a removed row stays out of the total after a sort, before and after the page holding it arrives', async () => {
    const store = make(undefined, { pageSize: 100 });
    store.setVisibleRange(0, 9);
    await store.loadRange(0, 199);
    store.remove(store.getAt(150) ?? []); // id 151: page 2 ascending, page 2 (index 149) descending too
    expect([store.getTotalCount(), store.getCount()]).toEqual([299, 299]);
    await store.sort('id', 'DESC'); // page 1 only: the removed row is not placed yet
    expect(store.getCachedPages()).toEqual([1]);
    expect([store.getTotalCount(), store.getCount(), store.getSnapshot().total, store.getSnapshot().count]).toEqual([299, 299, 299, 299]);
    await store.loadRange(100, 199);
    expect([store.getTotalCount(), store.getCount(), store.getSnapshot().total]).toEqual([299, 299, 299]);
    expect(ids(store.getRange(148, 149))).toEqual([152, 150]);
    // A filter changes the rows counted: the removed row is left out only once a page shows it is among them.
    await store.filter('amount', 2); // 43 rows (id 151's amount is 3)
    expect(store.getTotalCount()).toBe(43);
    await store.clearFilter();
    expect(store.getTotalCount()).toBe(299);
    await store.sync();
    expect(sent('DELETE')).toEqual(['DELETE /orders/151']);
    expect(store.getTotalCount()).toBe(299);
  });

  it('a record destroyed by itself leaves its row; autoSync sends an edit', async () => {
    const store = make(undefined, { pageSize: 100, autoSync: true });
    await store.loadRange(0, 9);
    await store.getAt(0)?.destroy();
    expect(store.getAt(0)?.get('id')).toBe(2);
    expect(store.getCount()).toBe(299);
    store.getAt(0)?.set('title', 'Auto');
    for (let turn = 0; turn < 50 && sent('PUT').length === 0; turn++) await settle();
    expect(sent('PUT')).toEqual(['PUT /orders/2']);
  });
});

describe('snapshots and destroy', () => {
  it('a prefetched page and an edit outside the visible range keep the snapshot; an edit of a visible record changes it', async () => {
    const store = make(undefined, { pageSize: 10, leadingBufferZone: 20, maxConcurrentRequests: 1 });
    const seen: unknown[] = [];
    const unsubscribe = store.subscribe((snapshot) => seen.push(snapshot));
    store.setVisibleRange(0, 9);
    await store.loadRange(0, 9);
    await settle();
    const shown = store.getSnapshot();
    expect(shown.rows.every((row) => !isPlaceholder(row))).toBe(true);
    await store.loadRange(10, 29); // the prefetch
    await settle();
    expect(store.getCachedPages()).toEqual([1, 2, 3]);
    expect(store.getSnapshot()).toBe(shown);
    store.getAt(25)?.set('title', 'Far');
    await settle();
    expect(store.getSnapshot()).toBe(shown);
    const count = seen.length;
    store.getAt(3)?.set('title', 'Near');
    await settle();
    expect(store.getSnapshot()).not.toBe(shown);
    expect(seen).toHaveLength(count + 1);
    unsubscribe();
  });

  it('destroy() aborts reads in flight, releases the records and refuses later calls with a TypeError', async () => {
    const g = gate();
    const store = make(g);
    const first = store.loadRange(0, 9);
    await g.release();
    expect(await first).toHaveLength(10);
    const pending = store.loadRange(100, 109);
    await settle();
    store.destroy();
    await expect(pending).rejects.toMatchObject({ kind: 'abort' });
    expect(() => store.getRange(0, 1)).toThrow(TypeError);
    expect(() => store.setVisibleRange(0, 1)).toThrow(TypeError);
    expect(() => store.add({ title: 'x', amount: 1 })).toThrow(/after destroy/);
    await expect(store.sync()).rejects.toThrow(TypeError);
    await expect(store.load()).rejects.toThrow(TypeError);
    await expect(store.loadRange(0, 1)).rejects.toThrow(TypeError);
  });
});
