// Tests of the test server itself (API.md), with plain fetch.
import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from './index.js';
import { startJsonServer } from './jsonServer.js';
import type { TestServerOptions } from './types.js';

const USERS = [
  { id: 1, name: 'Ed', email: 'ed@example.com', age: 30 },
  { id: 2, name: 'alice', email: 'alice@example.com', age: 25 },
  { id: 3, name: 'Bob', email: 'bob@example.com', age: 41 },
  { id: 4, name: 'Carol', email: 'carol@example.com', age: 25 },
  { id: 5, name: 'Eddie', email: 'eddie@example.com', age: 30 },
];

const closers: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((server) => server.close()));
});

async function start(options: TestServerOptions<{ users: typeof USERS; posts?: object[]; tags?: object[] }> = {}) {
  const server = await startTestServer({ resources: { users: USERS }, required: { users: ['name'] }, ...options });
  closers.push(server);
  return server;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
  redirected: boolean;
}

/** fetch + read the whole body; `body` is the parsed JSON when it parses. */
async function call(url: string, init: RequestInit & { json?: unknown } = {}): Promise<Answer> {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined) {
    if (!headers.has('content-type')) headers.set('Content-Type', 'application/json');
    rest.body = JSON.stringify(json);
  }
  const response = await fetch(url, { ...rest, headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body, redirected: response.redirected };
}

const names = (body: unknown): unknown[] => (Array.isArray(body) ? body.map((row: { name?: unknown }) => row.name) : []);

describe('plain conventions: CRUD', () => {
  it('lists, reads, creates, replaces, patches and deletes', async () => {
    const server = await start();
    const list = await call(`${server.url}/users`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual(USERS);
    expect(list.headers.get('x-total-count')).toBe('5');

    const one = await call(`${server.url}/users/1`);
    expect(one.body).toEqual(USERS[0]);
    expect(one.headers.get('etag')).toBe('"1-1"');
    expect(await call(`${server.url}/users/99`)).toMatchObject({ status: 404, body: { success: false, message: 'Not found' } });

    const created = await call(`${server.url}/users`, { method: 'POST', json: { id: 77, name: 'Zed', age: 1, clientId: 'ext-1' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: 6, name: 'Zed', age: 1, clientId: 'ext-1' });
    expect(created.headers.get('location')).toBe(`${server.url}/users/6`);
    expect(created.headers.get('etag')).toBe('"6-1"');
    expect(server.db.users.at(-1)).toEqual({ id: 6, name: 'Zed', age: 1 });

    const replaced = await call(`${server.url}/users/6`, { method: 'PUT', json: { id: 99, name: 'Zed2' } });
    expect(replaced).toMatchObject({ status: 200, body: { id: 6, name: 'Zed2' } });
    expect(replaced.headers.get('etag')).toBe('"6-2"');
    expect(server.db.users.at(-1)).toEqual({ id: 6, name: 'Zed2' });

    const patched = await call(`${server.url}/users/6`, { method: 'PATCH', json: { age: 7 } });
    expect(patched.body).toEqual({ id: 6, name: 'Zed2', age: 7 });

    const deleted = await call(`${server.url}/users/6`, { method: 'DELETE' });
    expect(deleted).toMatchObject({ status: 204, text: '' });
    expect(server.db.users).toHaveLength(5);
    expect((await call(`${server.url}/users/6`, { method: 'PUT', json: { name: 'x' } })).status).toBe(404);
    expect(server.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'PUT']);
    expect(server.requests[3]).toMatchObject({ path: '/users', json: { id: 77, name: 'Zed', age: 1, clientId: 'ext-1' } });
  });

  it('rejects a wrong Content-Type (415) and malformed JSON (400)', async () => {
    const server = await start();
    const wrongType = await call(`${server.url}/users`, { method: 'POST', body: '{"name":"x"}', headers: { 'Content-Type': 'text/plain' } });
    expect(wrongType).toMatchObject({ status: 415, body: { message: 'Content-Type must be application/json' } });
    const malformed = await call(`${server.url}/users`, { method: 'POST', body: '{"name":', headers: { 'Content-Type': 'application/json' } });
    expect(malformed).toMatchObject({ status: 400, body: { message: 'Malformed JSON' } });
    expect(server.db.users).toHaveLength(5);
  });

  it('accepts .json suffixes, trailing slashes, encoded ids and nested routes', async () => {
    const server = await start({
      resources: { users: USERS, tags: [{ id: 'a/b', name: 'Slash' }], posts: [{ id: 1, userId: 1, title: 'Hi' }, { id: 2, userId: 2, title: 'Yo' }] },
    });
    expect((await call(`${server.url}/users.json`)).body).toHaveLength(5);
    expect((await call(`${server.url}/users/2.json`)).body).toMatchObject({ name: 'alice' });
    expect((await call(`${server.url}/users/`)).body).toHaveLength(5);
    expect((await call(`${server.url}/tags/a%2Fb`)).body).toEqual({ id: 'a/b', name: 'Slash' });
    expect((await call(`${server.url}/users/1/posts`)).body).toEqual([{ id: 1, userId: 1, title: 'Hi' }]);
    const created = await call(`${server.url}/users/2/posts`, { method: 'POST', json: { title: 'New' } });
    expect(created.body).toEqual({ id: 3, title: 'New', userId: 2 });
    expect(created.headers.get('location')).toBe(`${server.url}/users/2/posts/3`);
    expect((await call(`${server.url}/users/1/posts/2`)).status).toBe(404);
    expect((await call(`${server.url}/users/9/posts`)).status).toBe(404);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const server = await start();
    const head = await call(`${server.url}/users`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('x-total-count')).toBe('5');
  });
});

describe('plain conventions: paging, sorting, filtering', () => {
  it('pages with start/limit or page/limit and reports the filtered total', async () => {
    const server = await start();
    const slice = await call(`${server.url}/users?_dc=123&page=2&start=2&limit=2`);
    expect(slice.body).toEqual([USERS[2], USERS[3]]);
    expect(slice.headers.get('x-total-count')).toBe('5');
    expect((await call(`${server.url}/users?page=3&limit=2`)).body).toEqual([USERS[4]]);
    const filter = encodeURIComponent(JSON.stringify([{ property: 'age', value: 30 }]));
    const filtered = await call(`${server.url}/users?filter=${filter}&start=0&limit=1`);
    expect(filtered.body).toEqual([USERS[0]]);
    expect(filtered.headers.get('x-total-count')).toBe('2');
  });

  it('sorts by a JSON sorter list or simple sort/dir', async () => {
    const server = await start();
    const sort = encodeURIComponent(JSON.stringify([{ property: 'age', direction: 'DESC' }, { property: 'name', direction: 'ASC' }]));
    expect(names((await call(`${server.url}/users?sort=${sort}`)).body)).toEqual(['Bob', 'Ed', 'Eddie', 'Carol', 'alice']);
    expect(names((await call(`${server.url}/users?sort=name&dir=DESC`)).body)).toEqual(['alice', 'Eddie', 'Ed', 'Carol', 'Bob']);
  });

  it('filters with every operator', async () => {
    const server = await start();
    const filter = async (filters: object[]): Promise<unknown[]> =>
      names((await call(`${server.url}/users?filter=${encodeURIComponent(JSON.stringify(filters))}`)).body);
    expect(await filter([{ property: 'name', value: 'Ed', operator: '=' }])).toEqual(['Ed']);
    expect(await filter([{ property: 'age', value: 30, operator: '!=' }])).toEqual(['alice', 'Bob', 'Carol']);
    expect(await filter([{ property: 'age', value: 30, operator: '<' }])).toEqual(['alice', 'Carol']);
    expect(await filter([{ property: 'age', value: 30, operator: '<=' }])).toEqual(['Ed', 'alice', 'Carol', 'Eddie']);
    expect(await filter([{ property: 'age', value: 30, operator: '>' }])).toEqual(['Bob']);
    expect(await filter([{ property: 'age', value: 41, operator: '>=' }])).toEqual(['Bob']);
    expect(await filter([{ property: 'name', value: 'ED', operator: 'like' }])).toEqual(['Ed', 'Eddie']);
    expect(await filter([{ property: 'id', value: [1, 3], operator: 'in' }])).toEqual(['Ed', 'Bob']);
    expect(await filter([{ property: 'age', value: 25 }, { property: 'name', value: 'Carol' }])).toEqual(['Carol']);
  });

  it('wraps lists in an envelope when asked', async () => {
    const server = await start({ envelope: true });
    const answer = await call(`${server.url}/users?start=0&limit=2`);
    expect(answer.body).toEqual({ success: true, total: 5, data: [USERS[0], USERS[1]] });
  });
});

describe('plain conventions: batches, validation, ETags, idempotency', () => {
  it('creates, updates and destroys in batches', async () => {
    const server = await start();
    const created = await call(`${server.url}/users`, { method: 'POST', json: [{ name: 'A', clientId: 'c1' }, { name: 'B', clientId: 'c2' }] });
    expect(created).toMatchObject({ status: 201, body: [{ id: 6, name: 'A', clientId: 'c1' }, { id: 7, name: 'B', clientId: 'c2' }] });
    expect(server.db.users.slice(5)).toEqual([{ id: 6, name: 'A' }, { id: 7, name: 'B' }]);

    const updated = await call(`${server.url}/users`, { method: 'PUT', json: [{ id: 6, name: 'A2' }, { id: 7, name: 'B2', age: 3 }] });
    expect(updated).toMatchObject({ status: 200, body: [{ id: 6, name: 'A2' }, { id: 7, name: 'B2', age: 3 }] });
    expect((await call(`${server.url}/users`, { method: 'PUT', json: [{ id: 6, name: 'x' }, { id: 99, name: 'y' }] })).status).toBe(404);
    expect(server.db.users[5]).toEqual({ id: 6, name: 'A2' });

    const destroyed = await call(`${server.url}/users`, { method: 'DELETE', json: [6, { id: 7 }] });
    expect(destroyed.status).toBe(204);
    expect(server.db.users).toHaveLength(5);
  });

  it('answers 422 for a missing or empty required field, applying nothing', async () => {
    const server = await start();
    for (const body of [{ age: 3 }, { name: '' }, { name: null }]) {
      expect(await call(`${server.url}/users`, { method: 'POST', json: body })).toMatchObject({ status: 422, body: { errors: { name: ['is required'] } } });
    }
    expect((await call(`${server.url}/users`, { method: 'POST', json: [{ name: 'ok' }, { age: 1 }] })).status).toBe(422);
    expect((await call(`${server.url}/users/1`, { method: 'PUT', json: { age: 1 } })).status).toBe(422);
    expect((await call(`${server.url}/users/1`, { method: 'PATCH', json: { name: ' ' } })).status).toBe(422);
    expect((await call(`${server.url}/users/1`, { method: 'PATCH', json: { age: 31 } })).status).toBe(200);
    expect(server.db.users).toHaveLength(5);
  });

  it('checks If-Match against the ETag (412 carries the current record)', async () => {
    const server = await start();
    const etag = (await call(`${server.url}/users/1`)).headers.get('etag') ?? '';
    expect(etag).toBe('"1-1"');
    const first = await call(`${server.url}/users/1`, { method: 'PATCH', json: { age: 31 }, headers: { 'If-Match': etag } });
    expect(first.headers.get('etag')).toBe('"1-2"');
    const stale = await call(`${server.url}/users/1`, { method: 'PUT', json: { name: 'Lost' }, headers: { 'If-Match': etag } });
    expect(stale).toMatchObject({ status: 412, body: { id: 1, name: 'Ed', age: 31 } });
    expect(stale.headers.get('etag')).toBe('"1-2"');
    expect((await call(`${server.url}/users/1`, { method: 'DELETE', headers: { 'If-Match': etag } })).status).toBe(412);
    expect((await call(`${server.url}/users/1`, { method: 'DELETE', headers: { 'If-Match': '"1-2"' } })).status).toBe(204);
  });

  it('replays a POST with an Idempotency-Key that was already applied', async () => {
    const server = await start();
    const headers = { 'Idempotency-Key': 'k-1' };
    const first = await call(`${server.url}/users`, { method: 'POST', json: { name: 'Once' }, headers });
    const again = await call(`${server.url}/users`, { method: 'POST', json: { name: 'Once' }, headers });
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(server.db.users.filter((row) => row.name === 'Once')).toHaveLength(1);
    await call(`${server.url}/users`, { method: 'POST', json: { name: 'Once' }, headers: { 'Idempotency-Key': 'k-2' } });
    expect(server.db.users.filter((row) => row.name === 'Once')).toHaveLength(2);
  });

  it('refuses (422) a key reused with another body, or on another path, and applies nothing', async () => {
    const server = await start({ resources: { users: USERS, posts: [] } });
    const headers = { 'Idempotency-Key': 'k-3' };
    expect((await call(`${server.url}/users`, { method: 'POST', json: [{ name: 'A' }, { name: 'B' }], headers })).status).toBe(201);
    const reordered = await call(`${server.url}/users`, { method: 'POST', json: [{ name: 'B' }, { name: 'A' }], headers });
    expect(reordered).toMatchObject({ status: 422, body: { message: 'Idempotency-Key reused with a different request' } });
    expect((await call(`${server.url}/posts`, { method: 'POST', json: [{ name: 'A' }, { name: 'B' }], headers })).status).toBe(422);
    const replayed = await call(`${server.url}/users`, { method: 'POST', json: [{ name: 'A' }, { name: 'B' }], headers });
    expect(replayed).toMatchObject({ status: 201, body: [{ id: 6, name: 'A' }, { id: 7, name: 'B' }] });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(server.db.users).toHaveLength(7);
    expect(server.db.posts).toEqual([]);
  });
});

describe('faults', () => {
  it('reset-before drops the connection before anything is applied (fetch TypeError)', async () => {
    const server = await start();
    const fault = server.inject({ type: 'reset-before', match: { method: 'POST' } });
    expect(fault.type).toBe('reset-before');
    await expect(call(`${server.url}/users`, { method: 'POST', json: { name: 'Lost' } })).rejects.toBeInstanceOf(TypeError);
    expect(server.db.users).toHaveLength(5);
    expect(server.requests[0]?.fault).toBe('reset-before');
    // consumed: the next request goes through
    expect((await call(`${server.url}/users`, { method: 'POST', json: { name: 'Kept' } })).status).toBe(201);
  });

  it('reset-after applies the write, then drops the connection', async () => {
    const server = await start();
    server.inject({ type: 'reset-after' });
    await expect(call(`${server.url}/users`, { method: 'POST', json: { name: 'Ghost' } })).rejects.toBeInstanceOf(TypeError);
    expect(server.db.users.at(-1)).toEqual({ id: 6, name: 'Ghost' });
  });

  it('a retry after reset-after with the same Idempotency-Key gets the first answer', async () => {
    const server = await start();
    server.inject({ type: 'reset-after' });
    const init = { method: 'POST', json: { name: 'Ghost' }, headers: { 'Idempotency-Key': 'retry-1' } };
    await expect(call(`${server.url}/users`, init)).rejects.toBeInstanceOf(TypeError);
    const retry = await call(`${server.url}/users`, init);
    expect(retry).toMatchObject({ status: 201, body: { id: 6, name: 'Ghost' } });
    expect(server.db.users).toHaveLength(6);
  });

  it('stall answers nothing: the client times out, and the stall ends by dropping the socket', async () => {
    const server = await start();
    server.inject({ type: 'stall', ms: 5_000, match: { method: 'PUT' } });
    const timedOut = call(`${server.url}/users/1`, { method: 'PUT', json: { name: 'Late' }, signal: AbortSignal.timeout(100) });
    await expect(timedOut).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(server.db.users[0]?.name).toBe('Ed');

    server.inject({ type: 'stall', ms: 100 });
    const started = Date.now();
    await expect(call(`${server.url}/users/1`)).rejects.toBeInstanceOf(TypeError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('close() returns at once even with a stalled request open', async () => {
    const server = await start();
    server.inject({ type: 'stall', ms: 10_000 });
    const pending = call(`${server.url}/users`).catch((error: unknown) => error);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(500);
    expect(await pending).toBeInstanceOf(TypeError);
  });

  it('delay applies and answers normally after ms', async () => {
    const server = await start();
    server.inject({ type: 'delay', ms: 150 });
    const started = Date.now();
    const answer = await call(`${server.url}/users`, { method: 'POST', json: { name: 'Slow' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(answer.status).toBe(201);
    expect(server.db.users).toHaveLength(6);
  });

  it('truncate applies and sends half of the JSON body with a matching Content-Length', async () => {
    const server = await start();
    server.inject({ type: 'truncate', match: { method: 'POST' } });
    const response = await fetch(`${server.url}/users`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Cut' }) });
    expect(response.status).toBe(201);
    const full = JSON.stringify({ id: 6, name: 'Cut' });
    const text = await response.text();
    expect(text).toBe(full.slice(0, Math.floor(full.length / 2)));
    expect(response.headers.get('content-length')).toBe(String(text.length));
    expect(() => JSON.parse(text) as unknown).toThrow(SyntaxError);
    expect(server.db.users).toHaveLength(6);
  });

  it('html answers an HTML error page', async () => {
    const server = await start();
    server.inject({ type: 'html' });
    server.inject({ type: 'html', status: 502 });
    const first = await call(`${server.url}/users`);
    expect(first.status).toBe(500);
    expect(first.headers.get('content-type')).toMatch(/^text\/html/);
    expect(first.text).toContain('<html>');
    expect((await call(`${server.url}/users`)).status).toBe(502);
  });

  it('duplicate applies the request twice and answers once', async () => {
    const server = await start();
    server.inject({ type: 'duplicate' });
    const answer = await call(`${server.url}/users`, { method: 'POST', json: { name: 'Twin' } });
    expect(answer.body).toEqual({ id: 6, name: 'Twin' });
    expect(server.db.users.slice(5)).toEqual([{ id: 6, name: 'Twin' }, { id: 7, name: 'Twin' }]);
  });

  it('status answers instead of applying (503 with Retry-After)', async () => {
    const server = await start();
    server.inject({ type: 'status', status: 503, headers: { 'Retry-After': '1' }, times: 2 });
    for (let i = 0; i < 2; i += 1) {
      const answer = await call(`${server.url}/users`, { method: 'POST', json: { name: 'No' } });
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    expect(server.db.users).toHaveLength(5);
    server.inject({ type: 'status', status: 500, body: 'boom' });
    expect(await call(`${server.url}/users`)).toMatchObject({ status: 500, text: 'boom' });
    expect(server.stats).toMatchObject({ requests: 3, faulted: 3, faults: { status: 3, 'reset-before': 0 } });
  });

  it('matches faults by method and path, in order', async () => {
    const server = await start();
    server.inject({ type: 'status', status: 500, match: { method: 'DELETE', path: '/users/2' } });
    server.inject({ type: 'status', status: 502, match: { path: /\/users\/\d+$/ } });
    expect((await call(`${server.url}/users`)).status).toBe(200);
    expect((await call(`${server.url}/users/1`, { method: 'DELETE' })).status).toBe(502);
    expect((await call(`${server.url}/users/2`, { method: 'DELETE' })).status).toBe(500);
    expect((await call(`${server.url}/users/2`, { method: 'DELETE' })).status).toBe(204);
  });

  it('chaos is deterministic for a seed, and chaos(null) stops it', async () => {
    const run = async (): Promise<(string | undefined)[]> => {
      const server = await start();
      server.chaos({ rate: 0.5, seed: 42, types: ['reset-before', 'status', 'truncate', 'html', 'reset-after'] });
      for (let i = 0; i < 30; i += 1) await call(`${server.url}/users/1`).catch(() => undefined);
      server.chaos(null);
      expect((await call(`${server.url}/users/1`)).status).toBe(200);
      return server.requests.map((request) => request.fault);
    };
    const first = await run();
    expect(first.filter((fault) => fault !== undefined).length).toBeGreaterThan(5);
    expect(new Set(first).size).toBeGreaterThanOrEqual(5);
    expect(await run()).toEqual(first);
  });

  it('scripted routes answer for `times` requests; reset() clears routes, faults and requests', async () => {
    const server = await start();
    const route = server.respond('GET', '/users', { status: 200, body: { success: false, message: 'offline' } }, { times: 1 });
    server.respond('GET', /\/users\/\d+/, (req) => ({ status: 418, body: { path: req.path }, delayMs: 20 }));
    expect((await call(`${server.url}/users?_dc=1`)).body).toEqual({ success: false, message: 'offline' });
    expect(route.calls).toBe(1);
    expect((await call(`${server.url}/users`)).body).toHaveLength(5);
    expect(await call(`${server.url}/users/3`)).toMatchObject({ status: 418, body: { path: '/users/3' } });
    server.inject({ type: 'status', status: 500 });
    server.reset();
    expect(server.requests).toHaveLength(0);
    expect(server.stats.requests).toBe(0);
    expect((await call(`${server.url}/users/3`)).status).toBe(200);
  });
});

describe('keepAlive', () => {
  interface Sent {
    status: number;
    connection: string | undefined;
    /** whether the request went over a connection an earlier request had used */
    reused: boolean;
  }

  /** node:http through a keep-alive agent with one socket, so a connection the server keeps open is used again. */
  function send(agent: Agent, url: string, method: string, headers: Record<string, string> = {}): Promise<Sent> {
    return new Promise((resolve, reject) => {
      const req = request(url, { agent, method, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, reused: req.reusedSocket }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  async function sendThree(options: TestServerOptions<{ users: typeof USERS }>): Promise<Sent[]> {
    const server = await start(options);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const preflight = await send(agent, `${server.url}/users/1`, 'OPTIONS', { Origin: 'http://page.test', 'Access-Control-Request-Method': 'PUT' });
      const read = await send(agent, `${server.url}/users/1`, 'GET', { Origin: 'http://page.test' });
      return [preflight, read, await send(agent, `${server.url}/users/1`, 'GET')];
    } finally {
      agent.destroy();
    }
  }

  it('by default connections are kept open and used again', async () => {
    const [preflight, read, again] = await sendThree({});
    expect(preflight).toMatchObject({ status: 204, connection: 'keep-alive', reused: false });
    expect(read).toMatchObject({ status: 200, connection: 'keep-alive', reused: true });
    expect(again).toMatchObject({ status: 200, reused: true });
  });

  it('keepAlive: false answers every request, preflights included, with Connection: close on a new connection', async () => {
    const sent = await sendThree({ keepAlive: false });
    expect(sent.map(({ status }) => status)).toEqual([204, 200, 200]);
    for (const answer of sent) expect(answer).toMatchObject({ connection: 'close', reused: false });
  });

  it('keepAlive: false still drops the connection for a fault, and the next request gets a new one', async () => {
    const server = await start({ keepAlive: false });
    server.inject({ type: 'reset-after', match: { method: 'POST' } });
    await expect(call(`${server.url}/users`, { method: 'POST', json: { name: 'Ghost' } })).rejects.toBeInstanceOf(TypeError);
    expect(await call(`${server.url}/users`, { method: 'POST', json: { name: 'Kept' } })).toMatchObject({ status: 201 });
    expect(server.db.users.slice(5).map((user) => user.name)).toEqual(['Ghost', 'Kept']);
  });
});

describe('django-rest conventions', () => {
  const many = Array.from({ length: 7 }, (_, i) => ({ id: i + 1, name: `User ${i + 1}`, email: `u${i + 1}@example.com`, age: 20 + (i % 3) }));

  it('redirects a path without the trailing slash (301, query kept), for every method', async () => {
    const server = await start({ conventions: 'django-rest', resources: { users: many } });
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
      const answer = await call(`${server.url}/users?_dc=1`, { method, redirect: 'manual' });
      expect(answer.status).toBe(301);
      expect(answer.headers.get('location')).toBe('/users/?_dc=1');
      expect(answer.text).toBe('');
    }
    expect((await call(`${server.url}/users/2`, { redirect: 'manual' })).headers.get('location')).toBe('/users/2/');
    // fetch follows a 301 on POST as a GET: nothing is created
    const followed = await call(`${server.url}/users`, { method: 'POST', json: { name: 'Lost' } });
    expect(followed).toMatchObject({ status: 200, redirected: true, body: { count: 7 } });
    expect(server.db.users).toHaveLength(7);
  });

  it('lists with page/page_size, ordering, search and filters', async () => {
    const server = await start({ conventions: 'django-rest', resources: { users: many } });
    const page2 = await call(`${server.url}/users/?page_size=3&page=2&_dc=9`);
    expect(page2.body).toEqual({
      count: 7,
      next: `${server.url}/users/?_dc=9&page=3&page_size=3`,
      previous: `${server.url}/users/?_dc=9&page_size=3`,
      results: many.slice(3, 6),
    });
    const ordered = await call(`${server.url}/users/?ordering=-age,bogus,name&page_size=3`);
    expect(names((ordered.body as { results: unknown }).results)).toEqual(['User 3', 'User 6', 'User 2']);
    expect((await call(`${server.url}/users/?search=user%207`)).body).toMatchObject({ count: 1 });
    expect((await call(`${server.url}/users/?age=21`)).body).toMatchObject({ count: 2 });
    expect(await call(`${server.url}/users/?age=abc`)).toMatchObject({ status: 400, body: { age: ['Enter a number.'] } });
    expect(await call(`${server.url}/users/?page=9`)).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
  });

  it('creates (201, no Location), validates (400), reads, deletes (204)', async () => {
    const server = await start({ conventions: 'django-rest', resources: { users: many } });
    const created = await call(`${server.url}/users/`, { method: 'POST', json: { name: 'Zed', email: 'zed@example.com', age: '41', bogus: 1 } });
    expect(created).toMatchObject({ status: 201, body: { id: 8, name: 'Zed', email: 'zed@example.com', age: 41 } });
    expect(created.headers.get('location')).toBeNull();
    expect(created.headers.get('content-type')).toBe('application/json');
    expect(await call(`${server.url}/users/`, { method: 'POST', json: { email: 'x@example.com' } })).toMatchObject({
      status: 400,
      body: { name: ['This field is required.'] },
    });
    expect((await call(`${server.url}/users/`, { method: 'POST', json: { name: '' } })).body).toEqual({ name: ['This field may not be blank.'] });
    expect(await call(`${server.url}/users/`, { method: 'POST', body: 'name=x', headers: { 'Content-Type': 'text/plain' } })).toMatchObject({
      status: 415,
      body: { detail: 'Unsupported media type "text/plain" in request.' },
    });
    expect((await call(`${server.url}/users/8/`)).body).toMatchObject({ name: 'Zed' });
    expect((await call(`${server.url}/users/8/`, { method: 'PATCH', json: { age: 42 } })).body).toMatchObject({ id: 8, age: 42 });
    expect((await call(`${server.url}/users/8/`, { method: 'DELETE' }))).toMatchObject({ status: 204, text: '' });
    expect(await call(`${server.url}/users/8/`)).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    expect(await call(`${server.url}/users/`, { method: 'DELETE' })).toMatchObject({ status: 405, body: { detail: 'Method "DELETE" not allowed.' } });
  });

  it('follows the reference on paging edges, body errors and PUT rules', async () => {
    const server = await start({ conventions: 'django-rest', resources: { users: many }, required: { users: ['name', 'email'] } });
    const base = `${server.url}/users/`;
    expect((await call(`${base}?page=last&page_size=3`)).body).toMatchObject({ next: null, previous: `${base}?page=2&page_size=3`, results: [many[6]] });
    expect((await call(`${base}?page_size=5000`)).body).toMatchObject({ count: 7, next: null });
    expect((await call(`${base}?page_size=0`)).body).toMatchObject({ count: 7, next: null, previous: null });
    expect((await call(`${base}?page=2&page_size=3`)).body).toMatchObject({ previous: `${base}?page_size=3` });
    for (const page of ['0', 'abc', '4&page_size=3']) expect((await call(`${base}?page=${page}`)).status).toBe(404);
    expect((await call(`${base}?name=Nobody`)).body).toEqual({ count: 0, next: null, previous: null, results: [] });
    expect((await call(`${base}?name=user%201`)).body).toMatchObject({ count: 0 }); // exact, case-sensitive

    expect((await call(base, { method: 'POST', json: [{ name: 'x' }] })).body).toEqual({
      non_field_errors: ['Invalid data. Expected a dictionary, but got list.'],
    });
    const parseError = await call(base, { method: 'POST', body: '{"name": "x",', headers: { 'Content-Type': 'application/json' } });
    expect(parseError.status).toBe(400);
    expect((parseError.body as { detail: string }).detail).toMatch(/^JSON parse error - /);
    expect((await call(base, { method: 'POST', json: { name: null, email: 'n@example.com' } })).body).toEqual({ name: ['This field may not be null.'] });

    expect(await call(`${base}1/`, { method: 'PUT', json: { name: 'Only Name' } })).toMatchObject({ status: 400, body: { email: ['This field is required.'] } });
    expect((await call(`${base}1/`, { method: 'PUT', json: { name: 'New', email: 'new@example.com' } })).body).toEqual({ id: 1, name: 'New', email: 'new@example.com', age: 20 });
    expect((await call(`${base}99/`, { method: 'PUT', json: { name: 'a', email: 'b@example.com' } })).status).toBe(404);
    expect((await call(`${base}1/`, { method: 'POST', json: { name: 'a' } })).status).toBe(405);

    const deleted = await fetch(`${base}2/`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(deleted.headers.get('content-type')).toBeNull();
    expect(deleted.headers.get('content-length')).toBe('0');
    expect(deleted.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
    const redirect = await fetch(`${base}3`, { method: 'PATCH', redirect: 'manual' });
    expect(redirect.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect((await call(`${server.url}/users/3.json`)).body).toMatchObject({ id: 3 });
    // a redirect-following client repeats PATCH with its body on the slash URL
    const followed = await call(`${base}3`, { method: 'PATCH', json: { age: 99 } });
    expect(followed).toMatchObject({ status: 200, redirected: true, body: { id: 3, age: 99 } });
  });
});

describe('rails conventions', () => {
  it('lists with X-Total-Count and page/per_page', async () => {
    const server = await start({ conventions: 'rails' });
    const all = await call(`${server.url}/users`);
    expect(all.body).toEqual(USERS);
    expect(all.headers.get('x-total-count')).toBe('5');
    const paged = await call(`${server.url}/users.json?page=2&per_page=2`);
    expect(paged.body).toEqual([USERS[2], USERS[3]]);
    expect(paged.headers.get('x-per-page')).toBe('2');
  });

  it('creates from a wrapped or bare body (201 + Location), validates (422), updates partially, deletes (204)', async () => {
    const server = await start({ conventions: 'rails' });
    const wrapped = await call(`${server.url}/users`, { method: 'POST', json: { user: { name: 'Zed', age: '41', id: 9, bogus: 1 } } });
    expect(wrapped).toMatchObject({ status: 201, body: { id: 6, name: 'Zed', age: 41 } });
    expect(wrapped.headers.get('location')).toBe(`${server.url}/users/6`);
    const bare = await call(`${server.url}/users/`, { method: 'POST', json: { name: 'Bare', _dc: 1 } });
    expect(bare.body).toEqual({ id: 7, name: 'Bare' });
    expect(await call(`${server.url}/users`, { method: 'POST', json: { user: { name: ' ' } } })).toMatchObject({ status: 422, body: { name: ["can't be blank"] } });
    expect((await call(`${server.url}/users`, { method: 'POST', json: {} })).status).toBe(400);
    expect((await call(`${server.url}/users/6`, { method: 'PUT', json: { user: { age: 50 } } })).body).toEqual({ id: 6, name: 'Zed', age: 50 });
    expect((await call(`${server.url}/users/6`, { method: 'DELETE' }))).toMatchObject({ status: 204, text: '' });
  });

  it('accepts nested attributes: children created, updated and destroyed with the parent, all or nothing', async () => {
    const server = await start({ conventions: 'rails', resources: { users: USERS, posts: [] }, required: { posts: ['title'] }, fields: { posts: ['title', 'user_id'] }, nested: { users: { posts: { foreignKey: 'user_id' } } } });
    const created = await call(`${server.url}/users`, { method: 'POST', json: { user: { name: 'Zed', posts_attributes: [{ title: 'a', user_id: 99 }, { title: 'b' }] } } });
    expect(created).toMatchObject({ status: 201, body: { id: 6, name: 'Zed', posts: [{ id: 1, title: 'a', user_id: 6 }, { id: 2, title: 'b', user_id: 6 }] } });
    // A blank child fails the whole request: nothing of it is stored.
    const refused = await call(`${server.url}/users/6`, { method: 'PATCH', json: { user: { name: 'Zoe', posts_attributes: [{ id: 1, title: 'a2' }, { title: ' ' }] } } });
    expect(refused).toMatchObject({ status: 422, body: { 'posts.title': ["can't be blank"] } });
    expect(server.db.posts).toHaveLength(2);
    expect(server.db.users.find((user) => user.id === 6)?.name).toBe('Zed');
    // Form-style hash keyed by index; _destroy; another user's post is not found.
    const updated = await call(`${server.url}/users/6`, { method: 'PATCH', json: { user: { posts_attributes: { 0: { id: 1, title: 'a2' }, 1: { id: 2, _destroy: '1' }, 2: { title: 'c' } } } } });
    expect(updated.body).toMatchObject({ id: 6, posts: [{ id: 1, title: 'a2' }, { title: 'c', user_id: 6 }] });
    expect((server.db.posts ?? []).map((post) => Reflect.get(post, 'title'))).toEqual(['a2', 'c']);
    expect((await call(`${server.url}/users/1`, { method: 'PATCH', json: { user: { posts_attributes: [{ id: 1, title: 'stolen' }] } } })).status).toBe(404);
    expect((await call(`${server.url}/users/6`, { method: 'PATCH', json: { user: { posts_attributes: 'x' } } })).status).toBe(400);
    expect((await call(`${server.url}/users/6`)).body).toMatchObject({ posts: [{ id: 1 }, { title: 'c' }] });
  });

  it('answers 404 as JSON only for JSON requests', async () => {
    const server = await start({ conventions: 'rails' });
    expect(await call(`${server.url}/users/99`, { headers: { Accept: 'application/json' } })).toMatchObject({
      status: 404,
      body: { status: 404, error: 'Not Found' },
    });
    const html = await call(`${server.url}/users/99`);
    expect(html).toMatchObject({ status: 404, text: '' });
    expect(html.headers.get('content-type')).toBe('text/html');
    expect((await call(`${server.url}/users/99`, { headers: { Accept: 'application/json, text/plain, */*' } })).text).toBe('');
    expect((await call(`${server.url}/users/99.json`)).body).toEqual({ status: 404, error: 'Not Found' });
    expect((await call(`${server.url}/users/1`, { method: 'POST', json: { name: 'x' } })).status).toBe(404);
  });

  it('follows the reference on paging edges, params, coercion and ETags', async () => {
    const server = await start({ conventions: 'rails' });
    expect((await call(`${server.url}/users?page=0&per_page=500`)).body).toHaveLength(5);
    expect((await call(`${server.url}/users?page=9`)).body).toEqual([]);
    const paged = await call(`${server.url}/users?page=-1&per_page=abc`);
    expect([paged.headers.get('x-page'), paged.headers.get('x-per-page'), paged.headers.get('x-total-count')]).toEqual(['1', '10', '5']);
    const json = { Accept: 'application/json' };
    expect(await call(`${server.url}/users`, { method: 'POST', json: { foo: 1 }, headers: json })).toMatchObject({ status: 400, body: { status: 400, error: 'Bad Request' } });
    expect((await call(`${server.url}/users`, { method: 'POST', body: '{"name":', headers: { ...json, 'Content-Type': 'application/json' } })).status).toBe(400);
    expect((await call(`${server.url}/users`, { method: 'POST', body: '{"name":"x"}', headers: { 'Content-Type': 'text/plain' } })).status).toBe(400);
    expect((await call(`${server.url}/users`, { method: 'POST', json: { user: { name: 'Form', age: 'abc' } } })).body).toMatchObject({ name: 'Form', age: 0 });
    expect((await call(`${server.url}/users`, { method: 'POST', body: 'user[name]=Posted&user[age]=7', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })).body).toMatchObject({ name: 'Posted', age: 7 });
    expect(await call(`${server.url}/users/2`, { method: 'PATCH', json: { name: null } })).toMatchObject({ status: 422, body: { name: ["can't be blank"] } });
    const one = await call(`${server.url}/users/2`);
    const etag = one.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\/"[0-9a-f]{32}"$/);
    expect((await fetch(`${server.url}/users/2`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
  });
});

describe('laravel conventions', () => {
  it('lists, creates, validates and deletes', async () => {
    const server = await start({ conventions: 'laravel' });
    expect((await call(`${server.url}/users?page=2&per_page=2`)).body).toEqual({
      data: [USERS[2], USERS[3]],
      meta: { total: 5, current_page: 2, per_page: 2 },
    });
    expect((await call(`${server.url}/users/1`)).body).toEqual({ data: USERS[0] });
    expect(await call(`${server.url}/users`, { method: 'POST', json: { name: 'Zed' } })).toMatchObject({ status: 201, body: { data: { id: 6, name: 'Zed' } } });
    expect(await call(`${server.url}/users`, { method: 'POST', json: { age: 1 } })).toMatchObject({
      status: 422,
      body: { message: 'The name field is required.', errors: { name: ['The name field is required.'] } },
    });
    expect((await call(`${server.url}/users/6`, { method: 'DELETE' })).status).toBe(204);
    expect(server.db.users).toHaveLength(5);
  });
});

describe('spring-data-rest conventions', () => {
  it('lists, creates, validates, replaces and deletes', async () => {
    const server = await start({ conventions: 'spring-data-rest' });
    const list = await call(`${server.url}/users?page=1&size=2&sort=age,desc&sort=name`);
    expect(list.body).toEqual({
      _embedded: {
        users: [
          { name: 'Eddie', email: 'eddie@example.com', age: 30, _links: { self: { href: `${server.url}/users/5` } } },
          { name: 'Carol', email: 'carol@example.com', age: 25, _links: { self: { href: `${server.url}/users/4` } } },
        ],
      },
      page: { size: 2, totalElements: 5, totalPages: 3, number: 1 },
    });
    const created = await call(`${server.url}/users`, { method: 'POST', json: { name: 'Zed', age: 1 } });
    expect(created).toMatchObject({ status: 201, body: { name: 'Zed', age: 1, _links: { self: { href: `${server.url}/users/6` } } } });
    expect(created.headers.get('location')).toBe(`${server.url}/users/6`);
    expect(await call(`${server.url}/users`, { method: 'POST', json: { age: 1 } })).toMatchObject({
      status: 400,
      body: { errors: [{ entity: 'User', property: 'name', invalidValue: null, message: 'must not be blank' }] },
    });
    expect((await call(`${server.url}/users/6`, { method: 'PUT', json: { name: 'Zed2' } })).body).toMatchObject({ name: 'Zed2', age: null });
    expect((await call(`${server.url}/users/6`, { method: 'DELETE' })).status).toBe(204);
    expect(server.db.users).toHaveLength(5);
  });
});

describe('json-api conventions', () => {
  const headers = { 'Content-Type': 'application/vnd.api+json' };

  it('lists, creates, validates, patches and deletes', async () => {
    const server = await start({ conventions: 'json-api' });
    const list = await call(`${server.url}/users?filter[age]=30&sort=-name&page[number]=1&page[size]=1`);
    expect(list.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(list.body).toEqual({ data: [{ type: 'users', id: '5', attributes: { name: 'Eddie', email: 'eddie@example.com', age: 30 } }], meta: { total: 2 } });
    const created = await call(`${server.url}/users`, { method: 'POST', headers, json: { data: { type: 'users', attributes: { name: 'Zed' } } } });
    expect(created).toMatchObject({ status: 201, body: { data: { type: 'users', id: '6', attributes: { name: 'Zed' } } } });
    expect((await call(`${server.url}/users`, { method: 'POST', json: { data: { type: 'users', attributes: { name: 'x' } } } })).status).toBe(415);
    expect(await call(`${server.url}/users`, { method: 'POST', headers, json: { data: { type: 'users', attributes: {} } } })).toMatchObject({
      status: 422,
      body: { errors: [{ status: '422', source: { pointer: '/data/attributes/name' }, detail: "can't be blank" }] },
    });
    const patched = await call(`${server.url}/users/6`, { method: 'PATCH', headers, json: { data: { type: 'users', id: '6', attributes: { age: 3 } } } });
    expect(patched.body).toEqual({ data: { type: 'users', id: '6', attributes: { name: 'Zed', age: 3 } } });
    expect((await call(`${server.url}/users/6`, { method: 'DELETE' })).status).toBe(204);
    expect(server.db.users).toHaveLength(5);
  });
});

describe('startJsonServer', () => {
  it('runs the real json-server on a temp copy of the db and stops it on close()', async () => {
    const jsonServer = await startJsonServer({ users: USERS.slice(0, 2) });
    closers.push(jsonServer);
    expect(await call(`${jsonServer.url}/users`)).toMatchObject({ status: 200, body: USERS.slice(0, 2) });
    expect((await call(`${jsonServer.url}/users`, { method: 'POST', json: { name: 'Zed' } })).status).toBe(201);
    expect((await jsonServer.readDb()).users.map((user) => user.name)).toEqual(['Ed', 'alice', 'Zed']);
    await jsonServer.close();
    await expect(fetch(`${jsonServer.url}/users`)).rejects.toBeInstanceOf(TypeError);
  });
});
