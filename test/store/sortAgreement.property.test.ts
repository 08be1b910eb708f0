/**
 * One order for the same values wherever they are sorted: a store's local sort (its view's sort
 * keys, store/viewKeys.ts), `comparator` (util/sorting.ts, which sorts plain arrays) and a
 * MemoryProxy's sorted read. Empty values (undefined, null, NaN and an invalid Date, whose time
 * is NaN) go last ascending, first descending; Dates by time, numbers by value, strings by code
 * point, other mixes by their text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryProxy, Model, Operation, Store, type SorterOf } from '../../src/index.js';
import { comparator } from '../../src/util/sorting.js';

interface Row {
  id: number;
  when: unknown;
  other: unknown;
}

// Untyped fields: a 'date' field turns an invalid Date away, data and `set` of an untyped one keep it.
class Event extends Model<Row> {
  static override fields = [{ name: 'id', type: 'int' }, 'when', 'other'];
}

const DATE = fc.oneof(
  fc.constantFrom(0, 1, 86_400_000, -86_400_000, 1_700_000_000_000).map((time) => new Date(time)),
  fc.constant(null).map(() => new Date('x')),
  fc.constantFrom(null, undefined),
);
// Mixes the two comparators must also agree on: numbers (NaN and infinities), numeric text, booleans, objects.
const ODD = fc.oneof(DATE, fc.constantFrom(NaN, Infinity, -Infinity, 0, -0, 9, 10, '9', '10', '', 'a', 'B', true, false, { a: 1 }, [1, 2]));
const FIELD = fc.constantFrom('when' as const, 'other' as const);
const SORTER: fc.Arbitrary<SorterOf<Event>> = fc.record({ property: FIELD, direction: fc.constantFrom('ASC' as const, 'DESC' as const) });
const ROWS = fc.array(fc.record({ when: DATE, other: ODD }), { maxLength: 25 }).map((rows) => rows.map((row, index) => ({ id: index + 1, ...row })));
const EDITS = fc.array(fc.record({ at: fc.nat({ max: 30 }), field: FIELD, value: ODD }), { maxLength: 10 });

const read = (item: Row | Event, property: string): unknown => {
  const name = property === 'when' ? 'when' : 'other';
  return item instanceof Event ? item.get(name) : item[name];
};
const ids = (items: readonly (Row | Event)[]): unknown[] => items.map((item) => (item instanceof Event ? item.getId() : item.id));

describe('a store, comparator and a MemoryProxy sort the same values in the same order', () => {
  it('dates valid and invalid, null and undefined, and odd mixes, sorted and then edited', async () => {
    await fc.assert(
      fc.asyncProperty(ROWS, fc.array(SORTER, { minLength: 1, maxLength: 2 }), EDITS, async (rows, sorters, edits) => {
        const store = new Store({ model: Event, data: rows.map((row) => ({ ...row })), sorters });
        const added = rows.flatMap((row) => store.getById(row.id) ?? []); // in the order loaded: ties keep it
        expect(ids(store.getRange())).toEqual(ids([...rows].sort(comparator(sorters, read))));
        const proxy = new MemoryProxy({ model: Event, data: rows.map((row) => ({ ...row })) });
        const answer = await proxy.read(new Operation({ action: 'read', sorters }));
        expect(answer.resultSet?.records.map((record) => (record instanceof Event ? record.getId() : record))).toEqual(ids(store.getRange()));
        for (const { at, field, value } of edits) added[at % Math.max(1, added.length)]?.set(field, value);
        expect(ids(store.getRange())).toEqual(ids([...added].sort(comparator(sorters, read))));
      }),
      { numRuns: 300 },
    );
  });

  it('an invalid Date is empty: after every valid Date ascending, among null and undefined (in the order added)', () => {
    const rows = [{ id: 1, when: new Date('x') }, { id: 2, when: null }, { id: 3, when: new Date(5) }, { id: 4, when: undefined }, { id: 5, when: new Date(1) }];
    const store = new Store({ model: Event, data: rows.map((row) => ({ ...row, other: null })), sorters: [{ property: 'when' }] });
    const sorted = [...rows].sort(comparator([{ property: 'when' }], (row, property) => (property === 'when' ? row.when : undefined)));
    expect(ids(store.getRange())).toEqual([5, 3, 1, 2, 4]);
    expect(sorted.map((row) => row.id)).toEqual([5, 3, 1, 2, 4]);
  });
});

describe('a store sorted by a field of mixed kinds', () => {
  it('an edit from 10 to "10" moves the record where a fresh sort puts it', () => {
    const store = new Store({ model: Event, data: [{ id: 1, when: null, other: 10 }, { id: 2, when: null, other: 9 }], sorters: [{ property: 'other' }] });
    expect(ids(store.getRange())).toEqual([2, 1]); // sorted (and read) before the edit: the edit moves it
    store.getById(1)?.set('other', '10');
    const fresh = new Store({ model: Event, data: [{ id: 1, when: null, other: '10' }, { id: 2, when: null, other: 9 }], sorters: [{ property: 'other' }] });
    expect(ids(store.getRange())).toEqual(ids(fresh.getRange()));
  });
});
