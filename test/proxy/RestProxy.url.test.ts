/**
 * RestProxy url rules (API.md section 2, "RestProxy"): action to verb and path, ids, format,
 * trailing slashes, a base url's query and fragment, url templates, and buildUrl idempotence.
 * Each Ext pitfall of url construction that the contract fixes has a test here.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Model, Operation, Rest, RestProxy } from '../../src/index.js';
import { recordingFetch, type RecordingFetch } from '../helpers/recordingFetch.js';
import { idsInBody, pathOf, proxyErrorOf, queryOf, rawPathOf, serverLike } from '../helpers/proxyTestKit.js';

class User extends Model<{ id: number | string; name: string }> {
  static override fields = ['id', 'name'];
}

class Post extends Model<{ id: number; userId: number | string; title: string }> {
  static override fields = ['id', 'userId', 'title'];
}

type RestConfig = NonNullable<ConstructorParameters<typeof RestProxy>[0]>;

const NOW = 1_700_000_000_000;
let fetch: RecordingFetch;

function restProxy(config: RestConfig = {}): RestProxy {
  return new RestProxy({ url: 'http://api.test/users', model: User, fetch, retry: 0, ...config });
}

/** The url buildUrl gives for a read by id (no request is sent). */
function readUrl(proxy: RestProxy, id?: number | string): string {
  const operation = id === undefined ? new Operation({ action: 'read' }) : new Operation({ action: 'read', id });
  return proxy.buildUrl(proxy.buildRequest(operation));
}

beforeEach(() => {
  fetch = recordingFetch(serverLike());
  vi.spyOn(Date, 'now').mockReturnValue(NOW);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('RestProxy: action to request (appendId true, no format)', () => {
  it('is also exported as Rest', () => {
    expect(Rest).toBe(RestProxy);
    expect(new Rest({ url: '/users' })).toBeInstanceOf(RestProxy);
  });

  it('create: POST {url}, with no id of the client making in the path', async () => {
    await restProxy().create(new Operation({ action: 'create', records: [new User({ name: 'Ed' })] }));
    expect(fetch.calls).toHaveLength(1);
    expect(fetch.last().method).toBe('POST');
    expect(pathOf(fetch.last().url)).toBe('/users');
  });

  it('read of the collection: GET {url}', async () => {
    await restProxy().read(new Operation({ action: 'read' }));
    expect(fetch.last().method).toBe('GET');
    expect(pathOf(fetch.last().url)).toBe('/users');
  });

  it('read by id: GET {url}/<id>, and the id is not sent again as a query param', async () => {
    fetch = recordingFetch(() => ({ body: { id: 2, name: 'Ed' } }));
    await restProxy().read(new Operation({ action: 'read', id: 2 }));
    expect(fetch.last().method).toBe('GET');
    expect(pathOf(fetch.last().url)).toBe('/users/2');
    expect(queryOf(fetch.last().url).has('id')).toBe(false);
  });

  it('update: PUT {url}/<id>', async () => {
    const ed = new User({ id: 2, name: 'Ed' });
    ed.set('name', 'Edward');
    await restProxy().update(new Operation({ action: 'update', records: [ed] }));
    expect(fetch.last().method).toBe('PUT');
    expect(pathOf(fetch.last().url)).toBe('/users/2');
  });

  it('destroy: DELETE {url}/<id>', async () => {
    await restProxy().destroy(new Operation({ action: 'destroy', records: [new User({ id: 2, name: 'Ed' })] }));
    expect(fetch.last().method).toBe('DELETE');
    expect(pathOf(fetch.last().url)).toBe('/users/2');
  });
});

describe('RestProxy: which id goes into the path', () => {
  it('0 is a valid id (read by id and record)', async () => {
    fetch = recordingFetch(() => ({ body: { id: 0, name: 'Zero' } }));
    const proxy = restProxy();
    await proxy.read(new Operation({ action: 'read', id: 0 }));
    expect(pathOf(fetch.last().url)).toBe('/users/0');
    await proxy.destroy(new Operation({ action: 'destroy', records: [new User({ id: 0, name: 'Zero' })] }));
    expect(pathOf(fetch.last().url)).toBe('/users/0');
  });

  it("'' is not a valid id: nothing is appended", () => {
    expect(pathOf(readUrl(restProxy(), ''))).toBe('/users');
  });

  it("the record's id wins over the operation's id when the operation is about one saved record", async () => {
    const ed = new User({ id: 2, name: 'Ed' });
    await restProxy().update(new Operation({ action: 'update', records: [ed], id: 9 }));
    expect(pathOf(fetch.last().url)).toBe('/users/2');
  });

  it('a phantom record gets the collection url', async () => {
    const phantom = new User({ name: 'New' });
    expect(phantom.phantom).toBe(true);
    await restProxy().create(new Operation({ action: 'create', records: [phantom] }));
    expect(pathOf(fetch.last().url)).toBe('/users');
  });

  it('ids are percent-encoded (Foo & Bar, a/b, ?, #) so that the path, query and fragment stay intact', async () => {
    fetch = recordingFetch(() => ({ body: { id: 'x', name: 'X' } }));
    const proxy = restProxy({ noCache: false });
    await proxy.read(new Operation({ action: 'read', id: 'Foo & Bar' }));
    expect(rawPathOf(fetch.last().url)).toBe('/users/Foo%20%26%20Bar');
    await proxy.read(new Operation({ action: 'read', id: 'a/b' }));
    expect(rawPathOf(fetch.last().url)).toBe('/users/a%2Fb');
    await proxy.read(new Operation({ action: 'read', id: 'a?b#c' }));
    expect(rawPathOf(fetch.last().url)).toBe('/users/a%3Fb%23c');
    expect(fetch.last().url).not.toContain('#');
  });

  it('Ext pitfall 6 fixed: a batched update of several records goes to the collection url, not the first id', async () => {
    const proxy = restProxy({ batchActions: true });
    const a = new User({ id: 1, name: 'A' });
    const b = new User({ id: 2, name: 'B' });
    a.set('name', 'A2');
    b.set('name', 'B2');
    await proxy.update(new Operation({ action: 'update', records: [a, b] }));
    expect(fetch.calls).toHaveLength(1);
    expect(fetch.last().method).toBe('PUT');
    expect(pathOf(fetch.last().url)).toBe('/users');
    expect(Array.isArray(fetch.last().json)).toBe(true);
  });

  it('a batched destroy of several records goes to the collection url and carries their ids', async () => {
    const proxy = restProxy({ batchActions: true });
    const records = [new User({ id: 1, name: 'A' }), new User({ id: 2, name: 'B' })];
    await proxy.destroy(new Operation({ action: 'destroy', records }));
    expect(fetch.calls).toHaveLength(1);
    expect(fetch.last().method).toBe('DELETE');
    expect(pathOf(fetch.last().url)).toBe('/users');
    expect(idsInBody(fetch.last().json)).toEqual([1, 2]);
  });

  it('appendId false: nothing is appended and a read by id carries the id as idParam', async () => {
    fetch = recordingFetch(() => ({ body: { id: 2, name: 'Ed' } }));
    const proxy = restProxy({ appendId: false });
    await proxy.read(new Operation({ action: 'read', id: 2 }));
    expect(pathOf(fetch.last().url)).toBe('/users');
    expect(queryOf(fetch.last().url).get('id')).toBe('2');

    const ed = new User({ id: 2, name: 'Ed' });
    ed.set('name', 'Edward');
    await proxy.update(new Operation({ action: 'update', records: [ed] }));
    expect(fetch.last().method).toBe('PUT');
    expect(pathOf(fetch.last().url)).toBe('/users');
  });

  it('appendId false with a renamed idParam', async () => {
    fetch = recordingFetch(() => ({ body: { id: 2, name: 'Ed' } }));
    await restProxy({ appendId: false, idParam: 'userId' }).read(new Operation({ action: 'read', id: 2 }));
    const query = queryOf(fetch.last().url);
    expect(query.get('userId')).toBe('2');
    expect(query.has('id')).toBe(false);
  });

  it('appendId set as a property after construction takes effect', () => {
    const proxy = restProxy();
    proxy.appendId = false;
    expect(pathOf(readUrl(proxy, 2))).toBe('/users');
  });
});

describe('RestProxy: format', () => {
  it('ends the path of collection and instance urls', async () => {
    fetch = recordingFetch((call) => (call.method === 'GET' ? { body: { id: 2, name: 'Ed' } } : { status: 201, body: { id: 3, name: 'New' } }));
    const proxy = restProxy({ format: 'json' });
    await proxy.read(new Operation({ action: 'read' }));
    expect(pathOf(fetch.last().url)).toBe('/users.json');
    await proxy.read(new Operation({ action: 'read', id: 2 }));
    expect(pathOf(fetch.last().url)).toBe('/users/2.json');
    await proxy.create(new Operation({ action: 'create', records: [new User({ name: 'New' })] }));
    expect(pathOf(fetch.last().url)).toBe('/users.json');
  });

  it('no second "." when the path already ends with one', () => {
    const proxy = restProxy({ url: 'http://api.test/users.', format: 'json' });
    expect(pathOf(readUrl(proxy))).toBe('/users.json');
  });

  it('Ext pitfall 5: a base url ending with "/" gives /users/2.json, not /users//2.json', () => {
    const proxy = restProxy({ url: 'http://api.test/users/', format: 'json' });
    expect(rawPathOf(readUrl(proxy, 2))).toBe('/users/2.json');
  });

  it('Ext pitfall 1 fixed: the format and id go into the path, before the base url query', () => {
    const proxy = restProxy({ url: 'http://api.test/users?tenant=5', format: 'json' });
    const url = readUrl(proxy, 2);
    expect(url.startsWith('http://api.test/users/2.json?tenant=5')).toBe(true);
    expect(queryOf(url).get('tenant')).toBe('5');
  });
});

describe('RestProxy: a base url with a query string or a fragment', () => {
  it('Ext pitfall 1 fixed: the id lands in the path and the base query survives', async () => {
    fetch = recordingFetch(() => ({ body: { id: 2, name: 'Ed' } }));
    await restProxy({ url: 'http://api.test/users?tenant=5' }).read(new Operation({ action: 'read', id: 2 }));
    const url = fetch.last().url;
    expect(pathOf(url)).toBe('/users/2');
    expect(queryOf(url).get('tenant')).toBe('5');
    expect(url.split('?')).toHaveLength(2);
  });

  it('the base query and the request params share one query string', async () => {
    await restProxy({ url: 'http://api.test/users?tenant=5' }).read(new Operation({ action: 'read', page: 2, start: 25, limit: 25 }));
    const url = fetch.last().url;
    expect(pathOf(url)).toBe('/users');
    const query = queryOf(url);
    expect(query.get('tenant')).toBe('5');
    expect(query.get('page')).toBe('2');
    expect(query.get('_dc')).toBe(String(NOW));
    expect(url.split('?')).toHaveLength(2);
  });

  it('writes to a base url with a query keep it too (PUT /users/2?tenant=5)', async () => {
    const ed = new User({ id: 2, name: 'Ed' });
    ed.set('name', 'Edward');
    await restProxy({ url: 'http://api.test/users?tenant=5' }).update(new Operation({ action: 'update', records: [ed] }));
    expect(pathOf(fetch.last().url)).toBe('/users/2');
    expect(queryOf(fetch.last().url).get('tenant')).toBe('5');
  });

  it('Ext pitfall 2 fixed: a fragment stays after the path, the id and the cache buster go before it', () => {
    const url = readUrl(restProxy({ url: 'http://api.test/users#top' }), 2);
    const parsed = new URL(url);
    expect(parsed.pathname).toBe('/users/2');
    expect(parsed.hash).toBe('#top');
    expect(parsed.searchParams.get('_dc')).toBe(String(NOW));
  });

  it('Ext pitfall 10 fixed: a base url ending with "?" does not give "?&"', () => {
    const url = readUrl(restProxy({ url: 'http://api.test/users?' }), 2);
    expect(url).not.toContain('?&');
    expect(pathOf(url)).toBe('/users/2');
  });
});

describe('RestProxy: trailingSlash', () => {
  it('every generated path ends with "/"', async () => {
    fetch = recordingFetch((call) => (call.method === 'GET' ? { body: { id: 2, name: 'Ed' } } : { status: 201, body: { id: 3, name: 'New' } }));
    const proxy = restProxy({ trailingSlash: true });
    await proxy.read(new Operation({ action: 'read' }));
    expect(rawPathOf(fetch.last().url)).toBe('/users/');
    await proxy.read(new Operation({ action: 'read', id: 2 }));
    expect(rawPathOf(fetch.last().url)).toBe('/users/2/');
    await proxy.create(new Operation({ action: 'create', records: [new User({ name: 'New' })] }));
    expect(rawPathOf(fetch.last().url)).toBe('/users/');
  });

  it('no doubled slash when the base url already ends with one', () => {
    const proxy = restProxy({ url: 'http://api.test/users/', trailingSlash: true });
    expect(rawPathOf(readUrl(proxy))).toBe('/users/');
    expect(rawPathOf(readUrl(proxy, 2))).toBe('/users/2/');
  });

  it('the format comes last: /users/2.json, /users.json', () => {
    const proxy = restProxy({ trailingSlash: true, format: 'json' });
    expect(rawPathOf(readUrl(proxy, 2))).toBe('/users/2.json');
    expect(rawPathOf(readUrl(proxy))).toBe('/users.json');
  });

  it('the slash goes into the path, before a base url query', () => {
    const url = readUrl(restProxy({ url: 'http://api.test/users?tenant=5', trailingSlash: true }), 2);
    expect(rawPathOf(url)).toBe('/users/2/');
    expect(queryOf(url).get('tenant')).toBe('5');
  });
});

describe('RestProxy: url templates', () => {
  const postsUrl = 'http://api.test/users/{userId}/posts';

  it("fills {name} from the operation's params and does not send that param again", async () => {
    await restProxy({ url: postsUrl, model: Post }).read(new Operation({ action: 'read', params: { userId: 5, q: 'x' } }));
    const url = fetch.last().url;
    expect(pathOf(url)).toBe('/users/5/posts');
    expect(queryOf(url).has('userId')).toBe(false);
    expect(queryOf(url).get('q')).toBe('x');
  });

  it("fills {name} from the record's fields", async () => {
    const post = new Post({ id: 3, userId: 7, title: 'Hi' });
    post.set('title', 'Hello');
    await restProxy({ url: postsUrl, model: Post }).update(new Operation({ action: 'update', records: [post] }));
    expect(fetch.last().method).toBe('PUT');
    expect(pathOf(fetch.last().url)).toBe('/users/7/posts/3');
  });

  it("the operation's params come before the record's fields", async () => {
    const post = new Post({ id: 3, userId: 7, title: 'Hi' });
    await restProxy({ url: postsUrl, model: Post }).destroy(new Operation({ action: 'destroy', records: [post], params: { userId: 8 } }));
    expect(pathOf(fetch.last().url)).toBe('/users/8/posts/3');
  });

  it('template values are encoded', async () => {
    await restProxy({ url: postsUrl, model: Post }).read(new Operation({ action: 'read', params: { userId: 'a b/c' } }));
    expect(rawPathOf(fetch.last().url)).toBe('/users/a%20b%2Fc/posts');
  });

  it("a missing value fails the operation with kind 'config' naming it, and nothing is sent", async () => {
    const operation = new Operation({ action: 'read' });
    const error = await proxyErrorOf(restProxy({ url: postsUrl, model: Post }).read(operation));
    expect(error.kind).toBe('config');
    expect(error.message).toContain('userId');
    expect(fetch.calls).toHaveLength(0);
    expect(operation.success).toBe(false);
    expect(operation.error).toBe(error);
  });
});

describe('RestProxy: buildRequest and buildUrl', () => {
  it('buildUrl returns the url and sets request.url', () => {
    const proxy = restProxy({ noCache: false });
    const request = proxy.buildRequest(new Operation({ action: 'read', id: 2 }));
    const url = proxy.buildUrl(request);
    expect(url).toBe('http://api.test/users/2');
    expect(request.url).toBe(url);
  });

  it('buildUrl is idempotent: no second id, format, slash or cache buster', () => {
    const proxy = restProxy({ url: 'http://api.test/users?tenant=5', format: 'json', trailingSlash: true });
    const request = proxy.buildRequest(new Operation({ action: 'read', id: 2 }));
    const first = proxy.buildUrl(request);
    const second = proxy.buildUrl(request);
    expect(second).toBe(first);
    expect(rawPathOf(second)).toBe('/users/2.json');
    expect(queryOf(second).getAll('_dc')).toEqual([String(NOW)]);
    expect(queryOf(second).getAll('tenant')).toEqual(['5']);
  });

  it('buildUrl is idempotent without the cache buster too (noCache false, and writes)', () => {
    const reader = restProxy({ noCache: false });
    const readRequest = reader.buildRequest(new Operation({ action: 'read', id: 2 }));
    expect([reader.buildUrl(readRequest), reader.buildUrl(readRequest)]).toEqual(['http://api.test/users/2', 'http://api.test/users/2']);

    const writer = restProxy();
    const ed = new User({ id: 2, name: 'Ed' });
    const updateRequest = writer.buildRequest(new Operation({ action: 'update', records: [ed] }));
    expect([writer.buildUrl(updateRequest), writer.buildUrl(updateRequest)]).toEqual(['http://api.test/users/2', 'http://api.test/users/2']);
  });

  it('the id appended to the path is removed from the request params', () => {
    const proxy = restProxy();
    const request = proxy.buildRequest(new Operation({ action: 'read', id: 2 }));
    proxy.buildUrl(request);
    expect(request.params ?? {}).not.toHaveProperty('id');
  });

  it('with appendId false the request params carry idParam = the id', () => {
    const proxy = restProxy({ appendId: false });
    const request = proxy.buildRequest(new Operation({ action: 'read', id: 2 }));
    proxy.buildUrl(request);
    expect(request.params ?? {}).toHaveProperty('id', 2);
  });
});
