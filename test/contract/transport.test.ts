/**
 * Acceptance tests for the issue "The transport as layers" (API.md sections 2 and 7), seen from
 * what a user of the public API sees: the requests sent (a recording fetch, or two real test
 * servers for redirects), the errors and the records.
 *
 * 1. Dot segments and ids that are not ids never reach a url.
 * 2. An update or destroy of a record that is not new but has no id is refused.
 * 3. Writes never follow redirects; reads do.
 * 4. Configuration that can never be sent fails with kind 'config' and is never retried.
 * 5. Timeouts are bounded and fire even when fetch ignores the signal.
 * 6. Store.load({ signal }) does not leak abort listeners.
 * 7. Hostile keys in server data.
 * 8. Options that mean nothing or harm are refused at construction.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Model, ProxyError, RestProxy, Store, type RestProxyConfig } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { recordingFetch, type Answer, type RecordedCall, type RecordingFetch, type Responder } from '../helpers/recordingFetch.js';
import { bodyObject, summary, within } from '../helpers/deferred.js';
import { proxyErrorOf, rawPathOf } from '../helpers/proxyTestKit.js';

interface UserData {
  id: number;
  name: string;
  email: string;
  age: number;
}

const USER_FIELDS = [{ name: 'id', type: 'int' }, 'name', { name: 'email', type: 'string' }, { name: 'age', type: 'int' }];
const BASE = 'http://api.test/users';
const ED: UserData = { id: 1, name: 'Ed', email: 'ed@example.com', age: 30 };

/** The ProxyError `promise` rejects with, waited for at most 2 s. */
function refusal(promise: Promise<unknown>): Promise<ProxyError> {
  return within(proxyErrorOf(promise), 2000, 'the operation');
}

/**
 * A REST server behind a recording fetch: GET /users/<id> answers that id (decoded) with a name,
 * GET /users answers [], POST 201 with id 1, PUT echoes, DELETE 204.
 */
function echoServer(call: RecordedCall): Answer {
  const last = rawPathOf(call.url).split('/').pop() ?? '';
  switch (call.method) {
    case 'GET':
      return /\/users\/[^/]+$/.test(rawPathOf(call.url)) ? { body: { id: decodeURIComponent(last), name: 'found' } } : { body: [] };
    case 'POST':
      return { status: 201, body: { ...bodyObject(call), id: 1 } };
    case 'DELETE':
      return { status: 204 };
    default:
      return { status: 200, body: call.json };
  }
}

/** A User class (int id) on its own RestProxy and recording fetch; `config` adds options. */
function defineUser(respond: Responder = echoServer, config: RestProxyConfig = {}) {
  const rec = recordingFetch(respond);
  const proxy = new RestProxy({ url: BASE, fetch: rec, retry: 0, ...config });
  class User extends Model<UserData> {
    static override fields = USER_FIELDS;
    static override proxy = proxy;
  }
  return { User, rec, proxy };
}

interface DocData {
  id: string;
  name: string;
}

/** A model whose id is a string, so that any text can be its id. */
function defineDoc(respond: Responder = echoServer) {
  const rec = recordingFetch(respond);
  class Doc extends Model<DocData> {
    static override fields = [{ name: 'id', type: 'string' }, 'name'];
    static override proxy = new RestProxy({ url: BASE, fetch: rec, retry: 0 });
  }
  return { Doc, rec };
}

/** A model whose id field is untyped ('auto'), so that a record can hold any value as its id. */
function defineLoose(respond: Responder = echoServer) {
  const rec = recordingFetch(respond);
  class Loose extends Model<{ id: unknown; name: string }> {
    static override fields = ['id', 'name'];
    static override proxy = new RestProxy({ url: BASE, fetch: rec, retry: 0 });
  }
  return { Loose, rec };
}

// ---- 1 -----------------------------------------------------------------------------------------

const DOT_SEGMENTS = ['.', '..', '%2e%2e', '%2E.', '.%2e', '%2E%2E', '%2e'];

describe('1. Dot segments and ids that are not ids never reach a url', () => {
  it.each(DOT_SEGMENTS)('Model.load(%j) fails with kind "config" naming the id, and sends nothing', async (id) => {
    // `..` in a url climbs out of the collection: /users/.. is / on the server.
    const { Doc, rec } = defineDoc();
    const error = await refusal(Doc.load(id));
    expect(error.kind).toBe('config');
    expect(error.message).toContain(id);
    expect(rec.calls).toEqual([]);
  });

  it.each(DOT_SEGMENTS)('an update of the record with id %j fails with kind "config" naming the id, and sends nothing', async (id) => {
    const { Doc, rec } = defineDoc();
    const doc = new Doc({ id, name: 'x' });
    doc.set('name', 'y');
    const error = await refusal(doc.save());
    expect(error.kind).toBe('config');
    expect(error.message).toContain(id);
    expect(rec.calls).toEqual([]);
    expect(doc.dirty).toBe(true);
  });

  it.each(DOT_SEGMENTS)('a destroy of the record with id %j fails with kind "config" naming the id, and sends nothing', async (id) => {
    const { Doc, rec } = defineDoc();
    const doc = new Doc({ id, name: 'x' });
    const error = await refusal(doc.destroy());
    expect(error.kind).toBe('config');
    expect(error.message).toContain(id);
    expect(rec.calls).toEqual([]);
    expect(doc.erased).toBe(false);
  });

  describe('url template values', () => {
    interface PostData {
      id: number;
      userId: string;
      title: string;
    }

    function definePost() {
      const rec = recordingFetch(echoServer);
      class Post extends Model<PostData> {
        static override fields = [{ name: 'id', type: 'int' }, { name: 'userId', type: 'string' }, 'title'];
        static override proxy = new RestProxy({ url: 'http://api.test/users/{userId}/posts', fetch: rec, retry: 0 });
      }
      return { Post, rec };
    }

    it.each(['..', '.', '%2e%2e'])('params: { userId: %j } fails a load with kind "config" naming the value, and sends nothing', async (value) => {
      // /users/../posts would read every post of every user.
      const { Post, rec } = definePost();
      const store = new Store({ model: Post });
      const error = await refusal(store.load({ params: { userId: value } }));
      expect(error.kind).toBe('config');
      expect(error.message).toContain(value);
      expect(rec.calls).toEqual([]);
    });

    it.each(['..', '.', '%2e%2e'])('a record field userId %j fails its save with kind "config" naming the value, and sends nothing', async (value) => {
      const { Post, rec } = definePost();
      const post = new Post({ id: 1, userId: value, title: 't' });
      post.set('title', 'u');
      const error = await refusal(post.save());
      expect(error.kind).toBe('config');
      expect(error.message).toContain(value);
      expect(rec.calls).toEqual([]);
    });
  });

  const NOT_IDS: [string, unknown][] = [
    ['an object', { a: 1 }],
    ['an array', [1]],
    ['true', true],
    ['Infinity', Number.POSITIVE_INFINITY],
  ];

  it.each(NOT_IDS)('an update of a record whose id is %s fails with kind "config", and sends nothing', async (_label, id) => {
    // Today an object id goes into the url as [object Object].
    const { Loose, rec } = defineLoose();
    const record = new Loose({ id, name: 'x' });
    record.set('name', 'y');
    const error = await refusal(record.save());
    expect(error.kind).toBe('config');
    expect(rec.calls).toEqual([]);
  });

  it.each(NOT_IDS)('a destroy of a record whose id is %s fails with kind "config", and sends nothing', async (_label, id) => {
    const { Loose, rec } = defineLoose();
    const record = new Loose({ id, name: 'x' });
    const error = await refusal(record.destroy());
    expect(error.kind).toBe('config');
    expect(rec.calls).toEqual([]);
  });

  it.each([...NOT_IDS, ['NaN', Number.NaN]])('Model.load(%s) fails with kind "config", and sends nothing', async (_label, id) => {
    const { Loose, rec } = defineLoose();
    const error = await refusal(Loose.load(id));
    expect(error.kind).toBe('config');
    expect(rec.calls).toEqual([]);
  });

  it.each([
    ['a.b', '/users/a.b'],
    ['..a', '/users/..a'],
    ['a/b', '/users/a%2Fb'],
    [0, '/users/0'],
  ])('an ordinary id %j still works: Model.load, update and destroy go to %s', async (id, path) => {
    const { Doc, rec } = defineDoc();
    const doc = await within(Doc.load(id), 2000, 'the load');
    doc.set('name', 'renamed');
    await within(doc.save(), 2000, 'the save');
    await within(doc.destroy(), 2000, 'the destroy');
    expect(rec.calls.map((call) => `${call.method} ${rawPathOf(call.url)}`)).toEqual([`GET ${path}`, `PUT ${path}`, `DELETE ${path}`]);
  });
});

// ---- 2 -----------------------------------------------------------------------------------------

describe('2. An update or destroy of a record that is not new but has no id is refused', () => {
  /** The server calls its key `_id`: the record read by id is not new, yet it has no `id`. */
  async function loadedWithoutId() {
    const { User, rec } = defineUser((call) => (call.method === 'GET' ? { body: { _id: 5, name: 'x' } } : echoServer(call)));
    const user = await within(User.load(5), 2000, 'the load');
    expect(user.phantom).toBe(false);
    expect(user.getId()).toBeUndefined();
    return { user, rec };
  }

  it('save() fails with kind "config" saying the record has no id; no PUT goes to the collection url', async () => {
    const { user, rec } = await loadedWithoutId();
    user.set('name', 'y');
    const error = await refusal(user.save());
    expect(error.kind).toBe('config');
    expect(error.message).toMatch(/no (valid )?id/i);
    expect(summary(rec.calls)).toEqual(['GET /users/5']);
    expect(user.dirty).toBe(true);
  });

  it('destroy() fails with kind "config" saying the record has no id; no DELETE goes to the collection url', async () => {
    const { user, rec } = await loadedWithoutId();
    const error = await refusal(user.destroy());
    expect(error.kind).toBe('config');
    expect(error.message).toMatch(/no (valid )?id/i);
    expect(summary(rec.calls)).toEqual(['GET /users/5']);
    expect(user.erased).toBe(false);
  });
});

// ---- 3 -----------------------------------------------------------------------------------------

describe('3. Writes never follow redirects; reads do', () => {
  let serverA: TestServer<{ users: UserData[] }>;
  let serverB: TestServer<{ users: UserData[] }>;

  beforeEach(async () => {
    serverA = await startTestServer({ resources: { users: [{ ...ED }] } });
    serverB = await startTestServer({ resources: { users: [{ ...ED, name: 'FromB' }] } });
  });

  afterEach(async () => {
    await serverA.close();
    await serverB.close();
  });

  /** A User class on a real proxy to server A, with idempotency keys. */
  function userOnA() {
    class User extends Model<UserData> {
      static override fields = USER_FIELDS;
      static override proxy = new RestProxy({ url: `${serverA.url}/users`, retry: 0, idempotencyKey: true, timeout: 5000 });
    }
    return User;
  }

  const linesOf = (server: TestServer<{ users: UserData[] }>): string[] => server.requests.map((request) => `${request.method} ${request.path}`);

  it('a PUT answered 307 to another server is not sent there: kind "http" naming the redirect, the record stays dirty', async () => {
    // Following the redirect would apply the update to a url the user never configured.
    serverA.respond('PUT', '/users/1', { status: 307, headers: { Location: `${serverB.url}/users/1` } }, { times: 1 });
    const User = userOnA();
    const user = await within(User.load(1), 2000, 'the load');
    user.set('name', 'Moved');
    const error = await refusal(user.save());
    expect(linesOf(serverB)).toEqual([]);
    expect(serverB.db.users[0]?.name).toBe('FromB');
    expect(error.kind).toBe('http');
    expect(error.message).toMatch(/redirect/i);
    expect(user.dirty).toBe(true);
    expect(user.get('name')).toBe('Moved');
  });

  it('a POST answered 307 to another server is not sent there; the record stays new and the next save sends the same Idempotency-Key', async () => {
    serverA.respond('POST', '/users', { status: 307, headers: { Location: `${serverB.url}/users` } }, { times: 1 });
    const User = userOnA();
    const user = new User({ name: 'New', email: 'new@example.com', age: 1 });
    const error = await refusal(user.save());
    expect(linesOf(serverB)).toEqual([]);
    expect(error.kind).toBe('http');
    expect(error.message).toMatch(/redirect/i);
    expect(user.phantom).toBe(true);
    expect(user.dirty).toBe(true);
    // Server A is fixed (the scripted 307 answered once): the next save creates the record there.
    await within(user.save(), 2000, 'the second save');
    const posts = serverA.requests.filter((request) => request.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[0]?.headers['idempotency-key']).toEqual(expect.any(String));
    expect(posts[1]?.headers['idempotency-key']).toBe(posts[0]?.headers['idempotency-key']);
    expect(user.phantom).toBe(false);
  });

  it('a GET answered 302 to another server is still followed (reads follow redirects)', async () => {
    serverA.respond('GET', '/users/1', { status: 302, headers: { Location: `${serverB.url}/users/1` } }, { times: 1 });
    const User = userOnA();
    const user = await within(User.load(1), 2000, 'the load');
    expect(user.get('name')).toBe('FromB');
    expect(linesOf(serverB)).toEqual(['GET /users/1']);
  });
});

// ---- 4 -----------------------------------------------------------------------------------------

describe('4. Configuration that can never be sent fails with kind "config" and is never retried', () => {
  /** What a real fetch does with such a request: it throws a TypeError. */
  const refusingFetch: Responder = () => new TypeError('fetch failed');
  const QUICK_RETRY = { limit: 2, delay: 1, backoffLimit: 2 };

  function setup(config: RestProxyConfig) {
    const { User, rec, proxy } = defineUser(refusingFetch, { retry: QUICK_RETRY, ...config });
    const retries: unknown[] = [];
    proxy.on('retry', (event) => {
      retries.push(event.reason);
    });
    return { User, rec, retries };
  }

  const NEVER_SENDABLE_URLS: [string, string][] = [
    ['a url with credentials', 'http://user:pass@127.0.0.1:1/users'],
    ['an ftp: url', 'ftp://127.0.0.1/users'],
  ];

  it.each(NEVER_SENDABLE_URLS)('%s: a load fails with kind "config", nothing is sent, nothing is retried', async (_label, url) => {
    const { User, rec, retries } = setup({ url });
    const store = new Store({ model: User });
    const error = await refusal(store.load());
    expect(error.kind).toBe('config');
    expect(rec.calls).toEqual([]);
    expect(retries).toEqual([]);
  });

  it.each(NEVER_SENDABLE_URLS)('%s: an update fails with kind "config", nothing is sent, nothing is retried', async (_label, url) => {
    const { User, rec, retries } = setup({ url });
    const user = new User({ ...ED });
    user.set('name', 'y');
    const error = await refusal(user.save());
    expect(error.kind).toBe('config');
    expect(rec.calls).toEqual([]);
    expect(retries).toEqual([]);
    expect(user.dirty).toBe(true);
  });

  it('actionMethods { create: "GET" }: a create fails with kind "config", nothing is sent, nothing is retried', async () => {
    // A GET cannot carry the body of a create.
    const { User, rec, retries } = setup({ actionMethods: { create: 'GET' } });
    const user = new User({ name: 'Ed', email: 'ed@example.com', age: 30 });
    const error = await refusal(user.save());
    expect(error.kind).toBe('config');
    expect(rec.calls).toEqual([]);
    expect(retries).toEqual([]);
    expect(user.phantom).toBe(true);
  });
});

// ---- 5 -----------------------------------------------------------------------------------------

describe('5. Timeouts are bounded and fire even when fetch ignores the signal', () => {
  it('timeout: 2 ** 31 is refused at construction with a TypeError naming timeout', () => {
    // Timers cannot wait that long: setTimeout would fire at once.
    expect(() => new RestProxy({ url: BASE, timeout: 2 ** 31 })).toThrow(TypeError);
    expect(() => new RestProxy({ url: BASE, timeout: 2 ** 31 })).toThrow(/timeout/);
  });

  it('timeout: 2 ** 31 - 1 still sends requests that succeed', async () => {
    const { User, rec } = defineUser((call) => (call.method === 'GET' ? { body: { ...ED } } : echoServer(call)), { timeout: 2 ** 31 - 1 });
    const user = await within(User.load(1), 2000, 'the load');
    expect(user.get('name')).toBe('Ed');
    expect(summary(rec.calls)).toEqual(['GET /users/1']);
  });

  it.each(['a read', 'a write'])('%s through a fetch that ignores the signal and never settles fails with kind "timeout" after timeout: 50', async (what) => {
    // A custom fetch (instrumentation, an old polyfill) that never answers must not hang the app.
    const neverSettles = (): Promise<Response> => new Promise<Response>(() => undefined);
    class User extends Model<UserData> {
      static override fields = USER_FIELDS;
      static override proxy = new RestProxy({ url: BASE, fetch: neverSettles, retry: 0, timeout: 50 });
    }
    const started = Date.now();
    const pending = what === 'a read' ? User.load(1) : new User({ ...ED }).set('name', 'y').save();
    const error = await within(proxyErrorOf(pending), 2000, `${what} with timeout: 50`);
    expect(error.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

// ---- 6 -----------------------------------------------------------------------------------------

describe('6. Store.load({ signal }) does not leak abort listeners', () => {
  /** Count the 'abort' listeners added to `signal` and not removed since. */
  function trackAbortListeners(signal: AbortSignal): { active: Set<unknown> } {
    const active = new Set<unknown>();
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    Object.defineProperty(signal, 'addEventListener', {
      configurable: true,
      value: (type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void => {
        if (listener === null) return;
        if (type === 'abort') active.add(listener);
        add(type, listener, options);
      },
    });
    Object.defineProperty(signal, 'removeEventListener', {
      configurable: true,
      value: (type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions): void => {
        if (listener === null) return;
        if (type === 'abort') active.delete(listener);
        remove(type, listener, options);
      },
    });
    return { active };
  }

  function userStore() {
    const { User, rec } = defineUser((call) => (call.method === 'GET' ? { body: [{ ...ED }] } : echoServer(call)));
    return { store: new Store({ model: User }), rec };
  }

  it('20 loads one after the other with the same signal leave no listener on it', async () => {
    // An app that passes one long-lived signal (a page's) to every load must not pile up listeners.
    const { store, rec } = userStore();
    const controller = new AbortController();
    const { active } = trackAbortListeners(controller.signal);
    for (let i = 0; i < 20; i++) await within(store.load({ signal: controller.signal }), 2000, `load ${i + 1}`);
    expect(rec.calls).toHaveLength(20);
    expect(active.size).toBe(0);
  });

  it('20 loads at once with the same signal (each superseding the one before) leave no listener on it', async () => {
    const { store } = userStore();
    const controller = new AbortController();
    const { active } = trackAbortListeners(controller.signal);
    const loads = Array.from({ length: 20 }, () => store.load({ signal: controller.signal }));
    const settled = await within(Promise.allSettled(loads), 2000, 'the loads');
    expect(settled.at(-1)?.status).toBe('fulfilled');
    expect(active.size).toBe(0);
  });
});

// ---- 7 -----------------------------------------------------------------------------------------

describe('7. Hostile keys in server data', () => {
  it('(a) a value { "toString": 1 } in a field with a local sorter: sorting does not throw and every record stays listed', async () => {
    // One odd value from the server must not make the whole list disappear.
    interface ThingData {
      id: number;
      meta: unknown;
    }
    const rec = recordingFetch(() => ({
      headers: { 'Content-Type': 'application/json' },
      body: '[{"id":1,"meta":{"toString":1}},{"id":2,"meta":"b"},{"id":3,"meta":{"toString":1,"valueOf":1}}]',
    }));
    class Thing extends Model<ThingData> {
      static override fields = [{ name: 'id', type: 'int' }, 'meta'];
    }
    const store = new Store({ model: Thing, proxy: new RestProxy({ url: 'http://api.test/things', fetch: rec, retry: 0 }), sorters: [{ property: 'meta', direction: 'ASC' }] });
    await within(store.load(), 2000, 'the load');
    expect(store.getCount()).toBe(3);
    await within(store.sort('meta', 'DESC'), 2000, 'the sort');
    expect(store.getRange().map((thing) => thing.getId()).sort()).toEqual([1, 2, 3]);
  });

  it('(b) a 422 with errors for "constructor", "__proto__" and "name" gives all three as own properties of fieldErrors and record.errors', async () => {
    const { User } = defineUser((call) =>
      call.method === 'PUT'
        ? { status: 422, headers: { 'Content-Type': 'application/json' }, body: '{"errors":{"constructor":["bad"],"__proto__":["worse"],"name":["is required"]}}' }
        : echoServer(call),
    );
    const user = new User({ ...ED });
    user.set('name', '');
    const error = await refusal(user.save());
    expect(error.kind).toBe('validation');
    // Built from entries: in an object literal, `__proto__:` would set the prototype, not a key.
    const expected = Object.fromEntries([['constructor', ['bad']], ['__proto__', ['worse']], ['name', ['is required']]]);
    const views: [string, object | undefined][] = [
      ['error.fieldErrors', error.fieldErrors],
      ['record.errors', user.errors],
    ];
    for (const [what, errors] of views) {
      const own = errors === undefined ? {} : Object.fromEntries(Object.keys(errors).map((key) => [key, Object.getOwnPropertyDescriptor(errors, key)?.value]));
      expect({ what, keys: Object.keys(own).sort() }).toEqual({ what, keys: ['__proto__', 'constructor', 'name'] });
      for (const key of Object.keys(own)) {
        expect({ what, key, messages: own[key] }).toEqual({ what, key, messages: Object.getOwnPropertyDescriptor(expected, key)?.value });
      }
    }
  });

  it('(c) a save answered {"__proto__":{"admin":true}} gives the record no "admin" and pollutes nothing', async () => {
    interface AccountData {
      id: number;
      name: string;
      admin?: boolean;
    }
    const rec = recordingFetch(() => ({ status: 201, headers: { 'Content-Type': 'application/json' }, body: '{"id":1,"name":"x","__proto__":{"admin":true}}' }));
    class Account extends Model<AccountData> {
      static override fields = [{ name: 'id', type: 'int' }, 'name'];
      static override proxy = new RestProxy({ url: 'http://api.test/accounts', fetch: rec, retry: 0 });
    }
    const account = new Account({ name: 'x' });
    await within(account.save(), 2000, 'the save');
    expect(account.getId()).toBe(1);
    expect(account.get('admin')).toBeUndefined();
    expect('admin' in account.getData()).toBe(false);
    expect(Reflect.get({}, 'admin')).toBeUndefined();
  });

  it('(d) an object id is refused with kind "config" (see 1), nothing is sent', async () => {
    const { Loose, rec } = defineLoose();
    const record = new Loose({ id: { toString: () => '1' }, name: 'x' });
    record.set('name', 'y');
    const error = await refusal(record.save());
    expect(error.kind).toBe('config');
    expect(rec.calls).toEqual([]);
  });
});

// ---- 8 -----------------------------------------------------------------------------------------

describe('8. Options that mean nothing or harm are refused at construction', () => {
  it('batchOrder "create,create" is a TypeError naming batchOrder', () => {
    expect(() => new RestProxy({ url: BASE, batchOrder: 'create,create' })).toThrow(TypeError);
    expect(() => new RestProxy({ url: BASE, batchOrder: 'create,create' })).toThrow(/batchOrder/);
  });

  it('a header name fetch would refuse is a TypeError naming headers', () => {
    expect(() => new RestProxy({ url: BASE, headers: { 'Bad Name': 'x' } })).toThrow(TypeError);
    expect(() => new RestProxy({ url: BASE, headers: { 'Bad Name': 'x' } })).toThrow(/headers/);
  });

  it('new Store({ model, autoLoad: true }) with no proxy anywhere is a TypeError naming the proxy', () => {
    // Otherwise the autoLoad fails later, in a microtask, where nobody sees it.
    class Bare extends Model<{ id: number; name: string }> {
      static override fields = ['id', 'name'];
    }
    expect(() => new Store({ model: Bare, autoLoad: true })).toThrow(TypeError);
    expect(() => new Store({ model: Bare, autoLoad: true })).toThrow(/proxy/i);
  });

  it('headers { "If-Match": "*" } with etag: true is a TypeError naming If-Match', () => {
    // A fixed If-Match would overwrite whatever the server holds, defeating etag.
    expect(() => new RestProxy({ url: BASE, etag: true, headers: { 'If-Match': '*' } })).toThrow(TypeError);
    expect(() => new RestProxy({ url: BASE, etag: true, headers: { 'If-Match': '*' } })).toThrow(/if-match/i);
  });

  describe('a weak ETag is never sent as If-Match', () => {
    /** A record read by id whose GET answered `ETag: W/"1"`, on a proxy with `etag: true`. */
    async function weaklyTagged(): Promise<{ user: Model<UserData>; rec: RecordingFetch; writes: () => RecordedCall[] }> {
      const respond = (call: RecordedCall): Answer => (call.method === 'GET' ? { headers: { ETag: 'W/"1"' }, body: { ...ED } } : echoServer(call));
      const { User, rec } = defineUser(respond, { etag: true });
      const user = await within(User.load(1), 2000, 'the load');
      expect(user.etag).toBe('W/"1"');
      return { user, rec, writes: () => rec.calls.filter((call) => call.method !== 'GET') };
    }

    it('an update fails with kind "config" naming the weak ETag, and sends nothing', async () => {
      const { user, writes } = await weaklyTagged();
      user.set('name', 'y');
      const error = await refusal(user.save());
      expect(error.kind).toBe('config');
      expect(error.message).toContain('W/"1"');
      expect(writes()).toEqual([]);
      expect(user.dirty).toBe(true);
    });

    it('a destroy fails with kind "config" naming the weak ETag, and sends nothing', async () => {
      const { user, writes } = await weaklyTagged();
      const error = await refusal(user.destroy());
      expect(error.kind).toBe('config');
      expect(error.message).toContain('W/"1"');
      expect(writes()).toEqual([]);
      expect(user.erased).toBe(false);
    });
  });
});
