/**
 * A live summary an app subscribed to and then let go of keeps following its store: the store
 * holds its summaries (chained stores weakly, section 12), until `destroy()`. The demo's total
 * stopped following edits in Chromium once the summary was collected.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { Model, Store, sum } from '../../src/index.js';

class Order extends Model<{ id: number; amount: number }> {
  static override fields = [{ name: 'id', type: 'int' }, { name: 'amount', type: 'number' }];
}

setFlagsFromString('--expose-gc');
const gc: unknown = runInNewContext('gc');

function follow(store: Store<Order>, seen: number[]): void {
  // The summary is not kept by the caller: only its subscription is.
  store.summarize({ total: sum('amount') }).subscribe((snapshot) => seen.push(snapshot.values.total));
}

it('a subscribed summary the app does not keep still follows edits after a garbage collection', async () => {
  const store = new Store<Order>({ model: Order, data: [{ id: 1, amount: 10 }, { id: 2, amount: 20 }] });
  const seen: number[] = [];
  follow(store, seen);
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (typeof gc === 'function') gc();
  }
  store.getById(1)?.set('amount', 15);
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(seen.at(-1)).toBe(35);
});
