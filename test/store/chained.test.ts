/**
 * ChainedStore (API.md section 12, issue 30): the source's shown records (the same objects) with
 * its own sort, filter and grouping kept as records change; adds and removes go to the source;
 * chains of chains; destroy() releases it; destroying the source destroys it.
 */
import { describe, expect, it } from 'vitest';
import { ChainedStore, Model, onlineManager, RestProxy, Store, sum } from '../../src/index.js';
import { startTestServer } from '../server/index.js';

interface Row {
  id: number;
  name: string;
  region: string;
  amount: number;
}

class Order extends Model<Row> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', 'region', { name: 'amount', type: 'number' }];
}

const ROWS: Row[] = [
  { id: 1, name: 'd', region: 'north', amount: 10 },
  { id: 2, name: 'b', region: 'south', amount: 20 },
  { id: 3, name: 'a', region: 'north', amount: 30 },
  { id: 4, name: 'c', region: 'south', amount: 5 },
  { id: 5, name: 'e', region: 'north', amount: 1 },
];

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
const orders = (config: ConstructorParameters<typeof Store<Order>>[0] = {}): Store<Order> => new Store<Order>({ model: Order, data: ROWS.map((row) => ({ ...row })), ...config });
const ids = (store: { getRange(): Order[] }): unknown[] => store.getRange().map((record) => record.getId());

function record(store: Store<Order>, id: number): Order {
  const found = store.getById(id);
  if (found === undefined) throw new Error(`no record ${id}`);
  return found;
}

describe('ChainedStore', () => {
  it('shows the source\'s records (the same objects) that pass its filters, in its own order', () => {
    const source = orders({ sorters: [{ property: 'name', direction: 'ASC' }] });
    const north = new ChainedStore({ source, filters: [{ property: 'region', value: 'north' }] });
    expect(ids(north)).toEqual([3, 1, 5]);
    expect(north.getAt(0)).toBe(source.getById(3));
    const byAmount = new ChainedStore({ source, sorters: [{ property: 'amount', direction: 'DESC' }] });
    expect(ids(byAmount)).toEqual([3, 2, 1, 4, 5]);
    expect(ids(source)).toEqual([3, 2, 4, 1, 5]);
    expect(north.getTotalCount()).toBe(3);
    expect(north.sum('amount')).toBe(41);
    expect(north.findRecord('name', 'e')?.getId()).toBe(5);
    expect(north.getById(2)).toBe(source.getById(2));
  });

  it('follows edits, adds and removes of the source, and the source\'s filter', async () => {
    const source = orders();
    const north = new ChainedStore({ source, filters: [{ property: 'region', value: 'north' }], sorters: [{ property: 'amount', direction: 'ASC' }] });
    const snapshot = north.getSnapshot();
    record(source, 2).set('region', 'north');
    expect(ids(north)).toEqual([5, 1, 2, 3]);
    expect(north.getSnapshot()).not.toBe(snapshot);
    record(source, 3).set('amount', 0);
    expect(ids(north)).toEqual([3, 5, 1, 2]);
    source.add({ id: 6, name: 'f', region: 'north', amount: 2 });
    expect(ids(north)).toEqual([3, 5, 6, 1, 2]);
    source.remove(record(source, 5));
    expect(ids(north)).toEqual([3, 6, 1, 2]);
    await source.filter([{ property: 'amount', operator: '>=', value: 2 }]);
    expect(ids(north)).toEqual([6, 1, 2]);
    await source.clearFilter();
    expect(ids(north)).toEqual([3, 6, 1, 2]);
  });

  it('without a sort or filter of its own: follows adds, edits and removes of an unsorted source, filtered or not', async () => {
    const source = orders();
    const plain = new ChainedStore({ source });
    expect(ids(plain)).toEqual([1, 2, 3, 4, 5]);
    plain.getSnapshot(); // read once: what it shows is kept from here on
    source.add({ id: 6, name: 'f', region: 'north', amount: 2 });
    source.remove(record(source, 1));
    expect(ids(plain)).toEqual([2, 3, 4, 5, 6]);
    expect(plain.getSnapshot().records.map((shown) => shown.getId())).toEqual([2, 3, 4, 5, 6]);
    await source.filter('region', 'north');
    expect(ids(plain)).toEqual([3, 5, 6]);
    source.remove(record(source, 3));
    record(source, 2).set('region', 'north');
    record(source, 5).set('region', 'south');
    expect(ids(plain)).toEqual(ids(source));
    expect(ids(plain)).toEqual([2, 6]);
  });

  it('its own sort, filter and group; adds and removes go to the source; it notifies once per run', async () => {
    const source = orders();
    const view = new ChainedStore({ source });
    expect(ids(view)).toEqual([1, 2, 3, 4, 5]);
    let heard = 0;
    view.subscribe(() => heard++);
    heard = 0;
    await view.sort('name');
    expect(ids(view)).toEqual([3, 2, 4, 1, 5]);
    await view.filter('region', 'south');
    expect(ids(view)).toEqual([2, 4]);
    await view.clearFilter();
    await view.group('region');
    expect(view.getGroups().map((group) => group.name)).toEqual(['north', 'south']);
    expect([...view.sum('amount', { grouped: true })]).toEqual([['north', 41], ['south', 25]]);
    await view.clearGrouping();
    const [added] = view.add({ id: 7, name: 'aa', region: 'east', amount: 3 });
    expect(source.getById(7)).toBe(added);
    expect(ids(view)[1]).toBe(7);
    view.removeAll();
    expect(source.getCount()).toBe(0);
    expect(source.getRemovedRecords().length).toBe(6);
    await settle();
    expect(heard).toBeGreaterThan(0);
    expect(heard).toBeLessThanOrEqual(6);
  });

  it('chains of chains; a summary on a chained store', () => {
    const source = orders();
    const north = new ChainedStore({ source, filters: [{ property: 'region', value: 'north' }] });
    const big = new ChainedStore({ source: north, filters: [{ property: 'amount', operator: '>=', value: 10 }], sorters: [{ property: 'amount', direction: 'DESC' }] });
    const totals = big.summarize({ total: sum('amount') });
    expect(ids(big)).toEqual([3, 1]);
    expect(totals.getSnapshot().values.total).toBe(40);
    record(source, 5).set('amount', 50);
    expect(ids(big)).toEqual([5, 3, 1]);
    expect(totals.getSnapshot().values.total).toBe(90);
    record(source, 3).set('region', 'south');
    expect(ids(big)).toEqual([5, 1]);
    expect(totals.getSnapshot().values.total).toBe(60);
  });

  it("a chain of chains shows the source's loading (a spinner for a first load, none for a reload) and keeps the source refetching on reconnect", async () => {
    const server = await startTestServer({ resources: { orders: ROWS.map((row) => ({ ...row })) } });
    try {
      const source = new Store<Order>({ model: Order, proxy: new RestProxy({ url: `${server.url}/orders` }) });
      const north = new ChainedStore({ source, filters: [{ property: 'region', value: 'north' }] });
      const big = new ChainedStore({ source: north, sorters: [{ property: 'amount', direction: 'DESC' }] });
      const seen: boolean[] = [];
      const stop = big.subscribe((snapshot) => seen.push(snapshot.loading));
      const first = source.load();
      expect([north.getSnapshot().loading, big.getSnapshot().loading]).toEqual([true, true]);
      await first;
      await settle();
      expect(ids(big)).toEqual([3, 1, 5]);
      expect(seen).toEqual([false, true, false]);
      const again = source.reload();
      expect([source.getSnapshot().loading, big.loading, big.getSnapshot().loading]).toEqual([false, true, false]);
      await again;
      onlineManager.setOnline(false);
      onlineManager.setOnline(true);
      for (let i = 0; i < 20 && server.requests.length < 3; i++) await settle();
      stop();
      onlineManager.setOnline(false);
      onlineManager.setOnline(true);
      await settle();
      expect(server.requests.map((request) => request.method)).toEqual(['GET', 'GET', 'GET']);
    } finally {
      onlineManager.setOnline(true);
      await server.close();
    }
  });

  it('destroy() releases it; destroying the source destroys its chained stores; bad config is a TypeError', async () => {
    const source = orders();
    const north = new ChainedStore({ source, filters: [{ property: 'region', value: 'north' }] });
    const shown = ids(north);
    north.destroy();
    expect(() => north.add({ id: 9 })).toThrow(TypeError);
    expect(source.getCount()).toBe(5);
    record(source, 2).set('region', 'north');
    expect(ids(north)).toEqual(shown);
    const other = new ChainedStore({ source });
    source.destroy();
    expect(() => other.remove([])).toThrow(TypeError);
    // @ts-expect-error not a store
    expect(() => new ChainedStore({ source: [] })).toThrow(/source/);
    // @ts-expect-error an option a chained store does not have
    expect(() => new ChainedStore({ source: orders(), pageSize: 10 })).toThrow(/pageSize/);
    // @ts-expect-error a misspelt field
    expect(() => new ChainedStore({ source: orders(), sorters: [{ property: 'nmae' }] })).toThrow(/nmae/);
    await settle();
  });
});
