/**
 * Review of 5ef37db..d060071 (1024dda, the local-group fast path): a chained store's getGroups()
 * gives the records in the order it shows them (getRange), also after its source inserted a
 * record in the middle of its list (the chained store places it among its ties as added last).
 */
import { describe, expect, it } from 'vitest';
import { ChainedStore, Model, Store } from '../../src/index.js';

class Thing extends Model<{ id: number; v: number }> {
  static override fields = [{ name: 'id', type: 'int' }, { name: 'v', type: 'int' }];
}

describe('ChainedStore.getGroups after the source inserts a record', () => {
  it('lists each group\'s records in the order getRange() shows them', () => {
    const source = new Store<Thing>({ model: Thing, data: [{ id: 1, v: 1 }, { id: 2, v: 1 }, { id: 3, v: 2 }] });
    const chained = new ChainedStore<Thing>({ source, groupField: 'v' });
    expect(chained.getRange().map((record) => record.getId())).toEqual([1, 2, 3]); // read: the view is kept from here on
    source.insert(1, { id: 4, v: 1 });
    const shown = chained.getRange().map((record) => record.getId());
    const grouped = chained.getGroups().flatMap((group) => group.records.map((record) => record.getId()));
    expect(grouped).toEqual(shown);
    expect(chained.getGroups().map((group) => group.name)).toEqual([1, 2]);
  });
});
