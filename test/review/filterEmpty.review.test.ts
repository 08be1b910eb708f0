/**
 * Review: the ordering filters (`<`, `<=`, `>`, `>=`) and empty values. A local sort, a
 * MemoryProxy's sort and aggregates take `NaN` and an invalid Date as no value (docs/stores.md,
 * API.md 12), and `null`/`undefined` never pass an ordering filter; `NaN` and an invalid Date
 * should not either (they passed `<=` and `>=` for every bound: NaN compares as a tie).
 */
import { expect, it } from 'vitest';
import { MemoryProxy, Model, Operation, Store } from '../../src/index.js';

class Row extends Model<{ id: number; n: unknown; when: unknown }> {
  static override fields = ['id', 'n', 'when'];
}

const data = () => [
  { id: 1, n: 1, when: new Date('2020-01-01T00:00:00Z') },
  { id: 2, n: NaN, when: new Date('nonsense') },
  { id: 3, n: 9, when: new Date('2024-01-01T00:00:00Z') },
  { id: 4, n: null, when: null },
];

const ids = (store: Store<Row>) => [...store].map((record) => record.get('id'));

it('a local store: NaN and an invalid Date pass no ordering filter, as null does not', async () => {
  for (const operator of ['<=', '>='] as const) {
    const numbers = new Store<Row>({ model: Row, pageSize: 0, data: data() });
    await numbers.filter('n', 5, operator);
    expect(ids(numbers)).toEqual(operator === '<=' ? [1] : [3]);
    const dates = new Store<Row>({ model: Row, pageSize: 0, data: data() });
    await dates.filter('when', new Date('2022-01-01T00:00:00Z'), operator);
    expect(ids(dates)).toEqual(operator === '<=' ? [1] : [3]);
  }
});

it('a MemoryProxy read: NaN and an invalid Date pass no ordering filter', async () => {
  const proxy = new MemoryProxy({ data: data() });
  const read = async (filters: Operation['filters']) => {
    const operation = new Operation({ action: 'read', filters });
    await proxy.read(operation);
    return operation.resultSet?.records.map((record) => (record as { id: number }).id ?? (record as Model).get('id' as never));
  };
  expect(await read([{ property: 'n', value: 5, operator: '>=' }])).toEqual([3]);
  expect(await read([{ property: 'when', value: new Date('2022-01-01T00:00:00Z'), operator: '<=' }])).toEqual([1]);
});

it('an ordering filter with a number bound compares a numeric text value by number, as it does a number value with a numeric text bound', async () => {
  const mixed = () => [{ id: 1, n: 10, when: null }, { id: 2, n: '10', when: null }, { id: 3, n: 2, when: null }, { id: 4, n: '2', when: null }];
  const below = new Store<Row>({ model: Row, pageSize: 0, data: mixed() });
  await below.filter('n', 9, '<');
  expect(ids(below)).toEqual([3, 4]); // '10' is not below 9 (it was: '10' < '9' as text)
  const above = new Store<Row>({ model: Row, pageSize: 0, data: mixed() });
  await above.filter('n', 9, '>');
  expect(ids(above)).toEqual([1, 2]);
  // Sorted, the kinds stay apart (numbers, then strings).
  await above.clearFilter();
  await above.sort('n');
  expect(ids(above)).toEqual([3, 1, 2, 4]); // 2, 10, '10', '2'
});
