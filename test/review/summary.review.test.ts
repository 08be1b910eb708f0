/**
 * Hostile review (s5-review) of live summaries (API.md section 12): a failing test of a confirmed
 * bug, marked `it.fails` so the branch stays green. Local data only: no request is involved.
 * (Found by a seeded differential run of random edits, removes, rejects, loads, filters and
 * regroupings against the one-shot aggregates; this is its smallest case.)
 */
import { expect, it } from 'vitest';
import { Model, Store, sum } from '../../src/index.js';

class Order extends Model<{ id: number; region: string; amount: number }> {
  static override entityName = 'Order';
  static override fields = [{ name: 'id', type: 'int' }, 'region', { name: 'amount', type: 'number' }];
}

// User sees: in a "totals per region" panel (a grouped live summary), editing the amount of the
// only order of a region makes that region vanish from the panel, while the grand total counts
// the new amount. The summary computes the record's group (the existing one), takes the record
// out (the group empties, so it leaves the map), then puts the record back into the group object
// it computed first, which is no longer in the map.
// API.md section 12: `groups` maps each group name to its values ("an emptied group leaves");
// one-shot `sum('amount', { grouped: true })` of the same store lists both regions.
it("editing the only record of a group keeps that group in a grouped live summary", () => {
  const store = new Store<Order>({
    model: Order,
    groupField: 'region',
    data: [{ id: 1, region: 'north', amount: 10 }, { id: 2, region: 'south', amount: 20 }],
  });
  const totals = store.summarize({ total: sum('amount') });
  expect([...totals.getSnapshot().groups.keys()]).toEqual(['north', 'south']);
  store.getById(2)?.set('amount', 25);
  expect([...store.sum('amount', { grouped: true })]).toEqual([['north', 10], ['south', 25]]);
  expect(totals.getSnapshot().values).toEqual({ total: 35 });
  expect([...totals.getSnapshot().groups].map(([name, values]) => [name, values.total])).toEqual([['north', 10], ['south', 25]]);
});
