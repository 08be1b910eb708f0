/**
 * JsonReader (API.md section 4) as a user sees it through a proxy: root, total, success and
 * message properties, totalHeader, transform, and the Ext response-handling pitfalls the
 * contract fixes (invalid JSON never counts as success, success:false carries its message).
 */
import { describe, expect, it } from 'vitest';
import { JsonReader, Model, Operation, RestProxy } from '../../src/index.js';
import { recordingFetch, type Answer } from '../helpers/recordingFetch.js';
import { proxyErrorOf } from '../helpers/proxyTestKit.js';

class User extends Model<{ id: number; name: string }> {
  static override fields = ['id', 'name'];
}

class Person extends Model<{ id: number; name: string }> {
  static override fields = ['id', { name: 'name', mapping: 'full_name' }];
}

type ReaderOption = ConstructorParameters<typeof JsonReader>[0] | JsonReader;

function proxyAnswering(answer: Answer, reader?: ReaderOption): RestProxy {
  const fetch = recordingFetch(() => answer);
  return new RestProxy({ url: 'http://api.test/users', model: User, fetch, retry: 0, ...(reader === undefined ? {} : { reader }) });
}

function usersOf(operation: Operation): User[] {
  return (operation.resultSet?.records ?? []).map((record) => {
    if (!(record instanceof User)) throw new Error(`expected a User, got ${String(record)}`);
    return record;
  });
}

const read = (proxy: RestProxy, id?: number): Promise<Operation> =>
  proxy.read(id === undefined ? new Operation({ action: 'read' }) : new Operation({ action: 'read', id }));

describe('JsonReader: defaults', () => {
  it("rootProperty '' reads a bare array body; total defaults to the count", async () => {
    const operation = await read(proxyAnswering({ body: [{ id: 1, name: 'Ed' }, { id: 2, name: 'Tommy' }] }));
    const users = usersOf(operation);
    expect(users.map((user) => user.get('name'))).toEqual(['Ed', 'Tommy']);
    expect(operation.resultSet?.total).toBe(2);
    expect(operation.resultSet?.count).toBe(2);
    expect(operation.resultSet?.success).toBe(true);
  });

  it("rootProperty '' reads one object body as one record", async () => {
    const operation = await read(proxyAnswering({ body: { id: 2, name: 'Tommy' } }), 2);
    const users = usersOf(operation);
    expect(users).toHaveLength(1);
    expect(users[0]?.getId()).toBe(2);
    expect(users[0]?.get('name')).toBe('Tommy');
  });

  it('records read from the server are not phantom and not dirty', async () => {
    const [user] = usersOf(await read(proxyAnswering({ body: [{ id: 1, name: 'Ed' }] })));
    expect(user?.phantom).toBe(false);
    expect(user?.dirty).toBe(false);
  });

  it("a field's mapping names the value in server data", async () => {
    const fetch = recordingFetch(() => ({ body: [{ id: 1, full_name: 'Ed Spencer' }] }));
    const proxy = new RestProxy({ url: 'http://api.test/people', model: Person, fetch });
    const operation = await proxy.read(new Operation({ action: 'read' }));
    const [person] = operation.resultSet?.records ?? [];
    expect(person).toBeInstanceOf(Person);
    if (person instanceof Person) expect(person.get('name')).toBe('Ed Spencer');
  });

  it('204 No Content on a read is a successful empty result', async () => {
    const operation = await read(proxyAnswering({ status: 204 }));
    expect(operation.wasSuccessful()).toBe(true);
    expect(operation.resultSet?.count).toBe(0);
  });

  it('the default successProperty is success; total is read from total', async () => {
    const operation = await read(
      proxyAnswering({ body: { success: true, total: 50, data: [{ id: 1, name: 'Ed' }] } }, { rootProperty: 'data' }),
    );
    expect(usersOf(operation).map((user) => user.getId())).toEqual([1]);
    expect(operation.resultSet?.total).toBe(50);
    expect(operation.resultSet?.count).toBe(1);
  });
});

describe('JsonReader: options', () => {
  it('rootProperty, totalProperty, as a config object', async () => {
    const operation = await read(
      proxyAnswering({ body: { results: [{ id: 1, name: 'Ed' }, { id: 2, name: 'T' }], count: 42 } }, { rootProperty: 'results', totalProperty: 'count' }),
    );
    expect(usersOf(operation)).toHaveLength(2);
    expect(operation.resultSet?.total).toBe(42);
  });

  it('a JsonReader instance is used as given', async () => {
    const reader = new JsonReader({ rootProperty: 'items' });
    const operation = await read(proxyAnswering({ body: { items: [{ id: 7, name: 'Seven' }] } }, reader));
    expect(usersOf(operation).map((user) => user.getId())).toEqual([7]);
  });

  it('totalHeader reads the total from a response header', async () => {
    const operation = await read(
      proxyAnswering({ headers: { 'X-Total-Count': '123' }, body: [{ id: 1, name: 'Ed' }] }, { totalHeader: 'X-Total-Count' }),
    );
    expect(operation.resultSet?.total).toBe(123);
    expect(operation.resultSet?.count).toBe(1);
  });

  it('transform(data) reshapes the body before it is read', async () => {
    const transform = (data: unknown): unknown =>
      typeof data === 'object' && data !== null && 'payload' in data ? data.payload : data;
    const operation = await read(proxyAnswering({ body: { payload: [{ id: 3, name: 'Aaron' }] } }, { transform }));
    expect(usersOf(operation).map((user) => user.get('name'))).toEqual(['Aaron']);
  });

  it('the message is read into the result set', async () => {
    const operation = await read(proxyAnswering({ body: { success: true, message: 'fresh', data: [] } }, { rootProperty: 'data' }));
    expect(operation.resultSet?.message).toBe('fresh');
  });
});

describe('JsonReader: success false and unreadable bodies', () => {
  it("Ext pitfall 24 fixed: an envelope's success:false fails with kind 'server' and the server's message", async () => {
    const operation = new Operation({ action: 'read' });
    const fetch = recordingFetch(() => ({ body: { success: false, message: 'Database offline' } }));
    const proxy = new RestProxy({ url: 'http://api.test/users', model: User, fetch, retry: 0, reader: { rootProperty: 'data' } });
    const error = await proxyErrorOf(proxy.read(operation));
    expect(error.kind).toBe('server');
    expect(error.message).toContain('Database offline');
    expect(operation.success).toBe(false);
    expect(operation.error).toBe(error);
  });

  it('successProperty and messageProperty can be renamed', async () => {
    const error = await proxyErrorOf(read(proxyAnswering({ body: { ok: false, error: 'Quota exceeded' } }, { rootProperty: 'data', successProperty: 'ok', messageProperty: 'error' })));
    expect(error.kind).toBe('server');
    expect(error.message).toContain('Quota exceeded');
  });

  it('success is read only from an envelope: a record answered as the body keeps its own success field', async () => {
    const operation = await read(proxyAnswering({ body: { id: 3, name: 'Flag', success: false, message: 'mine' } }));
    expect(operation.wasSuccessful()).toBe(true);
    expect(usersOf(operation).map((user) => user.getData()['success'])).toEqual([false]);
  });

  it('a body without the success property is a success', async () => {
    const operation = await read(proxyAnswering({ body: { ok: false, data: [] } }, { rootProperty: 'data' }));
    expect(operation.wasSuccessful()).toBe(true);
  });

  it("Ext pitfall 22 fixed: a 200 body that is not JSON fails with kind 'parse'", async () => {
    const error = await proxyErrorOf(read(proxyAnswering({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"id": 1, "na' })));
    expect(error.kind).toBe('parse');
    expect(error.status).toBe(200);
  });

  it("Ext pitfall 22 fixed: an HTML page answered with 200 (a login page) fails with kind 'parse', it is not an empty success", async () => {
    const html = '<!doctype html><html><body><h1>Please sign in</h1></body></html>';
    const error = await proxyErrorOf(read(proxyAnswering({ status: 200, headers: { 'content-type': 'text/html' }, body: html })));
    expect(error.kind).toBe('parse');
  });

  it('a text/html error page that does not start with markup is still named an HTML page; JSON labelled text/html is read', async () => {
    const page = await proxyErrorOf(read(proxyAnswering({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: 'Service temporarily unavailable' })));
    expect(page.kind).toBe('parse');
    expect(page.message).toMatch(/HTML page/);
    const mislabelled = await read(proxyAnswering({ status: 200, headers: { 'content-type': 'text/html' }, body: '[{"id":1,"name":"Ed"}]' }));
    expect(mislabelled.resultSet?.records).toHaveLength(1);
  });

  it('Ext pitfall 22 fixed for writes: a create answered with an unparseable 201 is not committed', async () => {
    const fetch = recordingFetch(() => ({ status: 201, headers: { 'content-type': 'application/json' }, body: '{"id": 5, "na' }));
    const proxy = new RestProxy({ url: 'http://api.test/users', model: User, fetch, retry: 0 });
    const user = new User({ name: 'Ed' });
    const error = await proxyErrorOf(proxy.create(new Operation({ action: 'create', records: [user] })));
    expect(error.kind).toBe('parse');
    expect(user.phantom).toBe(true);
    expect(user.getId()).toBeUndefined();
  });
});

describe('create answers (Ext pitfall 21 fixed: unknown create answers never commit a phantom)', () => {
  it('the Location header gives a created record its id when the body has none', async () => {
    const fetch = recordingFetch(() => ({ status: 201, headers: { Location: 'http://api.test/users/42' } }));
    User.setProxy(new RestProxy({ url: 'http://api.test/users', model: User, fetch, retry: 0 }));
    const user = new User({ name: 'Ed' });
    await user.save();
    expect(user.getId()).toBe(42);
    expect(user.phantom).toBe(false);
  });

  it("a batched create answered with fewer items than records fails with kind 'server'", async () => {
    const fetch = recordingFetch(() => ({ status: 201, body: [{ id: 1, name: 'A' }] }));
    const proxy = new RestProxy({ url: 'http://api.test/users', model: User, fetch, retry: 0, batchActions: true });
    const a = new User({ name: 'A' });
    const b = new User({ name: 'B' });
    const error = await proxyErrorOf(proxy.create(new Operation({ action: 'create', records: [a, b] })));
    expect(error.kind).toBe('server');
    expect(b.phantom).toBe(true);
    expect(b.getId()).toBeUndefined();
  });

  it('a created record takes the id from the body', async () => {
    const fetch = recordingFetch(() => ({ status: 201, body: { id: 7, name: 'Ed' } }));
    User.setProxy(new RestProxy({ url: 'http://api.test/users', model: User, fetch, retry: 0 }));
    const user = new User({ name: 'Ed' });
    await user.save();
    expect(user.getId()).toBe(7);
    expect(user.phantom).toBe(false);
    expect(user.dirty).toBe(false);
  });
});
