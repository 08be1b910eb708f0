/**
 * Filtering a sorted store keeps the order it knows (API.md sections 8 and 12, issue 30): a
 * filter is one pass over the sorted records, clearFilter() shows them again in that order; no
 * full sort. Counted with a sorter function: each call is one comparison.
 */
import { describe, expect, it } from 'vitest';
import { Model, Store } from '../../src/index.js';

interface Row {
  id: number;
  name: string;
  age: number;
}

class Person extends Model<Row> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', { name: 'age', type: 'int' }];
}

const N = 2000;
const nameOf = (record: unknown): string => (record instanceof Person ? record.get('name') : '');
const rows = (): Row[] => Array.from({ length: N }, (_, i) => ({ id: i + 1, name: `n${(i * 7919) % N}`, age: (i * 31) % 60 }));

function counted(): { store: Store<Person>; calls: () => number } {
  let calls = 0;
  const store = new Store<Person>({
    model: Person,
    data: rows(),
    sorters: [{ property: 'name', sorterFn: (a: unknown, b: unknown) => (calls++, nameOf(a).localeCompare(nameOf(b))) }],
  });
  store.getCount(); // sorted once
  return { store, calls: () => calls };
}

const names = (store: Store<Person>): string[] => store.getRange().map((record) => String(record.get('name')));
const sortedNames = (records: readonly Row[]): string[] => records.map((row) => row.name).sort((a, b) => a.localeCompare(b));

describe('filtering a sorted store', () => {
  it('filter() and clearFilter() compare no records again, and keep the order', async () => {
    const { store, calls } = counted();
    const before = calls();
    await store.filter('age', 42);
    expect(names(store)).toEqual(sortedNames(rows().filter((row) => row.age === 42)));
    await store.filter([{ property: 'age', operator: '<', value: 10 }]);
    expect(names(store)).toEqual(sortedNames(rows().filter((row) => row.age < 10)));
    await store.clearFilter();
    expect(names(store)).toEqual(sortedNames(rows()));
    expect(calls() - before).toBe(0);
  });

  it('an edit while filtered moves the hidden record too: clearFilter() shows it in its place', async () => {
    const { store, calls } = counted();
    await store.filter('age', 42);
    const hidden = store.getById(2);
    expect(hidden?.get('age')).not.toBe(42);
    hidden?.set('name', 'zzz');
    expect(store.getCount()).toBe(rows().filter((row) => row.age === 42).length);
    const before = calls();
    await store.clearFilter();
    expect(names(store).at(-1)).toBe('zzz');
    expect(calls() - before).toBe(0);
    const expected = rows().map((row) => (row.id === 2 ? { ...row, name: 'zzz' } : row));
    expect(names(store)).toEqual(sortedNames(expected));
  });

  it('a snapshot taken before the filter keeps its records; edits after clearFilter() still move records', async () => {
    const store = new Store<Person>({ model: Person, data: rows(), sorters: [{ property: 'name', direction: 'ASC' }] });
    const first = store.getSnapshot().records;
    await store.filter('age', 42);
    const filtered = store.getSnapshot().records;
    expect(filtered.length).toBeLessThan(first.length);
    await store.clearFilter();
    store.getById(1)?.set('name', 'zzzz');
    expect(store.getSnapshot().records.at(-1)?.get('name')).toBe('zzzz');
    expect(first.length).toBe(N);
    expect(first.at(-1)).not.toBe(store.getById(1));
    store.getById(1)?.set('name', 'a');
    expect(store.getAt(0)?.getId()).toBe(1);
  });
});
