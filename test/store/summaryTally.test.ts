/**
 * Live summaries kept by tallies (issue 30): min and max keep an extreme that several records
 * share until the last of them leaves; a filter counts what it shows and clearing it takes back
 * the tally of every record, edits made while filtered included; a seeded run of adds, removes,
 * edits, filters and groupings always agrees with the one-shot aggregates.
 */
import { describe, expect, it } from 'vitest';
import { average, ChainedStore, count, max, min, Model, Store, sum } from '../../src/index.js';

interface Row {
  id: number;
  region: string;
  amount: number | null;
}

class Order extends Model<Row> {
  static override fields = [{ name: 'id', type: 'int' }, 'region', { name: 'amount', type: 'number', allowNull: true }];
}

const spec = { total: sum('amount'), mean: average('amount'), low: min('amount'), high: max('amount'), n: count(), priced: count('amount') };

function byId(store: Store<Order>, id: number): Order {
  const found = store.getById(id);
  if (found === undefined) throw new Error(`no record ${id}`);
  return found;
}

/** What the one-shot aggregates say (the live summary must say the same). */
function oneShot(store: Store<Order> | ChainedStore<Order>): Record<string, unknown> {
  return { total: store.sum('amount'), mean: store.average('amount'), low: store.min('amount'), high: store.max('amount'), n: store.count(), priced: store.count('amount') };
}

describe('live summary tallies', () => {
  it('keeps a shared extreme until the last record holding it leaves', () => {
    const store = new Store<Order>({ model: Order, data: [1, 2, 3, 4].map((id) => ({ id, region: 'n', amount: id <= 2 ? 1 : id === 3 ? 9 : 9 })) });
    const live = store.summarize(spec);
    expect(live.getSnapshot().values).toMatchObject({ low: 1, high: 9 });
    byId(store, 1).set('amount', 5);
    expect(live.getSnapshot().values).toMatchObject({ low: 1, high: 9 });
    byId(store, 2).set('amount', 6);
    expect(live.getSnapshot().values).toMatchObject({ low: 5, high: 9 });
    store.remove(byId(store, 3));
    expect(live.getSnapshot().values).toMatchObject({ low: 5, high: 9 });
    byId(store, 4).set('amount', null);
    expect(live.getSnapshot().values).toMatchObject({ low: 5, high: 6, priced: 2 });
  });

  it('clearing a filter counts again the records edited, added and removed while it hid them', () => {
    const store = new Store<Order>({ model: Order, data: [1, 2, 3, 4].map((id) => ({ id, region: id % 2 ? 'n' : 's', amount: id * 10 })) });
    const live = store.summarize(spec);
    expect(live.getSnapshot().values).toMatchObject({ total: 100, n: 4 });
    void store.filter('region', 'n');
    expect(live.getSnapshot().values).toMatchObject({ total: 40, low: 10, high: 30, n: 2 });
    byId(store, 2).set('amount', 1);
    byId(store, 4).set('region', 'n');
    store.add({ id: 5, region: 's', amount: 7 });
    store.remove(byId(store, 3));
    expect(live.getSnapshot().values).toEqual({ total: 50, mean: 25, low: 10, high: 40, n: 2, priced: 2 });
    void store.clearFilter();
    expect(live.getSnapshot().values).toEqual({ total: 58, mean: 58 / 4, low: 1, high: 40, n: 4, priced: 4 });
    expect(live.getSnapshot().values).toEqual(oneShot(store));
  });

  it('agrees with the one-shot aggregates through a seeded run of changes (store and chained store, grouped or not)', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const regions = ['n', 's', 'e'];
    const store = new Store<Order>({ model: Order, data: Array.from({ length: 40 }, (_, i) => ({ id: i + 1, region: regions[i % 3] ?? 'n', amount: i % 7 === 0 ? null : (i * 13) % 11 })) });
    const chained = new ChainedStore<Order>({ source: store, sorters: [{ property: 'amount', direction: 'DESC' }], filters: [{ property: 'region', value: 's', operator: '!=' }] });
    const summaries = [store.summarize(spec), chained.summarize(spec), store.summarize(spec, { bypassFilter: true })];
    let nextId = 100;
    for (let step = 0; step < 400; step++) {
      const records = store.getRange(undefined, undefined);
      const some = records[random(records.length)];
      switch (random(9)) {
        case 0: store.add({ id: nextId++, region: regions[random(3)] ?? 'n', amount: random(5) === 0 ? null : random(12) }); break;
        case 1: if (some !== undefined && records.length > 5) store.remove(some); break;
        case 2: void store.filter('amount', random(12), '>='); break;
        case 3: void store.clearFilter(); break;
        case 4: if (random(2) === 0) void store.group('region'); else void store.clearGrouping(); break;
        case 5: if (random(2) === 0) void chained.filter('amount', random(12), '<'); else void chained.clearFilter(); break;
        case 6: some?.set('region', regions[random(3)] ?? 'n'); break;
        default: some?.set('amount', random(6) === 0 ? null : random(12));
      }
      if (random(3) > 0) continue; // several changes between reads, too
      const [own, ofChained, bypass] = summaries.map((summary) => summary.getSnapshot());
      expect(own?.values, `step ${step}`).toEqual(oneShot(store));
      expect(ofChained?.values, `step ${step}`).toEqual(oneShot(chained));
      expect(bypass?.values, `step ${step}`).toEqual({ total: store.sum('amount', { bypassFilter: true }), mean: store.average('amount', { bypassFilter: true }), low: store.min('amount', { bypassFilter: true }), high: store.max('amount', { bypassFilter: true }), n: store.count({ bypassFilter: true }), priced: store.count('amount', { bypassFilter: true }) });
      if (store.groupField !== undefined) {
        const totals = new Map([...(own?.groups ?? new Map<unknown, { total: number }>())].map(([name, values]) => [name, values.total]));
        expect(totals, `step ${step}`).toEqual(store.sum('amount', { grouped: true }));
      }
    }
  });
});
