/**
 * MemoryProxy (API.md section 2): holds `data` and answers all four actions, with paging,
 * sorting and filtering done locally.
 */
import { describe, expect, it } from 'vitest';
import { BatchError, MemoryProxy, Model, Operation, ProxyError, Store, createProxy } from '../../src/index.js';

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

/** The error a promise rejects with (a ProxyError), or a failure when it resolves. */
async function failure(promise: Promise<unknown>): Promise<ProxyError> {
  const error = await promise.then(() => undefined, (thrown: unknown) => thrown);
  if (!(error instanceof ProxyError)) throw new Error(`expected a ProxyError, got ${String(error)}`);
  return error;
}

/** A MemoryProxy whose `controller` is aborted as soon as it has taken an operation (while it runs). */
class AbortingProxy extends MemoryProxy {
  controller = new AbortController();

  protected override doRequest(operation: Operation): Promise<void> {
    const running = super.doRequest(operation);
    this.controller.abort();
    return running;
  }
}

describe('MemoryProxy aborted through the operation\'s signal (API.md section 7: mayHaveBeenApplied)', () => {
  // Aborted after the proxy took the operation, before it answered (it answers asynchronously).
  it.each(['create', 'update', 'destroy'] as const)('a %s aborted while it runs applied nothing and says mayHaveBeenApplied false', async (action) => {
    const proxy = memoryProxy();
    const record = action === 'create' ? new User({ name: 'New', age: 1 }) : new User({ id: 2, name: 'Changed', age: 2 });
    const controller = new AbortController();
    const running = failure(proxy[action](new Operation({ action, records: [record], signal: controller.signal })));
    controller.abort();
    const error = await running;
    expect(error.kind).toBe('abort');
    expect(error.mayHaveBeenApplied).toBe(false);
    expect(proxy.data).toEqual(PEOPLE);
  });

  it('a read aborted while it runs says mayHaveBeenApplied false', async () => {
    const controller = new AbortController();
    const running = failure(memoryProxy().read(new Operation({ action: 'read', signal: controller.signal })));
    controller.abort();
    const error = await running;
    expect(error.kind).toBe('abort');
    expect(error.mayHaveBeenApplied).toBe(false);
  });

  it('store.sync() aborted while it runs: nothing applied, its error says mayHaveBeenApplied false, the record stays dirty', async () => {
    const proxy = new AbortingProxy({ model: User, data: PEOPLE.map((person) => ({ ...person })) });
    const store = new Store({ model: User, proxy, data: PEOPLE.map((person) => ({ ...person })) });
    const edited = store.getById(2);
    edited?.set('name', 'Changed');
    const thrown = await store.sync({ signal: proxy.controller.signal }).then(() => undefined, (thrown: unknown) => thrown);
    expect(thrown).toBeInstanceOf(BatchError);
    const errors = thrown instanceof BatchError ? thrown.errors : [];
    expect(errors.map((error) => [error.kind, error.mayHaveBeenApplied])).toEqual([['abort', false]]);
    expect(edited?.dirty).toBe(true);
    expect(proxy.data).toEqual(PEOPLE);
  });

  it('record.save() aborted while it runs: nothing applied, mayHaveBeenApplied false, the record stays new', async () => {
    class Note extends Model<{ id: number; text: string }> {
      static override fields = ['id', 'text'];
    }
    const proxy = new AbortingProxy({ model: Note });
    Note.setProxy(proxy);
    const note = new Note({ text: 'New' });
    const error = await failure(note.save({ signal: proxy.controller.signal }));
    expect([error.kind, error.mayHaveBeenApplied]).toEqual(['abort', false]);
    expect(note.phantom).toBe(true);
    expect(proxy.data).toEqual([]);
  });

  it('store.load({ signal }) aborted while it runs rejects with kind abort and mayHaveBeenApplied false', async () => {
    const store = new Store({ model: User, proxy: memoryProxy() });
    const controller = new AbortController();
    const loading = failure(store.load({ signal: controller.signal }));
    controller.abort();
    const error = await loading;
    expect(error.kind).toBe('abort');
    expect(error.mayHaveBeenApplied).toBe(false);
    expect(store.getCount()).toBe(0);
  });

  it('a write the proxy applied says so: an update answered, then aborted, is saved', async () => {
    const proxy = memoryProxy();
    const record = new User({ id: 2, name: 'Changed', age: 2 });
    const controller = new AbortController();
    const done = await proxy.update(new Operation({ action: 'update', records: [record], signal: controller.signal }));
    controller.abort();
    expect(done.success).toBe(true);
    expect(proxy.data[1]).toEqual({ id: 2, name: 'Changed', age: 2 });
  });
});
