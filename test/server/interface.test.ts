/**
 * The TestServer interface as the suites use it, run by both configs: in Node against the server
 * itself, in the browser run against remote.ts + the hub (hub.ts) and cross-origin (cors.ts).
 * It imports '../server/index.js', the specifier the browser config swaps for remote.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inBrowser } from '../helpers/inBrowser.js';
import { startTestServer, type TestServer } from '../server/index.js';

const ITEMS = [
  { id: 1, name: 'one' },
  { id: 2, name: 'two' },
];

let server: TestServer<{ items: typeof ITEMS }>;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: ITEMS } });
});

afterEach(async () => {
  await server.close();
});

function put(path: string, body: object, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, { method: 'PUT', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

describe('what the suites read', () => {
  it('requests: method, path, url, query as URLSearchParams, lower-cased headers, body and json', async () => {
    await fetch(`${server.url}/items?limit=1&sort=name`);
    await put('/items/1', { name: 'ONE' }, { 'X-Trace': 't1' });
    const [get, update] = server.requests;
    expect(get?.query).toBeInstanceOf(URLSearchParams);
    expect(get?.query.get('limit')).toBe('1');
    expect(get).toMatchObject({ method: 'GET', path: '/items', url: '/items?limit=1&sort=name', body: '', json: undefined });
    expect(update).toMatchObject({ method: 'PUT', path: '/items/1', json: { name: 'ONE' } });
    expect(update?.headers['x-trace']).toBe('t1');
    expect(server.requests).toHaveLength(2);
    expect(server.stats.requests).toBe(2);
  });

  it('db follows the requests, and a change made through it reaches the server', async () => {
    await put('/items/1', { name: 'ONE' });
    expect(server.db.items.find((row) => row.id === 1)).toEqual({ id: 1, name: 'ONE' });
    server.db.items.push({ id: 3, name: 'three' });
    const row = server.db.items.find((candidate) => candidate.id === 1);
    if (row) row.name = 'edited';
    expect(await (await fetch(`${server.url}/items/3`)).json()).toEqual({ id: 3, name: 'three' });
    const one = await fetch(`${server.url}/items/1`);
    expect(await one.json()).toEqual({ id: 1, name: 'edited' });
    // Editing a row through db keeps its ETag version (the PUT made it 2).
    expect(one.headers.get('ETag')).toBe('"1-2"');
  });

  it('faults: RegExp matches and times: Infinity', async () => {
    server.inject({ type: 'status', status: 503, times: Number.POSITIVE_INFINITY, match: { path: /^\/items\/\d+$/ } });
    expect((await fetch(`${server.url}/items/1`)).status).toBe(503);
    expect((await fetch(`${server.url}/items/2`)).status).toBe(503);
    expect((await fetch(`${server.url}/items`)).status).toBe(200);
    expect(server.stats.faults.status).toBe(2);
    expect(server.requests.map((request) => request.fault)).toEqual(['status', 'status', undefined]);
  });

  it('routes: an answer, a self-contained function of the request, calls and remove()', async () => {
    const fixed = server.respond('GET', '/items', { status: 200, body: [] }, { times: 1 });
    const echo = server.respond('*', /^\/echo\//, (req) => ({ status: 202, body: { method: req.method, q: req.query.get('q') } }));
    expect(await (await fetch(`${server.url}/items`)).json()).toEqual([]);
    expect(fixed.calls).toBe(1);
    const echoed = await fetch(`${server.url}/echo/x?q=hi`, { method: 'DELETE' });
    expect(echoed.status).toBe(202);
    expect(await echoed.json()).toEqual({ method: 'DELETE', q: 'hi' });
    expect(echo.calls).toBe(1);
    echo.remove();
    expect((await fetch(`${server.url}/echo/x`)).status).toBe(404);
  });

  it('close() may be called twice', async () => {
    await server.close();
    await server.close();
  });
});

describe('cross-origin (the browser run calls the server from the vitest page)', () => {
  it('the page can read every header the proxies use', async () => {
    const created = await fetch(`${server.url}/items`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":"new"}' });
    expect(created.headers.get('Location')).toBe(`${server.url}/items/3`);
    expect(created.headers.get('ETag')).toBe('"3-1"');
    expect((await fetch(`${server.url}/items`)).headers.get('X-Total-Count')).toBe('3');
    server.inject({ type: 'status', status: 503, headers: { 'Retry-After': '1' } });
    expect((await fetch(`${server.url}/items`)).headers.get('Retry-After')).toBe('1');
  });

  it('a request that needs a preflight: only the request itself is recorded, counted and faulted', async () => {
    server.inject({ type: 'status', status: 503 });
    const answer = await put('/items/1', { name: 'ONE' }, { 'If-Match': '"1-1"', 'Idempotency-Key': 'k1' });
    expect(answer.status).toBe(503);
    expect(server.requests.map((request) => request.method)).toEqual(['PUT']);
    expect(server.stats).toMatchObject({ requests: 1, faulted: 1 });
  });

  // A page cannot send a preflight itself (Origin and Access-Control-Request-* are forbidden headers).
  it.skipIf(inBrowser)('a preflight is answered 204 with what it asks for, and not recorded', async () => {
    server.inject({ type: 'status', status: 503 });
    const preflight = await fetch(`${server.url}/items/1`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://page.test', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type,if-match' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe('http://page.test');
    expect(preflight.headers.get('Access-Control-Allow-Methods')).toBe('PUT');
    expect(preflight.headers.get('Access-Control-Allow-Headers')).toBe('content-type,if-match');
    expect(server.requests).toHaveLength(0);
    expect(server.stats.requests).toBe(0);
    const answer = await fetch(`${server.url}/items/1`, { headers: { Origin: 'http://page.test' } });
    expect(answer.status).toBe(503); // the fault was still there
    expect(answer.headers.get('Access-Control-Allow-Origin')).toBe('http://page.test');
    expect(answer.headers.get('Access-Control-Expose-Headers')).toContain('Content-Type');
  });

  it('an OPTIONS request that is not a preflight is an ordinary request', async () => {
    await fetch(`${server.url}/items`, { method: 'OPTIONS' });
    expect(server.requests.map((request) => request.method)).toEqual(['OPTIONS']);
  });
});
