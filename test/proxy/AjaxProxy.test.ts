/**
 * AjaxProxy, the fetch transport (API.md section 2): verbs, headers, credentials, Basic auth,
 * paramsAsJson, timeout and abort, Content-Type / Accept, relative urls and redirected writes.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AjaxProxy, Model, Operation, ProxyError, RestProxy } from '../../src/index.js';
import { recordingFetch, type Answer, type RecordedCall, type RecordingFetch } from '../helpers/recordingFetch.js';
import { capturingInit, neverAnswer, serverLike, objectBody, pathOf, proxyErrorOf, queryOf } from '../helpers/proxyTestKit.js';
import { inBrowser } from '../helpers/inBrowser.js';

class User extends Model<{ id: number; name: string }> {
  static override fields = ['id', 'name'];
}

type AjaxConfig = NonNullable<ConstructorParameters<typeof AjaxProxy>[0]>;

const URL_BASE = 'http://api.test/users';
let fetch: RecordingFetch;

function ajaxProxy(config: AjaxConfig = {}): AjaxProxy {
  return new AjaxProxy({ url: URL_BASE, model: User, fetch, retry: 0, ...config });
}

function saved(id: number, name: string): User {
  const user = new User({ id, name });
  user.set('name', `${name}!`);
  return user;
}

/** Run one operation of each action through `proxy` and return the verbs sent, in order. */
async function verbsOf(proxy: AjaxProxy): Promise<string[]> {
  await proxy.create(new Operation({ action: 'create', records: [new User({ name: 'New' })] }));
  await proxy.read(new Operation({ action: 'read' }));
  await proxy.update(new Operation({ action: 'update', records: [saved(2, 'Ed')] }));
  await proxy.destroy(new Operation({ action: 'destroy', records: [new User({ id: 3, name: 'Old' })] }));
  return fetch.calls.map((call) => call.method);
}

beforeEach(() => {
  fetch = recordingFetch(serverLike());
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('AjaxProxy: actionMethods and getMethod', () => {
  it('defaults to POST, GET, POST, POST', async () => {
    expect(await verbsOf(ajaxProxy())).toEqual(['POST', 'GET', 'POST', 'POST']);
  });

  it('a partial object keeps the defaults for the other actions', async () => {
    const proxy = ajaxProxy({ actionMethods: { update: 'PATCH' } });
    expect(await verbsOf(proxy)).toEqual(['POST', 'GET', 'PATCH', 'POST']);
  });

  it("a partial object on RestProxy keeps RestProxy's own defaults", async () => {
    const proxy = new RestProxy({ url: URL_BASE, model: User, fetch, retry: 0, actionMethods: { update: 'PATCH' } });
    expect(await verbsOf(proxy)).toEqual(['POST', 'GET', 'PATCH', 'DELETE']);
  });

  it('getMethod(request) returns the verb for request.action', () => {
    const proxy = ajaxProxy({ actionMethods: { destroy: 'DELETE' } });
    const request = proxy.buildRequest(new Operation({ action: 'destroy', records: [new User({ id: 3, name: 'Old' })] }));
    expect(proxy.getMethod(request)).toBe('DELETE');
    expect(proxy.getMethod(proxy.buildRequest(new Operation({ action: 'read' })))).toBe('GET');
  });

  it('the AjaxProxy does not append ids: an update is sent to the configured url', async () => {
    await ajaxProxy().update(new Operation({ action: 'update', records: [saved(2, 'Ed')] }));
    expect(pathOf(fetch.last().url)).toBe('/users');
  });
});

describe('AjaxProxy: headers', () => {
  it('sends the configured headers with every request', async () => {
    await verbsOf(ajaxProxy({ headers: { 'X-Tenant': 'acme' } }));
    for (const call of fetch.calls) expect(call.headers['x-tenant']).toBe('acme');
  });

  it('headers is a writable property', async () => {
    const proxy = ajaxProxy();
    proxy.headers = { 'X-Trace': 'abc' };
    await proxy.read(new Operation({ action: 'read' }));
    expect(fetch.last().headers['x-trace']).toBe('abc');
  });

  it('every request carries Accept: application/json', async () => {
    await verbsOf(ajaxProxy());
    for (const call of fetch.calls) expect(call.headers.accept).toMatch(/application\/json/);
  });

  it('a request with a JSON body carries Content-Type: application/json; one without a body has none', async () => {
    const proxy = new RestProxy({ url: URL_BASE, model: User, fetch, retry: 0 });
    await proxy.create(new Operation({ action: 'create', records: [new User({ name: 'New' })] }));
    await proxy.read(new Operation({ action: 'read' }));
    await proxy.destroy(new Operation({ action: 'destroy', records: [new User({ id: 3, name: 'Old' })] }));
    const [post, get, del] = fetch.calls;
    expect(post?.headers['content-type']).toMatch(/^application\/json/);
    expect(post?.json).toEqual({ name: 'New' });
    expect(get?.body).toBeUndefined();
    expect(get?.headers['content-type']).toBeUndefined();
    expect(del?.body).toBeUndefined();
    expect(del?.headers['content-type']).toBeUndefined();
  });

  it('withCredentials sends credentials: include', async () => {
    const captured = capturingInit(fetch);
    await ajaxProxy({ fetch: captured, withCredentials: true }).read(new Operation({ action: 'read' }));
    expect(captured.inits[0]?.credentials).toBe('include');
  });

  it('without withCredentials, credentials are not include', async () => {
    const captured = capturingInit(fetch);
    await ajaxProxy({ fetch: captured }).read(new Operation({ action: 'read' }));
    expect(captured.inits[0]?.credentials).not.toBe('include');
  });

  it('username and password give an HTTP Basic Authorization header', async () => {
    await ajaxProxy({ username: 'ed', password: 's3cret:x' }).read(new Operation({ action: 'read' }));
    expect(fetch.last().headers.authorization).toBe(`Basic ${btoa('ed:s3cret:x')}`);
  });

  it('no username: no Authorization header', async () => {
    await ajaxProxy().read(new Operation({ action: 'read' }));
    expect(fetch.last().headers.authorization).toBeUndefined();
  });

  it('a configured header replaces a default one whatever its case, and request.headers shows what was sent', async () => {
    const proxy = ajaxProxy({ headers: { 'CONTENT-TYPE': 'application/vnd.api+json', Accept: ' application/vnd.api+json ' } });
    const operation = new Operation({ action: 'create', records: [new User({ name: 'New' })], headers: { 'X-Trace': 't1' } });
    await proxy.create(operation);
    expect(fetch.last().headers['content-type']).toBe('application/vnd.api+json');
    expect(fetch.last().headers.accept).toBe('application/vnd.api+json');
    expect(operation.request?.headers).toEqual({ accept: 'application/vnd.api+json', 'content-type': 'application/vnd.api+json', 'x-trace': 't1' });
  });

  it("a header fetch would refuse: in the proxy's headers a TypeError at construction, in an operation's a failure of kind 'config'; nothing is sent", async () => {
    expect(() => ajaxProxy({ headers: { 'X Trace': 'abc' } })).toThrow(/headers: the header name "X Trace" is not valid/);
    const badValue = await proxyErrorOf(ajaxProxy().read(new Operation({ action: 'read', headers: { 'X-Trace': 'a\r\nSet-Cookie: x=1' } })));
    expect(badValue.kind).toBe('config');
    expect(badValue.message).toMatch(/"X-Trace"/);
    expect(fetch.calls).toHaveLength(0);
  });
});

describe('AjaxProxy: params and body', () => {
  it('params go to the query string for every method; the body is only what the writer produced', async () => {
    const proxy = ajaxProxy({ extraParams: { tenant: 'acme' } });
    await proxy.create(new Operation({ action: 'create', records: [new User({ name: 'New' })], params: { notify: 'yes' } }));
    const post = fetch.last();
    expect(queryOf(post.url).get('tenant')).toBe('acme');
    expect(queryOf(post.url).get('notify')).toBe('yes');
    expect(post.json).toEqual({ name: 'New' });
  });

  it('paramsAsJson merges the params into the JSON body of a non-GET request instead of the query', async () => {
    const proxy = ajaxProxy({ paramsAsJson: true, extraParams: { tenant: 'acme' } });
    await proxy.create(new Operation({ action: 'create', records: [new User({ name: 'New' })] }));
    const post = fetch.last();
    expect(objectBody(post.json)).toMatchObject({ name: 'New', tenant: 'acme' });
    expect(queryOf(post.url).has('tenant')).toBe(false);
    expect(post.headers['content-type']).toMatch(/^application\/json/);
  });

  it('paramsAsJson leaves a GET alone: params stay in the query, no body', async () => {
    const proxy = ajaxProxy({ paramsAsJson: true, extraParams: { tenant: 'acme' } });
    await proxy.read(new Operation({ action: 'read', page: 1, start: 0, limit: 10 }));
    const get = fetch.last();
    expect(queryOf(get.url).get('tenant')).toBe('acme');
    expect(queryOf(get.url).get('limit')).toBe('10');
    expect(get.body).toBeUndefined();
  });
});

describe('AjaxProxy: timeout and abort', () => {
  it("a request running past timeout fails with kind 'timeout' and status 0", async () => {
    fetch = recordingFetch(neverAnswer);
    const operation = new Operation({ action: 'read' });
    const started = Date.now();
    const error = await proxyErrorOf(ajaxProxy({ timeout: 50 }).read(operation));
    expect(error.kind).toBe('timeout');
    expect(error.status).toBe(0);
    expect(error.message).toContain('GET');
    expect(error.message).toContain('/users');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(operation.success).toBe(false);
    expect(operation.error).toBe(error);
  });

  it('the fetch is aborted when the timeout fires', async () => {
    fetch = recordingFetch(neverAnswer);
    await proxyErrorOf(ajaxProxy({ timeout: 50 }).read(new Operation({ action: 'read' })));
    expect(fetch.last().signal?.aborted).toBe(true);
  });

  it("the caller's AbortSignal aborts the request with kind 'abort'", async () => {
    fetch = recordingFetch(neverAnswer);
    const controller = new AbortController();
    const operation = new Operation({ action: 'read', signal: controller.signal });
    const pending = ajaxProxy().read(operation);
    await vi.waitFor(() => expect(fetch.calls).toHaveLength(1));
    controller.abort();
    const error = await proxyErrorOf(pending);
    expect(error.kind).toBe('abort');
    expect(error.status).toBe(0);
    expect(fetch.last().signal?.aborted).toBe(true);
    expect(operation.hasException()).toBe(true);
  });

  it("an already aborted signal fails with kind 'abort'", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await proxyErrorOf(ajaxProxy().read(new Operation({ action: 'read', signal: controller.signal })));
    expect(error.kind).toBe('abort');
  });

  it('an aborted request is not retried, even with retries on', async () => {
    fetch = recordingFetch(neverAnswer);
    const controller = new AbortController();
    const pending = ajaxProxy({ retry: 2 }).read(new Operation({ action: 'read', signal: controller.signal }));
    await vi.waitFor(() => expect(fetch.calls).toHaveLength(1));
    controller.abort();
    expect((await proxyErrorOf(pending)).kind).toBe('abort');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fetch.calls).toHaveLength(1);
  });
});

describe('AjaxProxy: transport failures', () => {
  // A page always has a location, and it cannot be removed.
  it.skipIf(inBrowser)("a relative url with no location fails with kind 'config' asking for an absolute url", async () => {
    expect(typeof globalThis.location).toBe('undefined');
    const operation = new Operation({ action: 'read' });
    const error = await proxyErrorOf(ajaxProxy({ url: '/users' }).read(operation));
    expect(error.kind).toBe('config');
    expect(error.message).toMatch(/absolute/i);
    expect(fetch.calls).toHaveLength(0);
  });

  it('a relative url is resolved against location where there is one', async () => {
    // A page has its own location (which cannot be replaced: vi.stubGlobal throws); Node gets one.
    if (!inBrowser) vi.stubGlobal('location', new URL('http://app.test/admin/index.html'));
    await ajaxProxy({ url: '/users' }).read(new Operation({ action: 'read' }));
    expect(fetch.last().url.startsWith(`${location.origin}/users`)).toBe(true);
  });

  it('a url with credentials is never sent, and the message does not print the password', async () => {
    const proxy = ajaxProxy({ url: 'http://ed:s3cret@api.test/users' });
    const error = await proxyErrorOf(proxy.read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('config');
    expect(error.message).toMatch(/user name or password/);
    expect(error.message).not.toContain('s3cret');
    expect(fetch.calls).toHaveLength(0);
  });

  it("writes are sent with redirect: 'manual' (reads follow); a 307 to a write fails with kind 'http' naming the redirect and its Location", async () => {
    fetch = recordingFetch((call) => (call.method === 'GET' ? { body: [] } : { status: 307, headers: { Location: 'http://elsewhere.test/v2/users' } }));
    const inits = capturingInit(fetch);
    const proxy = ajaxProxy({ fetch: inits });
    await proxy.read(new Operation({ action: 'read' }));
    const record = new User({ name: 'New' });
    const error = await proxyErrorOf(proxy.create(new Operation({ action: 'create', records: [record] })));
    expect(inits.inits.map((init) => init.redirect)).toEqual([undefined, 'manual']);
    expect(error).toBeInstanceOf(ProxyError);
    expect(error.kind).toBe('http');
    expect(error.status).toBe(307);
    expect(error.mayHaveBeenApplied).toBe(false);
    expect(error.message).toMatch(/redirect to http:\/\/elsewhere\.test\/v2\/users/);
    expect(error.message).toMatch(/set the proxy's url to "http:\/\/elsewhere\.test\/v2\/users"/);
    expect(record.phantom).toBe(true);
  });

  it('an opaque redirect (what a browser gives for redirect: manual) fails the write the same way, without a Location to name', async () => {
    fetch = recordingFetch(() => {
      const response = new Response(null, { status: 200 });
      Object.defineProperty(response, 'type', { value: 'opaqueredirect' });
      Object.defineProperty(response, 'status', { value: 0 });
      return response;
    });
    const error = await proxyErrorOf(ajaxProxy().create(new Operation({ action: 'create', records: [new User({ name: 'New' })] })));
    expect(error.kind).toBe('http');
    expect(error.message).toMatch(/answered a redirect; writes never follow redirects/);
  });

  it('a redirected read is fine', async () => {
    fetch = recordingFetch(() => ({ status: 200, body: [{ id: 1, name: 'Ed' }], redirected: true }));
    const operation = await ajaxProxy().read(new Operation({ action: 'read' }));
    expect(operation.wasSuccessful()).toBe(true);
    expect(operation.resultSet?.count).toBe(1);
  });

  it("a fetch that rejects (network down) fails with kind 'network', status 0 and no response", async () => {
    fetch = recordingFetch(() => new TypeError('fetch failed'));
    const error = await proxyErrorOf(ajaxProxy().read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('network');
    expect(error.status).toBe(0);
    expect(error.response).toBeUndefined();
  });

  it('retry 0: a 503 read is tried once', async () => {
    fetch = recordingFetch(() => ({ status: 503, body: { message: 'busy' } }));
    const error = await proxyErrorOf(ajaxProxy({ retry: 0 }).read(new Operation({ action: 'read' })));
    expect(error.status).toBe(503);
    expect(fetch.calls).toHaveLength(1);
  });

  it('a POST is not retried by default (it is not idempotent)', async () => {
    fetch = recordingFetch(() => ({ status: 503, body: { message: 'busy' } }));
    const proxy = new AjaxProxy({ url: URL_BASE, model: User, fetch });
    await proxyErrorOf(proxy.create(new Operation({ action: 'create', records: [new User({ name: 'New' })] })));
    expect(fetch.calls).toHaveLength(1);
  });

  it('the fetch option is used instead of the global fetch, and is a writable property', async () => {
    const proxy = ajaxProxy();
    const other = recordingFetch();
    proxy.fetch = other;
    await proxy.read(new Operation({ action: 'read' }));
    expect(other.calls).toHaveLength(1);
    expect(fetch.calls).toHaveLength(0);
  });
});

describe('AjaxProxy: resilience options', () => {
  const busyThenOk = (failures: number) => (call: RecordedCall, index: number): Answer =>
    index < failures ? { status: 503, headers: { 'Retry-After': '0' }, body: { message: 'busy' } } : serverLike()(call);

  it('by default a GET answered 503 is retried (honouring Retry-After) and then succeeds', async () => {
    fetch = recordingFetch(busyThenOk(1));
    const proxy = new AjaxProxy({ url: URL_BASE, model: User, fetch });
    const operation = await proxy.read(new Operation({ action: 'read' }));
    expect(operation.wasSuccessful()).toBe(true);
    expect(fetch.calls).toHaveLength(2);
  });

  it('the default limit is 2 retries, and the exception event fires once, after the last try', async () => {
    fetch = recordingFetch(busyThenOk(10));
    const proxy = new AjaxProxy({ url: URL_BASE, model: User, fetch });
    let fired = 0;
    proxy.on('exception', () => {
      fired += 1;
    });
    const error = await proxyErrorOf(proxy.read(new Operation({ action: 'read' })));
    expect(error.status).toBe(503);
    expect(fetch.calls).toHaveLength(3);
    expect(fired).toBe(1);
  });

  it('a number sets the retry limit', async () => {
    fetch = recordingFetch(busyThenOk(10));
    await proxyErrorOf(ajaxProxy({ retry: 1 }).read(new Operation({ action: 'read' })));
    expect(fetch.calls).toHaveLength(2);
  });

  it('idempotencyKey sends an Idempotency-Key with a create, lets the POST be retried, and keeps the same key', async () => {
    fetch = recordingFetch(busyThenOk(1));
    const proxy = new AjaxProxy({ url: URL_BASE, model: User, fetch, idempotencyKey: true });
    const user = new User({ name: 'New' });
    await proxy.create(new Operation({ action: 'create', records: [user] }));
    expect(fetch.calls).toHaveLength(2);
    const [first, second] = fetch.calls;
    expect(first?.headers['idempotency-key']).toBeTruthy();
    expect(second?.headers['idempotency-key']).toBe(first?.headers['idempotency-key']);
  });

  it("idempotencyKey: a later sync of the same pending create sends the same key", async () => {
    fetch = recordingFetch((call, index) => (index === 0 ? { status: 500, body: {} } : serverLike()(call)));
    const proxy = new AjaxProxy({ url: URL_BASE, model: User, fetch, idempotencyKey: true, retry: 0 });
    const user = new User({ name: 'New' });
    await proxyErrorOf(proxy.create(new Operation({ action: 'create', records: [user] })));
    await proxy.create(new Operation({ action: 'create', records: [user] }));
    const keys = fetch.calls.map((call) => call.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
  });

  it("etag keeps a record's last ETag and sends it as If-Match with its PUT and DELETE", async () => {
    fetch = recordingFetch((call) =>
      call.method === 'GET' ? { headers: { ETag: '"2-7"' }, body: { id: 2, name: 'Ed' } } : call.method === 'DELETE' ? { status: 204 } : { headers: { ETag: '"2-8"' }, body: call.json ?? {} },
    );
    const proxy = new RestProxy({ url: URL_BASE, model: User, fetch, retry: 0, etag: true });
    const [record] = (await proxy.read(new Operation({ action: 'read', id: 2 }))).resultSet?.records ?? [];
    if (!(record instanceof User)) throw new Error('expected a User');
    record.set('name', 'Edward');
    await proxy.update(new Operation({ action: 'update', records: [record] }));
    expect(fetch.last().headers['if-match']).toBe('"2-7"');
    await proxy.destroy(new Operation({ action: 'destroy', records: [record] }));
    expect(fetch.last().headers['if-match']).toBe('"2-8"');
  });

  it('without etag no If-Match is sent', async () => {
    fetch = recordingFetch((call) => (call.method === 'GET' ? { headers: { ETag: '"2-7"' }, body: { id: 2, name: 'Ed' } } : { status: 200, body: call.json ?? {} }));
    const proxy = new RestProxy({ url: URL_BASE, model: User, fetch, retry: 0 });
    const [record] = (await proxy.read(new Operation({ action: 'read', id: 2 }))).resultSet?.records ?? [];
    if (!(record instanceof User)) throw new Error('expected a User');
    record.set('name', 'Edward');
    await proxy.update(new Operation({ action: 'update', records: [record] }));
    expect(fetch.last().headers['if-match']).toBeUndefined();
  });
});
