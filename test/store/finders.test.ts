/**
 * Finders and aggregates (API.md section 12, issue 30): Ext's names with an options object, over
 * what the store shows (bypassFilter: the hidden ones after), defined results for no value,
 * null/NaN and mixed kinds, per group as a Map.
 */
import { describe, expect, it } from 'vitest';
import { MemoryProxy, Model, Store } from '../../src/index.js';

interface Row {
  id: number;
  name: string;
  region: string | null;
  amount: number | null;
  at: Date | null;
}

class Order extends Model<Row> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', 'region', { name: 'amount', type: 'number', allowNull: true }, { name: 'at', type: 'date', allowNull: true }];
}

const day = (n: number): Date => new Date(Date.UTC(2026, 0, n));
const ROWS: Row[] = [
  { id: 1, name: 'Alpha', region: 'north', amount: 10, at: day(3) },
  { id: 2, name: 'beta', region: 'south', amount: 20, at: day(1) },
  { id: 3, name: 'Gamma', region: 'north', amount: null, at: null },
  { id: 4, name: 'alphabet', region: 'south', amount: 5, at: day(9) },
  { id: 5, name: 'Delta', region: 'east', amount: 7.5, at: day(2) },
];

const orders = (config: ConstructorParameters<typeof Store<Order>>[0] = {}): Store<Order> => new Store<Order>({ model: Order, data: ROWS.map((row) => ({ ...row })), ...config });
const ids = (records: readonly Order[]): unknown[] => records.map((record) => record.getId());

describe('finders', () => {
  it('find matches a string as Ext does: begins with it, case aside; anyMatch, exactMatch, caseSensitive, start', () => {
    const store = orders();
    expect(store.find('name', 'alp')).toBe(0);
    expect(store.find('name', 'alp', { start: 1 })).toBe(3);
    expect(store.find('name', 'alp', { caseSensitive: true })).toBe(3);
    expect(store.find('name', 'eta', { anyMatch: true })).toBe(1);
    expect(store.find('name', 'alpha', { exactMatch: true, start: 1 })).toBe(-1);
    expect(store.find('name', 'ALPHA', { exactMatch: true })).toBe(0);
    expect(store.find('name', /^g/i)).toBe(2);
    expect(store.find('amount', 20)).toBe(1);
    expect(store.find('amount', null)).toBe(2);
    expect(store.find('name', 'zzz')).toBe(-1);
  });

  it('findExact by SameValueZero (Dates by time), findBy, findRecord returns undefined, query an array', () => {
    const store = orders();
    expect(store.findExact('at', day(9))).toBe(3);
    expect(store.findExact('amount', 5)).toBe(3);
    expect(store.findExact('amount', 5, 4)).toBe(-1);
    expect(store.findBy((record) => record.get('region') === 'east')).toBe(4);
    expect(store.findRecord('name', 'gam')?.getId()).toBe(3);
    expect(store.findRecord('name', 'nobody')).toBeUndefined();
    const found = store.query('region', 'north');
    expect(Array.isArray(found)).toBe(true);
    expect(ids(found)).toEqual([1, 3]);
    expect(ids(store.queryBy((record) => (record.get('amount') ?? 0) > 6))).toEqual([1, 2, 5]);
  });

  it('see what the store shows, in order; bypassFilter adds the hidden records after them; removed records never', async () => {
    const store = orders({ sorters: [{ property: 'name', direction: 'ASC' }] });
    await store.filter('region', 'south');
    expect(store.find('name', 'alpha')).toBe(0);
    expect(store.findRecord('name', 'Alpha')?.getId()).toBe(4);
    expect(store.find('name', 'Gamma')).toBe(-1);
    expect(store.find('name', 'Gamma', { bypassFilter: true })).toBe(4);
    expect(ids(store.query('name', '', { bypassFilter: true }))).toEqual([4, 2, 1, 5, 3]);
    expect(store.sum('amount')).toBe(25);
    expect(store.sum('amount', { bypassFilter: true })).toBe(42.5);
    const gone = store.getById(2);
    if (gone === undefined) throw new Error('no record 2');
    store.remove(gone);
    expect(store.query('name', 'beta', { bypassFilter: true })).toEqual([]);
    expect(store.count({ bypassFilter: true })).toBe(4);
  });

  it('each over a copy, in order, false stops; collect distinct values; first, last, indexOfId', () => {
    const store = orders();
    const seen: unknown[] = [];
    store.each((record, index) => {
      seen.push([record.getId(), index]);
      if (index === 0) store.removeAll();
      return index < 2;
    });
    expect(seen).toEqual([[1, 0], [2, 1], [3, 2]]);
    const other = orders();
    expect(other.collect('region')).toEqual(['north', 'south', 'east']);
    other.getAt(0)?.set('region', null);
    expect(other.collect('region')).toEqual(['south', 'north', 'east']);
    expect(other.collect('region', { allowNull: true })).toEqual([null, 'south', 'north', 'east']);
    expect(other.collect('at').map((value) => (value instanceof Date ? value.getTime() : value))).toEqual([3, 1, 9, 2].map((n) => day(n).getTime()));
    expect(other.first()?.getId()).toBe(1);
    expect(other.last()?.getId()).toBe(5);
    expect(new Store<Order>({ model: Order }).first()).toBeUndefined();
    expect(other.indexOfId(4)).toBe(3);
    expect(other.indexOfId('4')).toBe(3);
    expect(other.indexOfId(99)).toBe(-1);
  });

  it('reload() loads again the last load\'s page and params (given options win; never loaded: page 1)', async () => {
    const store = new Store<Order>({ model: Order, pageSize: 2, proxy: new MemoryProxy({ data: ROWS.map((row) => ({ ...row })) }) });
    await store.reload();
    expect(ids(store.getRange())).toEqual([1, 2]);
    await store.loadPage(3);
    store.getById(5)?.set('name', 'edited');
    await store.reload();
    expect(store.currentPage).toBe(3);
    expect(ids(store.getRange())).toEqual([5]);
    await store.reload({ page: 2 });
    expect(ids(store.getRange())).toEqual([3, 4]);
  });

  it('a field the model lacks, or a non-function, is a TypeError naming it', () => {
    const store = orders();
    // @ts-expect-error misspelt field
    expect(() => store.find('nmae', 'x')).toThrow(/nmae/);
    // @ts-expect-error misspelt field
    expect(() => store.sum('amout')).toThrow(/amout/);
    // @ts-expect-error not a function
    expect(() => store.findBy('x')).toThrow(TypeError);
    // @ts-expect-error not a function
    expect(() => store.aggregate(null)).toThrow(/aggregate/);
  });

  it('a misspelt field is a TypeError also when grouped and there is no group (nothing to compute)', () => {
    const store = orders();
    // @ts-expect-error misspelt field
    expect(() => store.sum('amout', { grouped: true })).toThrow(/amout/);
    // @ts-expect-error misspelt field
    expect(() => store.max('nmae', { grouped: true })).toThrow(/nmae/);
  });
});

describe('aggregates', () => {
  it('sum, average, min, max, count over the records shown; null and NaN are no value', () => {
    const store = orders();
    expect(store.sum('amount')).toBe(42.5);
    expect(store.average('amount')).toBe(42.5 / 4);
    expect(store.min('amount')).toBe(5);
    expect(store.max('amount')).toBe(20);
    expect(store.min('name')).toBe('Alpha');
    expect(store.max('name')).toBe('beta');
    expect(store.min('at')).toEqual(day(1));
    expect(store.max('at')).toEqual(day(9));
    expect(store.count()).toBe(5);
    expect(store.count('amount')).toBe(4);
    expect(store.count('at')).toBe(4);
    expect(store.aggregate((records) => records.length)).toBe(5);
  });

  it('no value at all: sum and count 0, average, min and max null', () => {
    const empty = new Store<Order>({ model: Order });
    expect([empty.sum('amount'), empty.count(), empty.count('amount'), empty.average('amount'), empty.min('amount'), empty.max('at')]).toEqual([0, 0, 0, null, null, null]);
    const nulls = new Store<Order>({ model: Order, data: [{ id: 1, amount: null }] });
    expect([nulls.sum('amount'), nulls.count('amount'), nulls.average('amount'), nulls.min('amount')]).toEqual([0, 0, null, null]);
  });

  it('a value of another kind is a TypeError naming the field, never text added to a number', () => {
    class Loose extends Model<{ id: number; value: unknown }> {
      static override fields = [{ name: 'id', type: 'int' }, { name: 'value', type: 'auto' }];
    }
    const store = new Store<Loose>({ model: Loose, data: [{ id: 1, value: 1 }, { id: 2, value: '2' }, { id: 3, value: Number.NaN }] });
    expect(() => store.sum('value')).toThrow(/sum\('value'\).*"2"/);
    expect(() => store.average('value')).toThrow(TypeError);
    expect(() => store.min('value')).toThrow(/min\('value'\)/);
    expect(() => store.max('value')).toThrow(TypeError);
    expect(store.count('value')).toBe(2);
  });

  it('grouped: a Map from group name to the group result, in group order; without groupField an empty Map', async () => {
    const store = orders();
    expect(store.sum('amount', { grouped: true })).toEqual(new Map());
    await store.group('region');
    expect([...store.sum('amount', { grouped: true })]).toEqual([['east', 7.5], ['north', 10], ['south', 25]]);
    expect([...store.count({ grouped: true })]).toEqual([['east', 1], ['north', 2], ['south', 2]]);
    expect([...store.average('amount', { grouped: true })]).toEqual([['east', 7.5], ['north', 10], ['south', 12.5]]);
    expect([...store.max('name', { grouped: true })]).toEqual([['east', 'Delta'], ['north', 'Gamma'], ['south', 'beta']]);
    expect([...store.first({ grouped: true })].map(([name, record]) => [name, record.getId()])).toEqual([['east', 5], ['north', 1], ['south', 2]]);
    expect([...store.last({ grouped: true })].map(([name, record]) => [name, record.getId()])).toEqual([['east', 5], ['north', 3], ['south', 4]]);
    expect([...store.aggregate((records) => records.length, { grouped: true })]).toEqual([['east', 1], ['north', 2], ['south', 2]]);
  });
});
