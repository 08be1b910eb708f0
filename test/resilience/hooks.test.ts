/**
 * The AjaxProxy's `onRequest` and `onResponse` hooks: a hook may change the headers of each try;
 * `onResponse` returning 'retry' sends the request once more (e.g. after refreshing a token on a
 * 401), and only once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
