/**
 * MemoryProxy (API.md section 2): holds `data` and answers all four actions, with paging,
 * sorting and filtering done locally.
 */
import { describe, expect, it } from 'vitest';
import { MemoryProxy, Model, Operation, createProxy } from '../../src/index.js';

class User extends Model<{ id: number; name: string; age: number }> {
  static override fields = ['id', 'name', 'age'];
}

const PEOPLE = [
  { id: 1, name: 'Ed', age: 40 },
  { id: 2, name: 'Tommy', age: 25 },
  { id: 3, name: 'Aaron', age: 33 },
  { id: 4, name: 'Jamie', age: 25 },
  { id: 5, name: 'Ed', age: 19 },
];

function memoryProxy(): MemoryProxy {
  return new MemoryProxy({ model: User, data: PEOPLE.map((person) => ({ ...person })) });
}

function usersOf(operation: Operation): User[] {
  return (operation.resultSet?.records ?? []).map((record) => {
    if (!(record instanceof User)) throw new Error(`expected a User, got ${String(record)}`);
    return record;
  });
}

async function readAll(proxy: MemoryProxy): Promise<User[]> {
  return usersOf(await proxy.read(new Operation({ action: 'read' })));
}

describe('MemoryProxy', () => {
  it("is registered as 'memory' and keeps data as a property", () => {
    const proxy = createProxy({ type: 'memory', data: [{ id: 1, name: 'Ed', age: 1 }] });
    expect(proxy).toBeInstanceOf(MemoryProxy);
    if (proxy instanceof MemoryProxy) expect(proxy.data).toHaveLength(1);
  });

  it('reads every record as model instances that are not phantom', async () => {
    const operation = await memoryProxy().read(new Operation({ action: 'read' }));
    const users = usersOf(operation);
    expect(users.map((user) => user.get('name'))).toEqual(['Ed', 'Tommy', 'Aaron', 'Jamie', 'Ed']);
    expect(users.every((user) => !user.phantom && !user.dirty)).toBe(true);
    expect(operation.resultSet?.total).toBe(5);
    expect(operation.wasSuccessful()).toBe(true);
  });

  it('pages locally: start and limit slice, total counts every record', async () => {
    const operation = await memoryProxy().read(new Operation({ action: 'read', start: 2, limit: 2 }));
    expect(usersOf(operation).map((user) => user.getId())).toEqual([3, 4]);
    expect(operation.resultSet?.total).toBe(5);
    expect(operation.resultSet?.count).toBe(2);
  });

  it('sorts locally, by several sorters', async () => {
    const operation = await memoryProxy().read(
      new Operation({ action: 'read', sorters: [{ property: 'age', direction: 'ASC' }, { property: 'name', direction: 'DESC' }] }),
    );
    expect(usersOf(operation).map((user) => user.getId())).toEqual([5, 2, 4, 3, 1]);
  });

  it('filters locally; total is the filtered count', async () => {
    const operation = await memoryProxy().read(new Operation({ action: 'read', filters: [{ property: 'name', value: 'Ed' }] }));
    expect(usersOf(operation).map((user) => user.getId())).toEqual([1, 5]);
    expect(operation.resultSet?.total).toBe(2);
  });

  it('filters, then sorts, then pages', async () => {
    const operation = await memoryProxy().read(
      new Operation({
        action: 'read',
        filters: [{ property: 'age', value: 25 }],
        sorters: [{ property: 'name', direction: 'ASC' }],
        start: 0,
        limit: 1,
      }),
    );
    expect(usersOf(operation).map((user) => user.get('name'))).toEqual(['Jamie']);
    expect(operation.resultSet?.total).toBe(2);
  });

  it('reads one record by id', async () => {
    const users = usersOf(await memoryProxy().read(new Operation({ action: 'read', id: 3 })));
    expect(users.map((user) => user.get('name'))).toEqual(['Aaron']);
  });

  it('create, update and destroy change what later reads give', async () => {
    const proxy = memoryProxy();
    const created = new User({ name: 'New', age: 5 });
    await proxy.create(new Operation({ action: 'create', records: [created] }));
    expect((await readAll(proxy)).map((user) => user.get('name'))).toContain('New');

    const tommy = new User({ id: 2, name: 'Tommy', age: 25 });
    tommy.set('age', 26);
    await proxy.update(new Operation({ action: 'update', records: [tommy] }));
    expect((await readAll(proxy)).find((user) => user.getId() === 2)?.get('age')).toBe(26);

    await proxy.destroy(new Operation({ action: 'destroy', records: [new User({ id: 1, name: 'Ed', age: 40 })] }));
    const ids = (await readAll(proxy)).map((user) => user.getId());
    expect(ids).not.toContain(1);
    expect(ids).toHaveLength(5);
  });

  it('records read are independent of the data: editing one does not change the next read', async () => {
    const proxy = memoryProxy();
    const [first] = await readAll(proxy);
    first?.set('name', 'Changed');
    const [again] = await readAll(proxy);
    expect(again?.get('name')).toBe('Ed');
  });
});
