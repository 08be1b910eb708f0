/**
 * `maxResponseBytes` (API.md section 2): an answer larger than the limit, by its Content-Length
 * or as it is read, fails at once with kind 'parse' naming the limit and the option; the body is
 * cancelled (not buffered to its end), and the request is never retried. Against real servers on
 * 127.0.0.1 that count what they could write before the client let go.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Model, RestProxy, type FetchFunction, type RestProxyConfig } from '../../src/index.js';
import { proxyErrorOf } from './helpers.js';

const MiB = 1024 * 1024;
/** The most an endless answer writes, so that a client that never lets go stays bounded too. */
const ENDLESS_CAP = 64 * MiB;

interface Served {
  requests: string[];
  /** Bytes of the body the server wrote before the client went away (or the answer ended). */
  written: number;
  closedEarly: boolean;
}

let served: Served;
let server: Server;
let base = '';

/** Write `chunk` until the client goes away or `cap` bytes are written, honouring backpressure. */
function stream(res: ServerResponse, chunk: Buffer, cap: number): void {
  const pump = (): void => {
    while (!res.destroyed && served.written < cap) {
      served.written += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end(']');
  };
  res.write('[');
  pump();
}

const EXACT = JSON.stringify({ id: 1, name: 'exactly at the limit' });
const BOMB = gzipSync(Buffer.alloc(16 * MiB, ' '));

beforeAll(async () => {
  server = createServer((req, res) => {
    served.requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
    res.on('close', () => {
      if (!res.writableFinished) served.closedEarly = true;
    });
    const path = (req.url ?? '').split('?')[0];
    if (path === '/endless/1') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      stream(res, Buffer.from('0,'.repeat(32 * 1024)), ENDLESS_CAP);
    } else if (path === '/big/1' || path === '/big') {
      const body = JSON.stringify({ id: 1, name: 'x'.repeat(5 * MiB) });
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
      served.written = Buffer.byteLength(body);
      res.end(body);
    } else if (path === '/bomb/1') {
      // A small Content-Length (the compressed size) for an answer 16 MiB long once decoded.
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': String(BOMB.length) });
      res.end(BOMB);
    } else if (path === '/exact/1') {
      // Streamed without a Content-Length, in two chunks: only the running count can tell.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(EXACT.slice(0, 10));
      setTimeout(() => res.end(EXACT.slice(10)), 10);
    } else if (path === '/unchanged/1') {
      // A 304 may carry the Content-Length a 200 would have had (RFC 9110 8.6); it has no body.
      res.writeHead(304, { 'Content-Length': String(64 * MiB), ETag: '"v1"' });
      res.end();
    } else {
      const body = JSON.stringify({ id: 1, name: 'a'.repeat(1000) });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
      res.end(body);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  served = { requests: [], written: 0, closedEarly: false };
});

function modelOn(path: string, config: RestProxyConfig = {}): typeof Model<{ id: number; name: string }> {
  return class extends Model<{ id: number; name: string }> {
    static override fields = ['id', 'name'];
    static override proxy = new RestProxy({ url: `${base}/${path}`, retry: { limit: 2, delay: 5 }, timeout: 5_000, ...config });
  };
}

describe('maxResponseBytes', () => {
  it('is 128 MiB by default, and must be a positive integer', () => {
    expect(new RestProxy().maxResponseBytes).toBe(128 * MiB);
    for (const bad of [0, -1, 1.5, '1MB', Number.NaN]) {
      expect(() => new RestProxy({ maxResponseBytes: bad as number })).toThrow(/maxResponseBytes must be/);
    }
  });

  it('an endless body: fails at once with kind "parse" naming the limit and the option; the server is cut off early', async () => {
    // No clock: an endless body read to its end never settles; what the server wrote bounds it below.
    const error = await proxyErrorOf(modelOn('endless', { maxResponseBytes: MiB }).load(1));

    expect(error.kind).toBe('parse');
    expect(error.message).toContain('maxResponseBytes');
    expect(error.message).toContain(String(MiB));
    // Never retried, although GETs are.
    expect(served.requests).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Not buffered to its end: what the server wrote is the limit plus the sockets' buffers.
    expect(served.closedEarly).toBe(true);
    expect(served.written).toBeLessThan(24 * MiB);
  });

  it('a Content-Length above the limit fails before the body is read, never retried', async () => {
    const error = await proxyErrorOf(modelOn('big', { maxResponseBytes: MiB }).load(1));
    expect(error.kind).toBe('parse');
    expect(error.status).toBe(200);
    expect(error.message).toMatch(/maxResponseBytes/);
    expect(error.message).toContain('Content-Length');
    expect(served.requests).toHaveLength(1);
  });

  it('a Content-Length that understates the body (gzip: 16 MiB once decoded) is caught as it is read', async () => {
    const error = await proxyErrorOf(modelOn('bomb', { maxResponseBytes: MiB }).load(1));
    expect(error.kind).toBe('parse');
    expect(error.message).toContain('maxResponseBytes');
    expect(served.requests).toHaveLength(1);
  });

  it('a custom fetch whose Content-Length lies: the running count still stops it', async () => {
    const lying: FetchFunction = () => Promise.resolve(new Response(JSON.stringify({ id: 1, name: 'y'.repeat(2 * MiB) }), { headers: { 'Content-Length': '10', 'Content-Type': 'application/json' } }));
    const error = await proxyErrorOf(modelOn('any', { fetch: lying, maxResponseBytes: MiB }).load(1));
    expect(error.kind).toBe('parse');
    expect(error.message).toContain('maxResponseBytes');
  });

  // Their Responses have text() and arrayBuffer(), but no web stream as `body`: none (React
  // Native's fetch, whatwg-fetch: the answer was buffered whole), or a Node stream (node-fetch).
  it.each([
    ['no body stream (React Native, whatwg-fetch)', (): unknown => undefined],
    ['a Node stream as body (node-fetch)', (text: string): unknown => Readable.from([Buffer.from(text)])],
  ])('a fetch with %s: read whole, bounded by Content-Length', async (_, bodyOf) => {
    const answer = (text: string): Response =>
      Object.defineProperty(new Response(text, { headers: { 'Content-Type': 'application/json', 'Content-Length': String(text.length) } }), 'body', { value: bodyOf(text) });
    const small: FetchFunction = () => Promise.resolve(answer(JSON.stringify({ id: 1, name: 'ok' })));
    expect((await modelOn('any', { fetch: small }).load(1)).get('name')).toBe('ok');
    const big: FetchFunction = () => Promise.resolve(answer(JSON.stringify({ id: 1, name: 'z'.repeat(2 * MiB) })));
    const error = await proxyErrorOf(modelOn('any', { fetch: big, maxResponseBytes: MiB }).load(1));
    expect(error.kind).toBe('parse');
    expect(error.message).toContain('maxResponseBytes');
  });

  it('a create answered with too big a body: kind "parse", may have been applied, sent once', async () => {
    const Big = modelOn('big', { maxResponseBytes: MiB, idempotencyKey: true });
    const record = new Big({ name: 'n' });
    const error = await proxyErrorOf(record.save());
    expect(error.kind).toBe('parse');
    expect(error.mayHaveBeenApplied).toBe(true);
    expect(served.requests).toEqual(['POST /big']);
    expect(record.phantom).toBe(true);
  });

  it('a body that ends exactly at the limit is read; one byte less fails', async () => {
    const size = Buffer.byteLength(EXACT);
    expect((await modelOn('exact', { maxResponseBytes: size }).load(1)).get('name')).toBe('exactly at the limit');
    const error = await proxyErrorOf(modelOn('exact', { maxResponseBytes: size - 1 }).load(1));
    expect(error.kind).toBe('parse');
    expect(error.message).toContain(`${size} bytes were read`);
  });

  it('a 304 whose Content-Length is above the limit fails as the 304 it is, not as too large', async () => {
    const error = await proxyErrorOf(modelOn('unchanged', { maxResponseBytes: MiB }).load(1));
    expect(error.status).toBe(304);
    expect(error.message).not.toContain('maxResponseBytes');
  });

  it('an answer within the limit is read as usual, and the default limit reads a 5 MiB answer', async () => {
    expect((await modelOn('small', { maxResponseBytes: 2_000 }).load(1)).get('name')).toHaveLength(1000);
    expect((await modelOn('big').load(1)).get('name')).toHaveLength(5 * MiB);
  });
});
