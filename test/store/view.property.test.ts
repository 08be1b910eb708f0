/**
 * The incremental view against a naive model (issue 20): after any sequence of edits, adds,
 * removes, rejects, sorts, filters and groupings, read at any point, a store shows what sorting
 * and filtering its records from scratch shows (a stable sort, ties in the order added).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Model, Store, type FilterOf, type SorterOf } from '../../src/index.js';
import type { Sorter } from '../../src/operation/types.js';
import { filterItems } from '../../src/util/filtering.js';
import { comparator } from '../../src/util/sorting.js';

interface Row {
  id: number;
  name: string | null;
  dept: string | null;
  age: number | null;
}

class Person extends Model<Row> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', 'dept', { name: 'age', type: 'int' }];
}

const FIELDS = ['name', 'dept', 'age'] as const;
const NAME = fc.constantFrom('Ann', 'Bob', 'ann', 'Cy', 'Zoe', '', null);
const DEPT = fc.constantFrom('eng', 'ops', 'sales', null);
const AGE = fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant(null));
const valueOf = { name: NAME, dept: DEPT, age: AGE };
const FIELD = fc.constantFrom(...FIELDS);
const DIRECTION = fc.constantFrom('ASC' as const, 'DESC' as const);
const SORTER: fc.Arbitrary<SorterOf<Person>> = fc.record({ property: FIELD, direction: DIRECTION });
const FILTER: fc.Arbitrary<FilterOf<Person>> = fc.oneof(
  fc.record({ property: fc.constant('dept'), value: DEPT.filter((dept) => dept !== null) }),
  fc.record({ property: fc.constant('age'), operator: fc.constantFrom('>=' as const, '<' as const, '!=' as const), value: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ property: fc.constant('name'), operator: fc.constant('like' as const), value: fc.constantFrom('a', 'o', 'ann') }),
);

type Step =
  | { kind: 'edit'; at: number; field: (typeof FIELDS)[number]; value: unknown }
  | { kind: 'add'; row: Omit<Row, 'id'> }
  | { kind: 'remove'; at: number }
  | { kind: 'reject'; at: number }
  | { kind: 'sort'; sorters: SorterOf<Person>[] }
  | { kind: 'filter'; filters: FilterOf<Person>[] }
  | { kind: 'clearFilter' }
  | { kind: 'group'; field: (typeof FIELDS)[number] | undefined; direction: 'ASC' | 'DESC' }
  | { kind: 'read' };

const AT = fc.nat({ max: 40 });
const STEP: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('edit' as const), at: AT, field: FIELD, value: fc.oneof(NAME, DEPT, AGE) }).map((step) => ({ ...step, value: step.field === 'age' ? (typeof step.value === 'number' || step.value === null ? step.value : 3) : typeof step.value === 'number' ? String(step.value) : step.value })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('add' as const), row: fc.record({ name: valueOf.name, dept: valueOf.dept, age: valueOf.age }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), at: AT }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reject' as const), at: AT }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sort' as const), sorters: fc.array(SORTER, { maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('filter' as const), filters: fc.array(FILTER, { minLength: 1, maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clearFilter' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('group' as const), field: fc.option(FIELD, { nil: undefined }), direction: DIRECTION }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'read' as const }) },
);

/** What the store must show: its records in the order added, filtered, then sorted from scratch (stably). */
function naive(store: Store<Person>, added: readonly Person[]): Person[] {
  const read = (record: Person, property: string): unknown => record.getData()[property];
  const sorters: Sorter[] = [...(store.groupField === undefined ? [] : [{ property: store.groupField, direction: store.groupDir }]), ...store.sorters];
  return filterItems(added, store.filters, read).sort(comparator(sorters, read));
}

/** The groups it must give: the records shown cut by the group field's value, each group where its first record is. */
function naiveGroups(store: Store<Person>, shown: readonly Person[]): [unknown, string[]][] {
  const field = store.groupField;
  const groups = new Map<unknown, [unknown, string[]]>();
  if (field === undefined) return [];
  for (const record of shown) {
    const value = record.get(field);
    const group = groups.get(value) ?? groups.set(value, [value, []]).get(value);
    group?.[1].push(record.clientId);
  }
  return [...groups.values()];
}

function run(rows: Row[], steps: Step[]): void {
  const store = new Store<Person>({ model: Person, data: rows.map((row) => ({ ...row })) });
  const added: Person[] = store.getRange();
  const check = (): void => {
    const want = naive(store, added).map((record) => record.clientId);
    expect(store.getRange().map((record) => record.clientId)).toEqual(want);
    expect(store.getSnapshot().records.map((record) => record.clientId)).toEqual(want);
    expect(store.getCount()).toBe(want.length);
    expect(store.getGroups().map(({ name, records }) => [name, records.map((record) => record.clientId)])).toEqual(naiveGroups(store, naive(store, added)));
  };
  for (const step of steps) {
    const pick = (at: number): Person | undefined => added[at % Math.max(1, added.length)];
    switch (step.kind) {
      case 'edit': {
        const { field, value } = step;
        if (field === 'age') pick(step.at)?.set(field, typeof value === 'number' ? value : null);
        else pick(step.at)?.set(field, typeof value === 'string' ? value : null);
        break;
      }
      case 'add': added.push(...store.add(step.row)); break;
      case 'remove': {
        const record = pick(step.at);
        if (record === undefined) break;
        store.remove(record);
        added.splice(added.indexOf(record), 1);
        break;
      }
      case 'reject': pick(step.at)?.reject(); break;
      case 'sort': void store.sort(step.sorters); break;
      case 'filter': void store.filter(step.filters); break;
      case 'clearFilter': void store.clearFilter(); break;
      case 'group': void (step.field === undefined ? store.clearGrouping() : store.group(step.field, step.direction)); break;
      case 'read': check(); break;
    }
  }
  check();
}

const ROWS: fc.Arbitrary<Row[]> = fc.array(fc.record({ name: NAME, dept: DEPT, age: AGE }), { maxLength: 30 }).map((rows) => rows.map((row, index) => ({ id: index + 1, ...row })));

describe('the view equals sorting and filtering from scratch', () => {
  it('after random edits, adds, removes, rejects, sorts, filters and groupings', () => {
    fc.assert(fc.property(ROWS, fc.array(STEP, { maxLength: 60 }), run), { numRuns: 400 });
  });

  it('starting sorted and filtered, with many edits between reads', () => {
    const steps = fc.array(STEP.filter((step) => step.kind !== 'read'), { maxLength: 40 });
    fc.assert(
      fc.property(ROWS, fc.array(SORTER, { minLength: 1, maxLength: 2 }), FILTER, steps, (rows, sorters, filter, rest) => {
        run(rows, [{ kind: 'sort', sorters }, { kind: 'filter', filters: [filter] }, { kind: 'read' }, ...rest]);
      }),
      { numRuns: 300 },
    );
  });
});
