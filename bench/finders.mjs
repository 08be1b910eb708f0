/**
 * Section 9 of npm run bench (issue 30): finders, live summaries and chained stores at 100,000
 * records, each as a ratio to its reference, run in the same process and alternated round by
 * round (median of the per-round ratios):
 * - one edit of a record (sort key of a ChainedStore sorted and filtered differently, a value a
 *   subscribed summary of sum, average, min, max and count reads), with the snapshots of the
 *   store, the chained store and the summary read, against one copy of the records array (<= 1.5x);
 * - filter() then clearFilter() of a store sorted by name, against Array.prototype.filter (<= 3x);
 * - sum() against a plain loop over the records (<= 2x);
 * - a ChainedStore's construction (sorted by another field), against a sort of its records (<= 2x).
 */
import { median } from './cases.mjs';
import { makeUsers } from './data.mjs';

const time = (fn, reps) => {
  const start = performance.now();
  for (let i = 0; i < reps; i++) fn(i);
  return (performance.now() - start) / reps;
};

export function findersSection({ lib, n = 100_000, quick, gc, log }) {
  const { Model, Store, ChainedStore, sum, average, min, max, count } = lib;
  class User extends Model {
    static fields = [{ name: 'id', type: 'int' }, 'name', 'email', { name: 'age', type: 'int' }, { name: 'active', type: 'boolean' }, 'created'];
  }
  const rounds = quick ? 5 : 15;
  const rows = makeUsers(n);
  const store = new Store({ model: User, pageSize: 0, data: rows, sorters: [{ property: 'name', direction: 'ASC' }] });
  const records = store.getRange();
  const chained = new ChainedStore({ source: store, sorters: [{ property: 'age', direction: 'DESC' }], filters: [{ property: 'active', value: true }] });
  const totals = store.summarize({ total: sum('age'), mean: average('age'), low: min('age'), high: max('age'), n: count() });
  const unsubscribe = [store.subscribe(() => {}), chained.subscribe(() => {}), totals.subscribe(() => {})];
  const ratios = { edit: [], filter: [], sum: [], chained: [] };
  let sink = 0;
  for (let round = 0; round < rounds + 2; round++) {
    gc?.();
    const copy = time(() => { sink += [...records].length; }, 50);
    const edit = time((i) => {
      records[(i * 7919 + round) % n].set('age', 18 + ((i + round) % 60));
      sink += store.getSnapshot().records.length + chained.getSnapshot().records.length + totals.getSnapshot().values.n;
    }, 50);
    const plainFilter = time(() => { sink += records.filter((record) => record.get('age') === 42).length; }, 10);
    const filtered = time(() => {
      store.filter('age', 42);
      sink += store.getCount();
      store.clearFilter();
      sink += store.getCount();
    }, 5) / 2;
    const loop = time(() => {
      let total = 0;
      for (const record of records) total += record.get('age');
      sink += total;
    }, 20);
    const summed = time(() => { sink += store.sum('age'); }, 20);
    const shown = chained.getRange();
    const sorted = time(() => { sink += [...shown].sort((a, b) => (a.get('email') < b.get('email') ? -1 : a.get('email') > b.get('email') ? 1 : 0)).length; }, 3);
    const built = time(() => {
      const other = new ChainedStore({ source: store, sorters: [{ property: 'email', direction: 'ASC' }], filters: [{ property: 'active', value: true }] });
      sink += other.getCount();
      other.destroy();
    }, 3);
    if (round < 2) continue; // warm-up
    ratios.edit.push(edit / copy);
    ratios.filter.push(filtered / plainFilter);
    ratios.sum.push(summed / loop);
    ratios.chained.push(built / sorted);
  }
  for (const stop of unsubscribe) stop();
  log(`bench: finders done (${sink > 0 ? 'ok' : '?'})`);
  return Object.fromEntries(Object.entries(ratios).map(([name, values]) => [name, { ratio: median(values), runs: values }]));
}
