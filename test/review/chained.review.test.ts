/**
 * Hostile review (s5-review) of ChainedStore (API.md section 12) where it meets loads and the
 * write path: failing tests of confirmed bugs, marked `it.fails` so the branch stays green. Each
 * says what a user sees and what API.md says instead. A real server on 127.0.0.1.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ChainedStore, count, Model, onlineManager, RestProxy, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';

class Order extends Model<{ id: number; title: string; amount: number }> {
  static override entityName = 'Order';
  static override fields = [{ name: 'id', type: 'int' }, 'title', { name: 'amount', type: 'number' }];
}

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { orders: Array.from({ length: 3 }, (_, i) => ({ id: i + 1, title: `T${i + 1}`, amount: i })) } });
});

afterEach(async () => {
  onlineManager.setOnline(true);
  await server.close();
});

const turn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

// User sees: a grid bound to a ChainedStore (useStore(chained)) never shows its spinner: the
// chained snapshot's `loading` stays false while the source loads, and no subscriber is told
// when the source starts or ends a load.
// API.md section 12: "`loading` the source's"; section 8: the snapshot changes when loading does.
it("a ChainedStore's snapshot follows the source's loading", async () => {
  const source = new Store<Order>({ model: Order, proxy: new RestProxy({ url: `${server.url}/orders` }) });
  const chained = new ChainedStore({ source });
  const seen: boolean[] = [];
  chained.subscribe((snapshot) => seen.push(snapshot.loading));
  const loading = source.load();
  expect(chained.loading).toBe(true);
  expect(chained.getSnapshot().loading).toBe(true);
  await loading;
  await turn();
  expect(chained.getSnapshot().loading).toBe(false);
  expect(seen).toContain(true);
});

// User sees: the side panel (a ChainedStore) lists a new order twice after saving it, and its
// count is one more than the source's. A load ran while the create was in flight and its answer
// brought the new row before the POST's answer did: the source correctly lets the load's copy go
// for the saved record (one record per id), but the chained store is not told and keeps the copy.
// API.md section 12: a ChainedStore "shows the source's shown records (the same objects)";
// section 6: one record object per id.
it('a ChainedStore drops the copy a load brought of a record whose create was in flight', async () => {
  let letPostAnswer = (): void => undefined;
  const postAnswered = new Promise<void>((resolve) => {
    letPostAnswer = resolve;
  });
  // The POST reaches the server and is applied; its answer reaches the library only when the test says.
  const slowPostAnswer: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method === 'POST') await postAnswered;
    return response;
  };
  const source = new Store<Order>({ model: Order, pageSize: 0, proxy: new RestProxy({ url: `${server.url}/orders`, fetch: slowPostAnswer }) });
  await source.load();
  const chained = new ChainedStore({ source });
  const summary = source.summarize({ n: count() });
  const [record] = source.add({ title: 'new', amount: 1000 });
  const saving = record!.save();
  for (let i = 0; i < 200 && server.db['orders']?.length !== 4; i++) await turn();
  await source.load(); // brings row 4, the create's, before its answer
  chained.getSnapshot(); // the panel renders (the bug shows only once the chained view was read)
  letPostAnswer();
  await saving;
  await turn();
  expect(source.getCount()).toBe(4);
  expect(source.getById(4)).toBe(record);
  expect(chained.getRange().filter((shown) => shown.getId() === 4)).toEqual([record]);
  expect(chained.getCount()).toBe(4);
  expect(summary.getSnapshot().values.n).toBe(4);
});

// User sees: the grid and the side panel are ChainedStores over one source store (section 12's
// use case: "the grid and a side panel over the same records"); after the connection comes back
// the rows never revalidate, while the same app showing the source itself does. The source
// counts only its own subscribers as "shown", so a store shown through chained stores has no
// triggers (reconnect, focus, interval) and no stale timer.
// API.md section 13: triggers act on "a store someone shows"; `refetchOnReconnect` (default true):
// "a store (...) must come back to the server by itself".
it('a source shown only through a ChainedStore refetches on reconnect', async () => {
  const source = new Store<Order>({ model: Order, proxy: new RestProxy({ url: `${server.url}/orders` }) });
  await source.load();
  const chained = new ChainedStore({ source });
  const stop = chained.subscribe(() => undefined); // what useStore(chained) does
  onlineManager.setOnline(false);
  onlineManager.setOnline(true);
  for (let i = 0; i < 5; i++) await turn();
  stop();
  expect(server.requests.filter((request) => request.method === 'GET')).toHaveLength(2);
});
