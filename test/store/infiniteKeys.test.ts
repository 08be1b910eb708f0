/**
 * Sorting on equal infinite keys (issue 29 item 5): `Infinity - Infinity` is NaN, which is neither
 * a tie nor an order, so a comparator that subtracts ignores the next sorter and the order then
 * depends on the edit history. Every comparison is made without subtraction: a store's local sort,
 * its view kept as records change, a MemoryProxy's sort and a filter with `<=`/`>=`.
 */
import { describe, expect, it } from 'vitest';
import { MemoryProxy, Model, Store } from '../../src/index.js';

interface Row {
  id: number;
  score: number;
  name: string;
}

class Entry extends Model<Row> {
  static override fields = [{ name: 'id', type: 'int' }, { name: 'score', type: 'number' }, 'name'];
}

const ROWS: Row[] = [
  { id: 1, score: Infinity, name: 'Dan' },
  { id: 2, score: -Infinity, name: 'Zoe' },
  { id: 3, score: Infinity, name: 'Al' },
  { id: 4, score: 5, name: 'Bea' },
  { id: 5, score: -Infinity, name: 'Cy' },
  { id: 6, score: Infinity, name: 'Bo' },
];

const names = (records: readonly Entry[]): string[] => records.map((record) => record.get('name'));

describe('equal infinite sort keys', () => {
  it('a store sorted locally lets the next sorter decide between equal infinite keys', () => {
    const store = new Store<Entry>({ model: Entry, data: ROWS.map((row) => ({ ...row })), sorters: [{ property: 'score' }, { property: 'name' }] });
    expect(names(store.getRange())).toEqual(['Cy', 'Zoe', 'Bea', 'Al', 'Bo', 'Dan']);
  });

  it('descending too', () => {
    const store = new Store<Entry>({ model: Entry, data: ROWS.map((row) => ({ ...row })), sorters: [{ property: 'score', direction: 'DESC' }, { property: 'name', direction: 'DESC' }] });
    expect(names(store.getRange())).toEqual(['Dan', 'Bo', 'Al', 'Bea', 'Zoe', 'Cy']);
  });

  it('the order does not depend on the edit history: records edited one by one land where a fresh sort puts them', () => {
    const store = new Store<Entry>({ model: Entry, data: ROWS.map((row) => ({ ...row, score: 0 })), sorters: [{ property: 'score' }, { property: 'name' }] });
    store.getSnapshot();
    for (const row of [...ROWS].reverse()) {
      store.getById(row.id)?.set('score', row.score);
      store.getSnapshot();
    }
    expect(names(store.getSnapshot().records)).toEqual(['Cy', 'Zoe', 'Bea', 'Al', 'Bo', 'Dan']);
    store.getById(3)?.set('name', 'Ed');
    expect(names(store.getSnapshot().records)).toEqual(['Cy', 'Zoe', 'Bea', 'Bo', 'Dan', 'Ed']);
  });

  it('a MemoryProxy sorts the same way', async () => {
    const store = new Store<Entry>({ model: Entry, proxy: new MemoryProxy({ data: ROWS.map((row) => ({ ...row })) }), remoteSort: true, sorters: [{ property: 'score' }, { property: 'name' }] });
    await store.load();
    expect(names(store.getRange())).toEqual(['Cy', 'Zoe', 'Bea', 'Al', 'Bo', 'Dan']);
  });

  it('a filter `>=` Infinity keeps the infinite keys', () => {
    const store = new Store<Entry>({ model: Entry, data: ROWS.map((row) => ({ ...row })), filters: [{ property: 'score', operator: '>=', value: Infinity }] });
    expect(names(store.getRange()).sort()).toEqual(['Al', 'Bo', 'Dan']);
  });
});
