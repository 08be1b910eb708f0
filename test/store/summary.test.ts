/**
 * Live summaries (API.md section 12, issue 30): store.summarize({ total: sum('amount'), ... })
 * follows adds, removes, edits, rejects, loads and filters; one notification per synchronous run;
 * the same snapshot for an edit no aggregator reads; per group; destroy stops it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { average, count, max, min, Model, RestProxy, Store, sum } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';

interface Row {
  id: number;
  name: string;
  region: string;
  amount: number | null;
}

class Order extends Model<Row> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', 'region', { name: 'amount', type: 'number', allowNull: true }];
}

const ROWS: Row[] = [
  { id: 1, name: 'a', region: 'north', amount: 10 },
  { id: 2, name: 'b', region: 'south', amount: 20 },
  { id: 3, name: 'c', region: 'north', amount: null },
  { id: 4, name: 'd', region: 'south', amount: 5 },
];

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
const orders = (config: ConstructorParameters<typeof Store<Order>>[0] = {}): Store<Order> => new Store<Order>({ model: Order, data: ROWS.map((row) => ({ ...row })), ...config });
const spec = { total: sum('amount'), mean: average('amount'), low: min('amount'), high: max('amount'), n: count(), priced: count('amount') };

function record(store: Store<Order>, id: number): Order {
  const found = store.getById(id);
  if (found === undefined) throw new Error(`no record ${id}`);
  return found;
}

describe('store.summarize', () => {
  it('starts with the store\'s aggregates and follows adds, removes and edits', () => {
    const store = orders();
    const live = store.summarize(spec);
    expect(live.getSnapshot().values).toEqual({ total: 35, mean: 35 / 3, low: 5, high: 20, n: 4, priced: 3 });
    expect(live.getSnapshot().partial).toBe(false);
    store.add({ id: 5, name: 'e', region: 'east', amount: 1 });
    expect(live.getSnapshot().values).toMatchObject({ total: 36, low: 1, n: 5 });
    store.remove(record(store, 5));
    expect(live.getSnapshot().values).toMatchObject({ total: 35, low: 5, n: 4 });
    record(store, 2).set('amount', 2);
    expect(live.getSnapshot().values).toEqual({ total: 17, mean: 17 / 3, low: 2, high: 10, n: 4, priced: 3 });
    record(store, 3).set('amount', 100);
    expect(live.getSnapshot().values).toMatchObject({ total: 117, high: 100, priced: 4 });
    for (const name of ['total', 'mean', 'low', 'high', 'n'] as const) {
      expect(live.getSnapshot().values[name]).toEqual({ total: store.sum('amount'), mean: store.average('amount'), low: store.min('amount'), high: store.max('amount'), n: store.count() }[name]);
    }
  });

  it('keeps its snapshot for an edit no aggregator reads, and notifies once per synchronous run', async () => {
    const store = orders();
    const live = store.summarize({ total: sum('amount') });
    const heard: unknown[] = [];
    live.subscribe((snapshot) => heard.push(snapshot.values.total));
    const before = live.getSnapshot();
    record(store, 1).set('name', 'renamed');
    await settle();
    expect(live.getSnapshot()).toBe(before);
    record(store, 1).set('amount', 11);
    record(store, 2).set('amount', 21);
    store.add({ id: 9, amount: 3 });
    await settle();
    expect(heard).toEqual([35, 40]);
  });

  it('follows reject and filters; with bypassFilter counts the hidden records', async () => {
    const store = orders();
    const shown = store.summarize({ total: sum('amount'), n: count() });
    const all = store.summarize({ total: sum('amount'), n: count() }, { bypassFilter: true });
    record(store, 1).set('amount', 1000);
    expect(shown.getSnapshot().values.total).toBe(1025);
    store.rejectChanges();
    expect(shown.getSnapshot().values.total).toBe(35);
    await store.filter('region', 'south');
    expect(shown.getSnapshot().values).toEqual({ total: 25, n: 2 });
    expect(all.getSnapshot().values).toEqual({ total: 35, n: 4 });
    record(store, 1).set('region', 'south');
    expect(shown.getSnapshot().values).toEqual({ total: 35, n: 3 });
    await store.clearFilter();
    expect(shown.getSnapshot().values).toEqual({ total: 35, n: 4 });
  });

  it('per group: a Map in group order, an emptied group leaves; min and max after their extreme leaves', async () => {
    const store = orders({ groupField: 'region' });
    const live = store.summarize({ total: sum('amount'), high: max('amount') });
    expect([...live.getSnapshot().groups]).toEqual([['north', { total: 10, high: 10 }], ['south', { total: 25, high: 20 }]]);
    record(store, 2).set('amount', 1);
    expect(live.getSnapshot().groups.get('south')).toEqual({ total: 6, high: 5 });
    record(store, 1).set('region', 'east');
    expect([...live.getSnapshot().groups.keys()]).toEqual(['east', 'north', 'south']);
    store.remove([record(store, 3)]);
    expect([...live.getSnapshot().groups.keys()]).toEqual(['east', 'south']);
    await store.clearGrouping();
    expect(live.getSnapshot().groups.size).toBe(0);
    expect(live.getSnapshot().values).toEqual({ total: 16, high: 10 });
  });

  it('a value of another kind is a TypeError when read; an entry not an aggregator is a TypeError naming it', () => {
    const store = new Store({ data: [{ id: 1, amount: 1 }, { id: 2, amount: 'x' }] });
    const live = store.summarize({ total: sum('amount') });
    expect(() => live.getSnapshot()).toThrow(/sum\('amount'\)/);
    store.getById(2)?.set('amount', 2);
    expect(live.getSnapshot().values.total).toBe(3);
    // @ts-expect-error not an aggregator
    expect(() => store.summarize({ total: 'sum' })).toThrow(/"total"/);
    // @ts-expect-error a misspelt field
    expect(() => orders().summarize({ total: sum('amout') })).toThrow(/amout/);
  });

  it('destroy() stops it; the store\'s destroy() destroys its summaries', async () => {
    const store = orders();
    const live = store.summarize({ total: sum('amount') });
    let heard = 0;
    live.subscribe(() => heard++);
    store.destroy();
    await settle();
    const after = heard;
    record(orders(), 1).set('amount', 5);
    await settle();
    expect(heard).toBe(after);
  });
});

describe('a paged store loaded from a real server', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({ envelope: true, resources: { orders: Array.from({ length: 30 }, (_, i) => ({ id: i + 1, name: `o${i}`, region: i % 2 ? 'north' : 'south', amount: i + 1 })) } });
  });
  afterEach(async () => {
    await server.close();
  });

  it('covers the loaded page, says partial, and follows the next load', async () => {
    const store = new Store<Order>({ model: Order, pageSize: 10, proxy: new RestProxy({ url: `${server.url}/orders`, reader: { rootProperty: 'data', totalProperty: 'total' } }) });
    const live = store.summarize({ total: sum('amount'), n: count() });
    await store.load();
    expect(live.getSnapshot()).toMatchObject({ values: { total: 55, n: 10 }, partial: true });
    expect(store.sum('amount')).toBe(55);
    expect(store.getTotalCount()).toBe(30);
    await store.loadPage(2);
    expect(live.getSnapshot().values).toEqual({ total: 155, n: 10 });
  });
});
