/**
 * useStore of rest-proxy/react and rest-proxy/vue take a BufferedStore and return its visible
 * snapshot (API.md section 11), read from the test server on 127.0.0.1.
 */
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { effectScope, watch } from 'vue';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isPlaceholder, type BufferedSnapshot, type BufferedStore } from '../../src/buffered.js';
import { useStore as useReactStore } from '../../src/react.js';
import { useStore as useVueStore } from '../../src/vue.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { computedRows, Order, ordersStore, settle } from './helpers.js';

let server: TestServer;
let stores: BufferedStore<Order>[] = [];
beforeEach(async () => {
  server = await startTestServer();
  computedRows(server, 1_000_000);
});
afterEach(async () => {
  for (const store of stores) store.destroy();
  stores = [];
  await server.close();
});

function Grid({ store }: { store: BufferedStore<Order> }) {
  const snapshot: BufferedSnapshot<Order> = useReactStore(store);
  return h('ul', { 'data-count': snapshot.count }, snapshot.rows.map((row) => h('li', { key: isPlaceholder(row) ? `p${row.index}` : row.clientId }, isPlaceholder(row) ? '…' : row.get('title'))));
}

it("rest-proxy/react: useStore returns a BufferedStore's visible snapshot", async () => {
  const store = ordersStore(server.url, undefined, { pageSize: 50, leadingBufferZone: 0, trailingBufferZone: 0 }, stores);
  store.setVisibleRange(999_998, 999_999);
  expect(renderToString(h(Grid, { store }))).toBe('<ul data-count="0"><li>…</li><li>…</li></ul>');
  await store.loadRange(999_998, 999_999);
  expect(renderToString(h(Grid, { store }))).toBe('<ul data-count="1000000"><li>Order 999999</li><li>Order 1000000</li></ul>');
});

it('rest-proxy/vue: useStore is a shallow ref of the visible snapshot, replaced when the visible rows change', async () => {
  const store = ordersStore(server.url, undefined, { pageSize: 50, leadingBufferZone: 0, trailingBufferZone: 0 }, stores);
  const scope = effectScope();
  const seen: number[] = [];
  const grid = scope.run(() => {
    const snapshot = useVueStore(store);
    watch(snapshot, (next) => seen.push(next.rows.filter((row) => !isPlaceholder(row)).length));
    return snapshot;
  });
  store.setVisibleRange(10, 14);
  await store.loadRange(10, 14);
  await settle();
  expect(grid?.value).toBe(store.getSnapshot());
  expect(grid?.value.rows.map((row) => (isPlaceholder(row) ? null : row.get('id')))).toEqual([11, 12, 13, 14, 15]);
  expect(seen.at(-1)).toBe(5);
  scope.stop();
});
