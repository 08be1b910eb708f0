/**
 * The AjaxProxy's `onRequest` and `onResponse` hooks: a hook may change the headers of each try;
 * `onResponse` returning 'retry' sends the request once more (e.g. after refreshing a token on a
 * 401), and only once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProxyError } from '../../src/index.js';
import type { RequestHookContext, ResponseHookContext } from '../../src/proxy/AjaxProxy.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { defineItem, itemProxy, proxyErrorOf, requestsOf, rowsOf, sleep, type ItemData } from './helpers.js';

const SEED: ItemData[] = [{ id: 1, uid: 'u1', name: 'one', rev: 0 }];

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: SEED.map((row) => ({ ...row })) } });
});

afterEach(async () => {
  await server.close();
});

describe('onRequest', () => {
  it('runs before every try (retries too) and its headers are sent', async () => {
    const seen: number[] = [];
    const proxy = itemProxy(server, {
      onRequest: ({ init, attempt, request }: RequestHookContext) => {
        seen.push(attempt);
        init.headers.set('X-Trace', `${request.method}-${attempt}`);
      },
    });
    server.inject({ type: 'status', status: 503, times: 2, match: { method: 'GET' } });

    await defineItem(proxy).load(1);

    expect(seen).toEqual([1, 2, 3]);
    expect(requestsOf(server, 'GET').map((request) => request.headers['x-trace'])).toEqual(['GET-1', 'GET-2', 'GET-3']);
  });

  it('may be async, and a header set on one try does not leak into the next', async () => {
    const proxy = itemProxy(server, {
      onRequest: async ({ init, attempt }: RequestHookContext) => {
        await sleep(5);
        if (attempt === 1) init.headers.set('X-First', 'yes');
        init.headers.set('Authorization', 'Bearer t');
      },
    });
    server.inject({ type: 'reset-before', match: { method: 'GET' } });

    await defineItem(proxy).load(1);

    const gets = requestsOf(server, 'GET');
    expect(gets.map((request) => request.headers['x-first'])).toEqual(['yes', undefined]);
    expect(gets.map((request) => request.headers['authorization'])).toEqual(['Bearer t', 'Bearer t']);
  });

  it('a hook that throws fails the operation, sends nothing, and leaves the record as it was', async () => {
    const proxy = itemProxy(server, {
      onRequest: () => {
        throw new Error('no token available');
      },
    });
    const Item = defineItem(proxy);
    const item = new Item({ uid: 'n', name: 'new', rev: 0 });

    const error = await proxyErrorOf(item.save());

    expect(error.message).toContain('no token available');
    expect(server.requests).toHaveLength(0);
    expect(item.phantom).toBe(true);
    expect(item.dirty).toBe(true);
  });
});

describe('onResponse', () => {
  it('returning "retry" after a 401 sends the request once more with the refreshed token', async () => {
    let token = 'expired';
    const proxy = itemProxy(server, {
      onRequest: ({ init }: RequestHookContext) => {
        init.headers.set('Authorization', `Bearer ${token}`);
      },
      onResponse: async ({ response }: ResponseHookContext) => {
        if (response.status !== 401) return undefined;
        await sleep(5);
        token = 'fresh';
        return 'retry';
      },
    });
    const Item = defineItem(proxy);
    const item = await Item.load(1);
    item.set('name', 'ONE');
    server.reset();
    server.inject({ type: 'status', status: 401, match: { method: 'PUT' } });

    await item.save();

    expect(requestsOf(server, 'PUT').map((request) => request.headers['authorization'])).toEqual(['Bearer expired', 'Bearer fresh']);
    expect(item.dirty).toBe(false);
    expect(rowsOf(server)[0]?.['name']).toBe('ONE');
  });

  it('a POST may be sent once more too (the hook decides: a 401 was not applied)', async () => {
    const proxy = itemProxy(server, { onResponse: ({ response }: ResponseHookContext) => (response.status === 401 ? 'retry' : undefined) });
    const Item = defineItem(proxy);
    const item = new Item({ uid: 'p', name: 'P', rev: 0 });
    server.inject({ type: 'status', status: 401, match: { method: 'POST' } });

    await item.save();

    expect(requestsOf(server, 'POST')).toHaveLength(2);
    expect(rowsOf(server).filter((row) => row['uid'] === 'p')).toHaveLength(1);
    expect(item.phantom).toBe(false);
  });

  it('"retry" is honoured once: a hook that always asks for it ends after two tries with the 401', async () => {
    let calls = 0;
    const proxy = itemProxy(server, {
      onResponse: () => {
        calls++;
        return 'retry';
      },
    });
    server.inject({ type: 'status', status: 401, times: Number.POSITIVE_INFINITY, match: { method: 'GET' } });

    const error = await proxyErrorOf(defineItem(proxy).load(1));

    expect(requestsOf(server, 'GET')).toHaveLength(2);
    expect(error.kind).toBe('http');
    expect(error.status).toBe(401);
    expect(error.message).toContain('401 Unauthorized');
    expect(error.message).toContain('credentials');
    expect(calls).toBeGreaterThanOrEqual(1);
  });

  it('sees every answer of the retries it does not ask for (503, 503, 200)', async () => {
    const statuses: number[] = [];
    const proxy = itemProxy(server, {
      onResponse: ({ response, attempt }: ResponseHookContext) => {
        statuses.push(response.status * 10 + attempt);
      },
    });
    server.inject({ type: 'status', status: 503, times: 2, match: { method: 'GET' } });

    await defineItem(proxy).load(1);

    expect(statuses).toEqual([5031, 5032, 2003]);
  });

  it('may change nothing and return nothing: the answer is used as is', async () => {
    const proxy = itemProxy(server, { onResponse: () => undefined });
    const item = await defineItem(proxy).load(1);
    expect(item.get('name')).toBe('one');
  });

  // BUG: after the hook has asked for a retry once, it is never called again for that request:
  // the answer to the retry (200 here, or a second 401) is not shown to it, although its
  // documentation says "Called after every answer". A hook that logs, measures or checks
  // answers misses them.
  it('is called after every answer, also the one to the retry it asked for', async () => {
    const statuses: number[] = [];
    const proxy = itemProxy(server, {
      onResponse: ({ response }: ResponseHookContext) => {
        statuses.push(response.status);
        return response.status === 401 ? 'retry' : undefined;
      },
    });
    server.inject({ type: 'status', status: 401, match: { method: 'GET' } });

    await defineItem(proxy).load(1);

    expect(requestsOf(server, 'GET')).toHaveLength(2);
    expect(statuses).toEqual([401, 200]);
  });
});

describe('a hook that never settles is bounded by timeout and abort (API.md section 2)', () => {
  const never = (): Promise<never> => new Promise<never>(() => undefined);

  it('onRequest pending forever: kind "timeout" naming the hook, nothing sent', async () => {
    const proxy = itemProxy(server, { timeout: 150, retry: 0, onRequest: never });
    const started = Date.now();
    const error = await proxyErrorOf(defineItem(proxy).load(1));
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('onRequest');
    expect(error.message).toContain('150 ms');
    expect(Date.now() - started).toBeLessThan(1_000);
    await sleep(30);
    expect(server.requests).toHaveLength(0);
  });

  it('onRequest pending forever on a save: the record is as it was, and nothing is sent later', async () => {
    let release: () => void = () => undefined;
    const proxy = itemProxy(server, { timeout: 100, retry: 0, onRequest: () => new Promise<void>((resolve) => (release = resolve)) });
    const item = new (defineItem(proxy))({ uid: 'h', name: 'held', rev: 0 });
    const error = await proxyErrorOf(item.save());
    expect(error.kind).toBe('timeout');
    expect(error.mayHaveBeenApplied).toBe(false);
    release();
    await sleep(50);
    expect(server.requests).toHaveLength(0);
    expect(item.phantom).toBe(true);
  });

  it('onRequest pending forever: abort() ends the operation at once with kind "abort"', async () => {
    const proxy = itemProxy(server, { timeout: 0, onRequest: never });
    const controller = new AbortController();
    const loading = defineItem(proxy).load(1, { signal: controller.signal });
    await sleep(20);
    controller.abort();
    const error = await proxyErrorOf(loading);
    expect(error.kind).toBe('abort');
    expect(error.mayHaveBeenApplied).toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it('onResponse pending forever: kind "timeout" naming the hook', async () => {
    const proxy = itemProxy(server, { timeout: 150, retry: 0, onResponse: never });
    const error = await proxyErrorOf(defineItem(proxy).load(1));
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('onResponse');
    expect(requestsOf(server, 'GET')).toHaveLength(1);
  });

  it('onResponse pending forever after a PUT: abort() ends it, and the error says it may have been applied', async () => {
    const proxy = itemProxy(server, { timeout: 0 });
    const item = await defineItem(proxy).load(1);
    proxy.onResponse = never;
    item.set('name', 'changed');
    const controller = new AbortController();
    const saving = item.save({ signal: controller.signal });
    await sleep(100);
    controller.abort();
    const error = await proxyErrorOf(saving);
    expect(error.kind).toBe('abort');
    expect(error.mayHaveBeenApplied).toBe(true);
    expect(error.message).not.toMatch(/nothing was changed(?! here)/);
    expect(item.dirty).toBe(true);
  });
});

describe('"retry" from onResponse follows the retry policy', () => {
  const always = (): 'retry' => 'retry';

  it('a POST without an idempotency key is not sent again after a 2xx', async () => {
    const Item = defineItem(itemProxy(server, { onResponse: always }));
    const item = new Item({ uid: 'once', name: 'once', rev: 0 });
    await item.save();
    expect(requestsOf(server, 'POST')).toHaveLength(1);
    expect(rowsOf(server).filter((row) => row['uid'] === 'once')).toHaveLength(1);
  });

  it('a POST without an idempotency key is not sent again after a 502 (it may have been applied)', async () => {
    const Item = defineItem(itemProxy(server, { onResponse: always }));
    server.inject({ type: 'status', status: 502, match: { method: 'POST' } });
    const error = await proxyErrorOf(new Item({ uid: 'p', name: 'p', rev: 0 }).save());
    expect(error.status).toBe(502);
    expect(requestsOf(server, 'POST')).toHaveLength(1);
  });

  it('a POST with an idempotency key, or a PUT, may be sent again', async () => {
    const Item = defineItem(itemProxy(server, { idempotencyKey: true, onResponse: ({ response }) => (response.status === 502 ? 'retry' : undefined) }));
    server.inject({ type: 'status', status: 502, match: { method: 'POST' } });
    await new Item({ uid: 'k', name: 'k', rev: 0 }).save();
    expect(requestsOf(server, 'POST')).toHaveLength(2);
    expect(rowsOf(server).filter((row) => row['uid'] === 'k')).toHaveLength(1);
  });
});

describe('onResponse reads the body', () => {
  it('the response it gets is readable (the proxy has read its own copy)', async () => {
    const bodies: unknown[] = [];
    const proxy = itemProxy(server, {
      onResponse: async ({ response }) => {
        bodies.push(await response.json());
      },
    });
    const item = await defineItem(proxy).load(1);
    expect(bodies).toEqual([{ id: 1, uid: 'u1', name: 'one', rev: 0 }]);
    expect(item.get('name')).toBe('one');
  });

  it('keeps the status, headers and url of the answer', async () => {
    const seen: string[] = [];
    const proxy = itemProxy(server, {
      onResponse: ({ response }) => {
        seen.push(`${response.status} ${response.headers.get('content-type') ?? ''} ${response.url.replace(server.url, '').split('?')[0] ?? ''}`);
      },
    });
    await defineItem(proxy).load(1);
    expect(seen).toEqual(['200 application/json /items/1']);
  });
});

describe('onRequest may change the headers only', () => {
  it('a changed init.body is refused with kind "config": nothing sent, the record as it was', async () => {
    const proxy = itemProxy(server, {
      onRequest: ({ init }) => {
        init.body = JSON.stringify({ name: 'something else' });
      },
    });
    const Item = defineItem(proxy);
    const item = new Item({ uid: 'b', name: 'mine', rev: 0 });
    const error = await proxyErrorOf(item.save());
    expect(error.kind).toBe('config');
    expect(error.message).toContain('init.body');
    expect(server.requests).toHaveLength(0);
    expect(item.phantom).toBe(true);
    expect(item.get('name')).toBe('mine');
  });
});

describe('a try that fails in a hook after an earlier try may have been applied', () => {
  const lost = (): Record<string, unknown>[] => rowsOf(server).filter((row) => row['uid'] === 'lost');

  /**
   * A create whose first POST is applied but its answer lost; `second` is the onRequest of the
   * retry, which never gets past it. The create may exist: the error must say so, and destroy()
   * must confirm it and delete it, never drop it as if nothing was sent.
   */
  async function lostCreate(second: () => Promise<void>, signal?: AbortSignal): Promise<ProxyError> {
    let calls = 0;
    const proxy = itemProxy(server, { idempotencyKey: true, onRequest: () => (++calls === 2 ? second() : undefined) });
    const item = new (defineItem(proxy))({ uid: 'lost', name: 'lost', rev: 0 });
    server.inject({ type: 'reset-after', match: { method: 'POST' } });
    const error = await proxyErrorOf(item.save({ signal }));
    expect(error.mayHaveBeenApplied).toBe(true);
    expect(error.message).toContain('an earlier try may have been applied');
    expect(lost()).toHaveLength(1);
    await item.destroy();
    expect(lost()).toHaveLength(0);
    return error;
  }

  it('onRequest throws on the retry (a token refresh failed): the error says it may have been applied', async () => {
    const error = await lostCreate(() => Promise.reject(new Error('token refresh failed')));
    expect(error.kind).toBe('config');
  });

  it('abort() while onRequest runs for the retry: the error says it may have been applied', async () => {
    const controller = new AbortController();
    // Aborted from inside the retry's onRequest (not on a clock: under load a clock fires during the first try).
    const error = await lostCreate(() => {
      const running = sleep(300);
      controller.abort();
      return running;
    }, controller.signal);
    expect(error.kind).toBe('abort');
  });

  it('onRequest never settles on the last try: the timeout says an earlier try may have been applied, not only that nothing was sent', async () => {
    let calls = 0;
    const proxy = itemProxy(server, { idempotencyKey: true, timeout: 200, retry: { limit: 1, delay: 5 }, onRequest: () => (++calls === 2 ? new Promise<void>(() => undefined) : undefined) });
    server.inject({ type: 'reset-after', match: { method: 'POST' } });
    const error = await proxyErrorOf(new (defineItem(proxy))({ uid: 'lost', name: 'lost', rev: 0 }).save());
    expect(error.kind).toBe('timeout');
    expect(error.mayHaveBeenApplied).toBe(true);
    expect(error.message).toContain('an earlier try may have been applied');
  });

  it('onRequest throws after onResponse asked for a retry of a 2xx PUT: it may have been applied', async () => {
    let calls = 0;
    const proxy = itemProxy(server, {
      onRequest: () => {
        if (++calls === 3) throw new Error('token refresh failed');
      },
      onResponse: ({ request }) => (request.action === 'update' ? 'retry' : undefined),
    });
    const item = await defineItem(proxy).load(1);
    item.set('name', 'edited');
    const error = await proxyErrorOf(item.save());
    expect(error.kind).toBe('config');
    expect(error.mayHaveBeenApplied).toBe(true);
    expect(rowsOf(server)[0]?.['name']).toBe('edited');
  });
});
