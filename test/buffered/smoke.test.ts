import { afterEach, beforeEach, expect, it } from 'vitest';
import { BufferedStore, isPlaceholder } from '../../src/buffered.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { computedRows, gate, Order } from './helpers.js';

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
});

it('smoke', async () => {
  computedRows(server, 1000);
  const g = gate();
  const store = new BufferedStore({ model: Order, proxy: { url: `${server.url}/orders`, fetch: g.fetch }, pageSize: 100 });
  const rows = store.getRange(0, 49);
  expect(rows.every(isPlaceholder)).toBe(true);
  const loaded = store.loadRange(0, 49);
  await g.release();
  const records = await loaded;
  expect(records.length).toBe(50);
  expect(g.started).toEqual(['/orders?page=1&start=0&limit=100']);
  expect(store.getTotalCount()).toBe(1000);
  store.setVisibleRange(0, 49);
  await g.release();
  await g.release();
  console.log(g.started, store.getCachedPages());
});
