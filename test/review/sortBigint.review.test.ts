/**
 * Review: the local sort's one order (docs/stores.md: numbers by value) and BigInt values (a
 * `convert` field holding an id past Number.MAX_SAFE_INTEGER, say): they sorted as text, 10n
 * before 9n, in a store's local sort, the comparator and a MemoryProxy's sorted read alike.
 */
import { expect, it } from 'vitest';
import { MemoryProxy, Model, Operation, Store } from '../../src/index.js';

class Tweet extends Model<{ id: number; big: unknown }> {
  static override fields = ['id', { name: 'big', convert: (value: unknown) => (typeof value === 'string' ? BigInt(value) : value) }];
}

const data = () => [
  { id: 1, big: '10' },
  { id: 2, big: '9' },
  { id: 3, big: '9007199254740993' },
  { id: 4, big: '100' },
];

it('a store sorted locally on a BigInt field orders it by value', async () => {
  const store = new Store<Tweet>({ model: Tweet, pageSize: 0, data: data() });
  await store.sort('big');
  expect([...store].map((record) => record.get('id'))).toEqual([2, 1, 4, 3]);
  await store.sort('big', 'DESC');
  expect([...store].map((record) => record.get('id'))).toEqual([3, 4, 1, 2]);
});

it('a MemoryProxy sorted read orders BigInt values by value', async () => {
  const proxy = new MemoryProxy({ data: data().map((item) => ({ ...item, big: BigInt(item.big) })) });
  const operation = new Operation({ action: 'read', sorters: [{ property: 'big' }] });
  await proxy.read(operation);
  expect(operation.resultSet?.records.map((record) => (record as { id: number }).id)).toEqual([2, 1, 4, 3]);
});
