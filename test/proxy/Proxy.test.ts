/**
 * Proxy base (API.md sections 2 and 3): the class chain and the registry, the operation
 * lifecycle, batch() (batchOrder, batchActions, pauseOnException, concurrency) and the
 * `exception` event.
 */
import { describe, expect, it } from 'vitest';
import {
  AjaxProxy,
  Batch,
  MemoryProxy,
  Model,
  Operation,
  Proxy as BaseProxy,
  ProxyError,
  ResultSet,
  Rest,
  RestProxy,
  ServerProxy,
  createProxy,
  registerProxy,
} from '../../src/index.js';
import { recordingFetch, type Answer, type RecordedCall, type RecordingFetch } from '../helpers/recordingFetch.js';
import { pathOf, proxyErrorOf, serverLike, settleBatch } from '../helpers/proxyTestKit.js';

class User extends Model<{ id: number; name: string }> {
  static override fields = ['id', 'name'];
}

type RestConfig = NonNullable<ConstructorParameters<typeof RestProxy>[0]>;

const URL_BASE = 'http://api.test/users';

function restProxy(fetch: RecordingFetch, config: RestConfig = {}): RestProxy {
  return new RestProxy({ url: URL_BASE, model: User, fetch, retry: 0, ...config });
}

function edited(id: number): User {
  const user = new User({ id, name: `user ${id}` });
  user.set('name', `edited ${id}`);
  return user;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Echo answers after a short delay, keeping a log of request starts and ends and the peak concurrency. */
function slowEcho(): { fetch: RecordingFetch; log: string[]; peak: () => number } {
  const answer = serverLike();
  const log: string[] = [];
  let inFlight = 0;
  let peak = 0;
  const fetch = recordingFetch(async (call: RecordedCall): Promise<Answer> => {
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    log.push(`start ${call.method}`);
    await sleep(15);
    inFlight -= 1;
    log.push(`end ${call.method}`);
    return answer(call);
  });
  return { fetch, log, peak: () => peak };
}

describe('Proxy classes and the registry', () => {
  it('Proxy -> ServerProxy -> AjaxProxy -> RestProxy; MemoryProxy extends Proxy', () => {
    const rest = new RestProxy();
    expect(rest).toBeInstanceOf(AjaxProxy);
    expect(rest).toBeInstanceOf(ServerProxy);
    expect(rest).toBeInstanceOf(BaseProxy);
    const memory = new MemoryProxy();
    expect(memory).toBeInstanceOf(BaseProxy);
    expect(memory).not.toBeInstanceOf(ServerProxy);
    expect(Rest).toBe(RestProxy);
  });

  it("createProxy turns { type: 'rest', url } into a RestProxy with that config", () => {
    const proxy = createProxy({ type: 'rest', url: '/users', appendId: false });
    expect(proxy).toBeInstanceOf(RestProxy);
    if (!(proxy instanceof RestProxy)) return;
    expect(proxy.url).toBe('/users');
    expect(proxy.appendId).toBe(false);
  });

  it("'ajax' and 'memory' are registered", () => {
    const ajax = createProxy({ type: 'ajax', url: '/users' });
    expect(ajax).toBeInstanceOf(AjaxProxy);
    expect(ajax).not.toBeInstanceOf(RestProxy);
    expect(createProxy({ type: 'memory' })).toBeInstanceOf(MemoryProxy);
  });

  it('an instance is returned as is', () => {
    const proxy = new RestProxy({ url: '/users' });
    expect(createProxy(proxy)).toBe(proxy);
  });

  it('registerProxy adds a type', () => {
    class AuditedProxy extends RestProxy {}
    registerProxy('audited', AuditedProxy);
    const proxy = createProxy({ type: 'audited', url: '/audit' });
    expect(proxy).toBeInstanceOf(AuditedProxy);
    if (proxy instanceof AuditedProxy) expect(proxy.url).toBe('/audit');
  });

  it('an unknown type is a TypeError naming it', () => {
    const type: string = 'no-such-proxy';
    expect(() => createProxy({ type })).toThrow(TypeError);
    expect(() => createProxy({ type })).toThrow(/no-such-proxy/);
  });
});

describe('Operation lifecycle through a proxy', () => {
  it('resolves with the same operation, completed and successful, with resultSet and response', async () => {
    const fetch = recordingFetch(() => ({ body: [{ id: 1, name: 'Ed' }] }));
    const operation = new Operation({ action: 'read' });
    const result = await restProxy(fetch).read(operation);
    expect(result).toBe(operation);
    expect(operation.complete).toBe(true);
    expect(operation.success).toBe(true);
    expect(operation.wasSuccessful()).toBe(true);
    expect(operation.hasException()).toBe(false);
    expect(operation.error).toBeUndefined();
    expect(operation.resultSet).toBeInstanceOf(ResultSet);
    expect(operation.resultSet?.success).toBe(true);
    expect(operation.resultSet?.count).toBe(1);
    expect(operation.response).toBeInstanceOf(Response);
  });

  it('rejects with a ProxyError; the operation then has success false and error set', async () => {
    const fetch = recordingFetch(() => ({ status: 500, body: { message: 'boom' } }));
    const operation = new Operation({ action: 'read' });
    const error = await proxyErrorOf(restProxy(fetch).read(operation));
    expect(operation.complete).toBe(true);
    expect(operation.success).toBe(false);
    expect(operation.wasSuccessful()).toBe(false);
    expect(operation.hasException()).toBe(true);
    expect(operation.error).toBe(error);
    expect(error.operation).toBe(operation);
  });
});

describe('Proxy.batch', () => {
  it('runs the action types in batchOrder (default create, update, destroy) and lists operations in run order', async () => {
    const { fetch } = slowEcho();
    const batch = await restProxy(fetch).batch({
      destroy: [new User({ id: 9, name: 'Gone' })],
      update: [edited(2)],
      create: [new User({ name: 'New' })],
    });
    expect(batch).toBeInstanceOf(Batch);
    expect(fetch.calls.map((call) => call.method)).toEqual(['POST', 'PUT', 'DELETE']);
    expect(batch.operations.map((operation) => operation.action)).toEqual(['create', 'update', 'destroy']);
    expect(batch.isComplete).toBe(true);
    expect(batch.hasException()).toBe(false);
    expect(batch.exceptions).toEqual([]);
  });

  it('batchOrder changes the order', async () => {
    const { fetch } = slowEcho();
    const batch = await restProxy(fetch, { batchOrder: 'destroy,create,update' }).batch({
      create: [new User({ name: 'New' })],
      update: [edited(2)],
      destroy: [new User({ id: 9, name: 'Gone' })],
    });
    expect(fetch.calls.map((call) => call.method)).toEqual(['DELETE', 'POST', 'PUT']);
    expect(batch.operations.map((operation) => operation.action)).toEqual(['destroy', 'create', 'update']);
  });

  it('an action type is finished before the next one starts', async () => {
    const { fetch, log } = slowEcho();
    await restProxy(fetch).batch({ create: [new User({ name: 'A' }), new User({ name: 'B' })], update: [edited(2), edited(3)] });
    const lastPostEnd = log.lastIndexOf('end POST');
    const firstPutStart = log.indexOf('start PUT');
    expect(lastPostEnd).toBeGreaterThan(-1);
    expect(firstPutStart).toBeGreaterThan(lastPostEnd);
  });

  it('an empty action sends nothing', async () => {
    const { fetch } = slowEcho();
    await restProxy(fetch).batch({ create: [], update: [edited(2)], destroy: [] });
    expect(fetch.calls.map((call) => call.method)).toEqual(['PUT']);
  });

  it('batchActions false (RestProxy default): one request per record', async () => {
    const { fetch } = slowEcho();
    const batch = await restProxy(fetch).batch({ update: [edited(2), edited(3)], destroy: [new User({ id: 4, name: 'x' }), new User({ id: 5, name: 'y' })] });
    expect(fetch.calls.map((call) => `${call.method} ${pathOf(call.url)}`).sort()).toEqual([
      'DELETE /users/4',
      'DELETE /users/5',
      'PUT /users/2',
      'PUT /users/3',
    ]);
    expect(batch.operations).toHaveLength(4);
  });

  it('batchActions true: one request per action type with all its records', async () => {
    const { fetch } = slowEcho();
    const batch = await restProxy(fetch, { batchActions: true }).batch({
      create: [new User({ name: 'A' }), new User({ name: 'B' })],
      update: [edited(2), edited(3)],
    });
    expect(fetch.calls).toHaveLength(2);
    const [post, put] = fetch.calls;
    expect(post?.method).toBe('POST');
    expect(post?.json).toEqual([{ name: 'A' }, { name: 'B' }]);
    expect(put?.method).toBe('PUT');
    expect(pathOf(put?.url ?? '')).toBe('/users');
    expect(Array.isArray(put?.json)).toBe(true);
    expect(batch.operations).toHaveLength(2);
  });

  it('concurrency defaults to 4 requests in flight within one action type', async () => {
    const { fetch, peak } = slowEcho();
    await restProxy(fetch).batch({ update: [1, 2, 3, 4, 5, 6, 7, 8].map(edited) });
    expect(fetch.calls).toHaveLength(8);
    expect(peak()).toBe(4);
  });

  it('the concurrency option limits the requests in flight', async () => {
    const two = slowEcho();
    await restProxy(two.fetch).batch({ update: [1, 2, 3, 4, 5].map(edited) }, { concurrency: 2 });
    expect(two.fetch.calls).toHaveLength(5);
    expect(two.peak()).toBe(2);

    const one = slowEcho();
    await restProxy(one.fetch).batch({ update: [1, 2, 3].map(edited) }, { concurrency: 1 });
    expect(one.peak()).toBe(1);
  });

  it('a failed operation does not stop the batch by default (pauseOnException false)', async () => {
    const fetch = recordingFetch((call) => (pathOf(call.url) === '/users/2' ? { status: 500, body: { message: 'boom' } } : { status: 200, body: call.json ?? {} }));
    const batch = await settleBatch(restProxy(fetch).batch({ update: [edited(1), edited(2), edited(3)], destroy: [new User({ id: 4, name: 'x' })] }, { concurrency: 1 }));
    expect(fetch.calls.map((call) => pathOf(call.url))).toEqual(['/users/1', '/users/2', '/users/3', '/users/4']);
    expect(batch.isComplete).toBe(true);
    expect(batch.hasException()).toBe(true);
    expect(batch.exceptions).toHaveLength(1);
    const failed = batch.exceptions[0];
    expect(failed?.records?.[0]?.getId()).toBe(2);
    expect(failed?.error).toBeInstanceOf(ProxyError);
    expect(batch.operations).toHaveLength(4);
  });

  it('pauseOnException stops at the first failed operation, and the promise still settles', async () => {
    const fetch = recordingFetch((call) => (pathOf(call.url) === '/users/2' ? { status: 500, body: { message: 'boom' } } : { status: 200, body: call.json ?? {} }));
    const batch = await settleBatch(
      restProxy(fetch).batch({ update: [edited(1), edited(2), edited(3)], destroy: [new User({ id: 4, name: 'x' })] }, { pauseOnException: true, concurrency: 1 }),
    );
    expect(fetch.calls.map((call) => pathOf(call.url))).toEqual(['/users/1', '/users/2']);
    expect(batch.hasException()).toBe(true);
    expect(batch.exceptions).toHaveLength(1);
    expect(batch.isComplete).toBe(false);
  });
});

describe("Proxy event 'exception'", () => {
  it('fires once per failed operation with { proxy, operation, error, response }', async () => {
    const fetch = recordingFetch(() => ({ status: 500, body: { message: 'boom' } }));
    const proxy = restProxy(fetch);
    const events: Array<{ proxy: unknown; operation: unknown; error: unknown; response: unknown }> = [];
    proxy.on('exception', (event) => {
      events.push({ proxy: event.proxy, operation: event.operation, error: event.error, response: event.response });
    });
    const operation = new Operation({ action: 'read' });
    const error = await proxyErrorOf(proxy.read(operation));
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event?.proxy).toBe(proxy);
    expect(event?.operation).toBe(operation);
    expect(event?.error).toBe(error);
    expect(event?.response).toBeInstanceOf(Response);
    if (event?.response instanceof Response) expect(event.response.status).toBe(500);
  });

  it('does not fire for a successful operation', async () => {
    const proxy = restProxy(recordingFetch());
    let fired = 0;
    proxy.on('exception', () => {
      fired += 1;
    });
    await proxy.read(new Operation({ action: 'read' }));
    expect(fired).toBe(0);
  });

  it('has no response when there was none (network failure)', async () => {
    const proxy = restProxy(recordingFetch(() => new TypeError('fetch failed')));
    const responses: unknown[] = [];
    proxy.on('exception', (event) => {
      responses.push(event.response);
    });
    await proxyErrorOf(proxy.read(new Operation({ action: 'read' })));
    expect(responses).toEqual([undefined]);
  });

  it('fires for a configuration failure too (no url)', async () => {
    const proxy = new RestProxy({ model: User, fetch: recordingFetch() });
    let fired = 0;
    proxy.on('exception', () => {
      fired += 1;
    });
    await proxyErrorOf(proxy.read(new Operation({ action: 'read' })));
    expect(fired).toBe(1);
  });

  it('fires once for each failed operation of a batch', async () => {
    const fetch = recordingFetch((call) => (call.method === 'PUT' ? { status: 500, body: {} } : { status: 204 }));
    const proxy = restProxy(fetch);
    const failed: unknown[] = [];
    proxy.on('exception', (event) => {
      failed.push(event.operation);
    });
    const batch = await settleBatch(proxy.batch({ update: [edited(1), edited(2)], destroy: [new User({ id: 3, name: 'x' })] }));
    expect(failed).toHaveLength(2);
    expect(new Set(failed)).toEqual(new Set(batch.exceptions));
  });

  it('on() returns an unsubscribe function', async () => {
    const proxy = restProxy(recordingFetch(() => ({ status: 500, body: {} })));
    let fired = 0;
    const off = proxy.on('exception', () => {
      fired += 1;
    });
    await proxyErrorOf(proxy.read(new Operation({ action: 'read' })));
    off();
    await proxyErrorOf(proxy.read(new Operation({ action: 'read' })));
    expect(fired).toBe(1);
  });
});

describe('Proxy: an operation sent again', () => {
  it('a failed update run again after an edit saves the edit: the record ends clean with it', async () => {
    let fail = true;
    const fetch = recordingFetch((call) => (fail ? { status: 503 } : { body: call.json ?? {} }));
    const proxy = new RestProxy({ url: 'http://api.test/users', model: User, fetch, retry: 0 });
    const user = new User({ id: 2, name: 'Ed' });
    user.set('name', 'Edward');
    const operation = new Operation({ action: 'update', records: [user] });
    expect((await proxyErrorOf(proxy.update(operation))).status).toBe(503);
    expect(user.getChanges()).toEqual({ name: 'Edward' });
    user.set('name', 'Eddie');
    fail = false;
    await proxy.update(operation);
    expect(fetch.last().json).toEqual({ id: 2, name: 'Eddie' });
    expect(operation.wasSuccessful()).toBe(true);
    expect(user.get('name')).toBe('Eddie');
    expect(user.dirty).toBe(false);
  });
});
