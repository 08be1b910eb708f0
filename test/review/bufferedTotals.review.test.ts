/**
 * Review: BufferedStore totals (API.md 11) when a removed, unsynced row is not placed by a page of
 * the current generation (after a sort), then the change is rejected or committed. Against the test
 * server on 127.0.0.1: 300 orders.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { BufferedStore } from '../../src/buffered.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { Order, ordersStore } from '../buffered/helpers.js';

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

const ids = (rows: readonly unknown[]) => rows.map((row) => (row instanceof Order ? row.get('id') : null));

async function removedThenSorted(): Promise<BufferedStore<Order>> {
  const store = ordersStore(server.url, undefined, { pageSize: 100, leadingBufferZone: 0, trailingBufferZone: 0 }, stores);
  store.setVisibleRange(0, 9);
  await store.loadRange(0, 199);
  store.remove(store.getAt(150) ?? []); // id 151
  await store.sort('id', 'DESC'); // page 1 only: row 151 (index 149 now) not placed
  expect([store.getTotalCount(), store.getCount()]).toEqual([299, 299]);
  return store;
}

it('a remove, a sort, then rejectChanges(): the row is back in the total, and its page shows it', async () => {
  const store = await removedThenSorted();
  store.rejectChanges();
  expect(store.getRemovedRecords()).toEqual([]);
  expect([store.getTotalCount(), store.getCount(), store.getSnapshot().total]).toEqual([300, 300, 300]);
  await store.loadRange(100, 199);
  expect(ids(store.getRange(148, 150))).toEqual([152, 151, 150]);
  expect([store.getTotalCount(), store.getCount()]).toEqual([300, 300]);
  await store.sync();
  expect(server.requests.filter((req) => req.method === 'DELETE')).toEqual([]);
});

it('a remove, a sort, a sync, then the page: the row is gone, the total counts it once', async () => {
  const store = await removedThenSorted();
  await store.sync();
  expect([store.getTotalCount(), store.getCount()]).toEqual([299, 299]);
  await store.loadRange(100, 199);
  expect(ids(store.getRange(148, 149))).toEqual([152, 150]);
  expect([store.getTotalCount(), store.getCount()]).toEqual([299, 299]);
  await store.reload();
  expect([store.getTotalCount(), store.getCount()]).toEqual([299, 299]);
});

it('a remove, a filter the row passes, then its page: the total leaves it out once the page shows it', async () => {
  const store = await removedThenSorted();
  await store.filter('amount', 3); // id 151: amount 150 % 7 = 3; 43 rows on the server (it is not destroyed yet)
  await store.loadRange(0, 99);
  expect(ids(store.getRange(0, 99)).includes(151)).toBe(false);
  expect([store.getTotalCount(), store.getCount()]).toEqual([42, 42]);
  store.rejectChanges();
  expect([store.getTotalCount(), store.getCount()]).toEqual([43, 43]);
  expect(ids(store.getRange(0, 99)).includes(151)).toBe(true);
});

it('a placed remove, a sync, then a later page: the total counts the destroyed row once', async () => {
  const store = ordersStore(server.url, undefined, { pageSize: 100, leadingBufferZone: 0, trailingBufferZone: 0 }, stores);
  store.setVisibleRange(0, 9);
  await store.loadRange(0, 199);
  store.remove(store.getAt(150) ?? []); // id 151, placed by page 2
  await store.sync();
  expect([store.getTotalCount(), store.getCount()]).toEqual([299, 299]);
  await store.loadRange(200, 298); // page 3: the server now says 299
  expect([store.getTotalCount(), store.getCount()]).toEqual([299, 299]);
});
