/**
 * The proxy stack over real HTTP against the project's test server (test/server/API.md, plain
 * conventions): all four verbs, 201 with a body, 204, 404, 500, 422, 409/412, a stalled
 * answer hitting the timeout, malformed JSON, success:false, HTML error pages, a reset socket.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Model, Operation, RestProxy } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { proxyErrorOf } from '../helpers/proxyTestKit.js';

class User extends Model<{ id: number; name: string; email: string; age: number }> {
  static override fields = ['id', 'name', 'email', 'age'];
}

class Tag extends Model<{ id: string; name: string }> {
  static override fields = ['id', 'name'];
}

class Post extends Model<{ id: number; userId: number; title: string }> {
  static override fields = ['id', 'userId', 'title'];
}

type RestConfig = NonNullable<ConstructorParameters<typeof RestProxy>[0]>;

let server: TestServer;
let proxy: RestProxy;

function makeProxy(config: RestConfig = {}): RestProxy {
  return new RestProxy({ url: `${server.url}/users`, model: User, retry: 0, timeout: 5000, ...config });
}

function usersOf(operation: Operation): User[] {
  return (operation.resultSet?.records ?? []).map((record) => {
    if (!(record instanceof User)) throw new Error(`expected a User, got ${String(record)}`);
    return record;
  });
}

async function loadUser(id: number): Promise<User> {
  const [user] = usersOf(await proxy.read(new Operation({ action: 'read', id })));
  if (!user) throw new Error(`user ${String(id)} not read`);
  return user;
}

function lastRequest(): TestServer['requests'][number] {
  const request = server.requests[server.requests.length - 1];
  if (!request) throw new Error('the server received no request');
  return request;
}

function dbUser(id: number): unknown {
  return server.db.users?.find((row: unknown) => typeof row === 'object' && row !== null && 'id' in row && row.id === id);
}

beforeEach(async () => {
  server = await startTestServer({
    conventions: 'plain',
    resources: {
      users: [
        { id: 1, name: 'Ed', email: 'ed@example.com', age: 30 },
        { id: 2, name: 'Tommy', email: 'tommy@example.com', age: 25 },
      ],
      tags: [{ id: 'a/b', name: 'Slash' }],
      posts: [
        { id: 1, userId: 1, title: 'Hello' },
        { id: 2, userId: 2, title: 'Other' },
      ],
    },
    required: { users: ['name'] },
  });
  proxy = makeProxy();
  User.setProxy(proxy);
});

afterEach(async () => {
  await server.close();
});

describe('the four verbs', () => {
  it('GET collection: records, the cache buster, paging/sort/filter understood by the server', async () => {
    const all = await proxy.read(new Operation({ action: 'read' }));
    expect(usersOf(all).map((user) => user.get('name'))).toEqual(['Ed', 'Tommy']);
    expect(lastRequest().method).toBe('GET');
    expect(lastRequest().path).toBe('/users');
    expect(lastRequest().query.has('_dc')).toBe(true);

    const page = await makeProxy({ reader: { totalHeader: 'X-Total-Count' } }).read(
      new Operation({
        action: 'read',
        start: 0,
        limit: 1,
        sorters: [{ property: 'name', direction: 'DESC' }],
        filters: [{ property: 'age', value: 20, operator: '>' }],
      }),
    );
    expect(usersOf(page).map((user) => user.get('name'))).toEqual(['Tommy']);
    expect(page.resultSet?.total).toBe(2);
  });

  it('GET by id: /users/<id>', async () => {
    const user = await loadUser(2);
    expect(user.get('name')).toBe('Tommy');
    expect(user.phantom).toBe(false);
    expect(lastRequest().path).toBe('/users/2');
    expect(lastRequest().query.has('id')).toBe(false);
  });

  it('an id with a "/" round-trips through the path', async () => {
    const tags = new RestProxy({ url: `${server.url}/tags`, model: Tag, retry: 0 });
    const [tag] = (await tags.read(new Operation({ action: 'read', id: 'a/b' }))).resultSet?.records ?? [];
    expect(tag).toBeInstanceOf(Tag);
    if (tag instanceof Tag) expect(tag.get('name')).toBe('Slash');
    expect(lastRequest().url.startsWith('/tags/a%2Fb')).toBe(true);
  });

  it('POST answered 201 with a body: the record takes the id the server assigned', async () => {
    const user = new User({ name: 'Jamie', email: 'jamie@example.com', age: 41 });
    await user.save();
    const request = lastRequest();
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/users');
    expect(request.query.has('_dc')).toBe(false);
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    expect(request.json).toEqual({ name: 'Jamie', email: 'jamie@example.com', age: 41 });
    expect(user.getId()).toBe(3);
    expect(user.phantom).toBe(false);
    expect(user.dirty).toBe(false);
    expect(dbUser(3)).toMatchObject({ name: 'Jamie' });
  });

  it('PUT /users/<id>: the server has the change and the record is clean', async () => {
    const user = await loadUser(1);
    user.set('age', 31);
    await user.save();
    expect(lastRequest().method).toBe('PUT');
    expect(lastRequest().path).toBe('/users/1');
    expect(dbUser(1)).toMatchObject({ name: 'Ed', age: 31, email: 'ed@example.com' });
    expect(user.dirty).toBe(false);
  });

  it('DELETE /users/<id> answered 204: gone on the server, no body sent', async () => {
    const user = await loadUser(2);
    await user.destroy();
    expect(lastRequest().method).toBe('DELETE');
    expect(lastRequest().path).toBe('/users/2');
    expect(lastRequest().body).toBe('');
    expect(dbUser(2)).toBeUndefined();
  });

  it('a base url with a query string and a format', async () => {
    const user = usersOf(await makeProxy({ url: `${server.url}/users?tenant=5`, format: 'json' }).read(new Operation({ action: 'read', id: 1 })))[0];
    expect(user?.get('name')).toBe('Ed');
    expect(lastRequest().path).toBe('/users/1.json');
    expect(lastRequest().query.get('tenant')).toBe('5');
  });

  it('a url template for a nested collection', async () => {
    const posts = new RestProxy({ url: `${server.url}/users/{userId}/posts`, model: Post, retry: 0 });
    const operation = await posts.read(new Operation({ action: 'read', params: { userId: 2 } }));
    const titles = (operation.resultSet?.records ?? []).map((record) => (record instanceof Post ? record.get('title') : undefined));
    expect(titles).toEqual(['Other']);
    expect(lastRequest().path).toBe('/users/2/posts');
    expect(lastRequest().query.has('userId')).toBe(false);
  });
});

describe('answers without a body', () => {
  it('a PUT answered 204 No Content succeeds and the record is clean', async () => {
    const user = await loadUser(1);
    server.respond('PUT', '/users/1', { status: 204 }, { times: 1 });
    user.set('name', 'Edward');
    const operation = await user.save();
    expect(operation.wasSuccessful()).toBe(true);
    expect(user.dirty).toBe(false);
    expect(user.get('name')).toBe('Edward');
  });
});

describe('error statuses', () => {
  it("404: kind 'http', the message names verb, url and status, the body is kept", async () => {
    const operation = new Operation({ action: 'read', id: 99 });
    const error = await proxyErrorOf(proxy.read(operation));
    expect(error.kind).toBe('http');
    expect(error.status).toBe(404);
    expect(error.message).toContain('GET');
    expect(error.message).toContain('/users/99');
    expect(error.message).toContain('404');
    expect(error.body).toEqual({ success: false, message: 'Not found' });
    expect(operation.hasException()).toBe(true);
  });

  it("500: kind 'http'; the record keeps its edit and the server is unchanged", async () => {
    const user = await loadUser(1);
    server.inject({ type: 'status', status: 500, body: { message: 'boom' }, match: { method: 'PUT' } });
    user.set('age', 99);
    const error = await proxyErrorOf(user.save());
    expect(error.kind).toBe('http');
    expect(error.status).toBe(500);
    expect(error.message).toContain('PUT');
    expect(error.message).toContain('/users/1');
    expect(user.dirty).toBe(true);
    expect(user.get('age')).toBe(99);
    expect(dbUser(1)).toMatchObject({ age: 30 });
  });

  it("422: kind 'validation' with fieldErrors, also on the record", async () => {
    const user = await loadUser(1);
    user.set('name', '');
    const error = await proxyErrorOf(user.save());
    expect(error.kind).toBe('validation');
    expect(error.status).toBe(422);
    expect(error.fieldErrors).toEqual({ name: ['is required'] });
    expect(user.errors).toEqual({ name: ['is required'] });
    expect(user.dirty).toBe(true);
  });

  it('422 on a create: the record stays phantom', async () => {
    const user = new User({ name: '', email: 'x@example.com', age: 1 });
    const error = await proxyErrorOf(user.save());
    expect(error.kind).toBe('validation');
    expect(user.phantom).toBe(true);
    expect(server.db.users).toHaveLength(2);
  });

  it("409: kind 'conflict'", async () => {
    const user = await loadUser(1);
    server.respond('PUT', '/users/1', { status: 409, body: { message: 'Version conflict' } }, { times: 1 });
    user.set('age', 50);
    const error = await proxyErrorOf(user.save());
    expect(error.kind).toBe('conflict');
    expect(error.status).toBe(409);
    expect(user.dirty).toBe(true);
  });

  it("412 (If-Match that does not match): kind 'conflict', nothing deleted", async () => {
    const guarded = makeProxy({ headers: { 'If-Match': '"1-999"' } });
    const error = await proxyErrorOf(guarded.destroy(new Operation({ action: 'destroy', records: [new User({ id: 1, name: 'Ed', email: 'e', age: 1 })] })));
    expect(error.kind).toBe('conflict');
    expect(error.status).toBe(412);
    expect(dbUser(1)).toBeDefined();
  });
});

describe('broken answers', () => {
  it("a stalled answer hits the timeout: kind 'timeout'", async () => {
    server.inject({ type: 'stall', ms: 3000 });
    const started = Date.now();
    const error = await proxyErrorOf(makeProxy({ timeout: 200 }).read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('timeout');
    expect(error.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it("malformed JSON in a 200: kind 'parse'", async () => {
    server.respond('GET', '/users', { status: 200, headers: { 'Content-Type': 'application/json' }, body: '[{"id": 1, "name": "Ed"' }, { times: 1 });
    const error = await proxyErrorOf(proxy.read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('parse');
  });

  it("a truncated 201 to a create: kind 'parse', the record stays phantom", async () => {
    server.inject({ type: 'truncate', match: { method: 'POST' } });
    const user = new User({ name: 'Cut', email: 'cut@example.com', age: 2 });
    const error = await proxyErrorOf(user.save());
    expect(error.kind).toBe('parse');
    expect(user.phantom).toBe(true);
  });

  it("success:false in an envelope: kind 'server' with the message", async () => {
    server.respond('GET', '/users', { status: 200, body: { success: false, message: 'Database offline' } }, { times: 1 });
    const error = await proxyErrorOf(makeProxy({ reader: { rootProperty: 'data' } }).read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('server');
    expect(error.message).toContain('Database offline');
  });

  it("an HTML error page: kind 'http' with the status", async () => {
    server.inject({ type: 'html' });
    const error = await proxyErrorOf(proxy.read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('http');
    expect(error.status).toBe(500);
    expect(error.message).toContain('500');
  });

  it("an HTML page answered with 200: kind 'parse', never an empty success", async () => {
    server.inject({ type: 'html', status: 200 });
    const error = await proxyErrorOf(proxy.read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('parse');
  });

  it("a socket reset before the answer: kind 'network'", async () => {
    server.inject({ type: 'reset-before' });
    const error = await proxyErrorOf(proxy.read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('network');
    expect(error.status).toBe(0);
  });
});

describe('an envelope server', () => {
  it('reads { success, total, data } with rootProperty data', async () => {
    await server.close();
    server = await startTestServer({
      conventions: 'plain',
      envelope: true,
      resources: { users: [{ id: 1, name: 'Ed', email: 'ed@example.com', age: 30 }, { id: 2, name: 'T', email: 't@x', age: 2 }] },
    });
    const operation = await makeProxy({ reader: { rootProperty: 'data' } }).read(new Operation({ action: 'read', start: 0, limit: 1 }));
    expect(usersOf(operation).map((user) => user.getId())).toEqual([1]);
    expect(operation.resultSet?.total).toBe(2);
  });
});
