/**
 * Browser run only (vitest.browser.config.ts; vitest.config.ts leaves out *.browser.test.ts).
 *
 * Chromium re-sends a request on its own, without telling the page, when a REUSED keep-alive
 * connection is dropped before any answer, or answers 408: it takes it for a connection the server
 * had closed while idle. For a write the server had already applied, that is a second delivery the library
 * never sees: a POST without an Idempotency-Key creates the record twice while `save()` reports
 * one success. `idempotencyKey: true` makes the re-sent POST a replay, so the record is created
 * once. (This is why the hub starts its test servers with `keepAlive: false`: on a connection that
 * carried nothing before, Chromium does not re-send, so injected faults reach the library as in Node.)
 *
 * `retry: 0` everywhere: any second delivery comes from the browser, not from the library.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/index.js';
import { defineItem, itemProxy, proxyErrorOf, requestsOf, rowsOf, type ItemData } from './helpers.js';

const SEED: ItemData[] = [{ id: 1, uid: 'u1', name: 'one', rev: 0 }];

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(keepAlive: boolean): Promise<TestServer> {
  server = await startTestServer({ resources: { items: SEED.map((row) => ({ ...row })) }, keepAlive });
  return server;
}

/**
 * Saves one record so that the connection it used (after its CORS preflight) stays open and idle:
 * the next write goes over it, a reused connection. Then drops that write's connection after
 * applying it, and saves `uid` with `idempotencyKey`.
 */
async function saveOverDroppedConnection(s: TestServer, uid: string, idempotencyKey: boolean) {
  const Item = defineItem(itemProxy(s, { retry: 0, idempotencyKey }));
  await new Item({ uid: 'warm-up', name: 'warm-up', rev: 0 }).save();
  s.inject({ type: 'reset-after', match: { method: 'POST' } });
  const item = new Item({ uid, name: 'new', rev: 0 });
  return { item, saved: item.save() };
}

function rowsWithUid(s: TestServer, uid: string): Record<string, unknown>[] {
  return rowsOf(s).filter((row) => row['uid'] === uid);
}

describe('Chromium re-sends a write whose reused keep-alive connection is dropped', () => {
  it('a POST without idempotencyKey: the browser delivers it twice, two rows, and save() reports success', async () => {
    const s = await start(true);
    const { item, saved } = await saveOverDroppedConnection(s, 'twice', false);

    await saved;

    // The library sent one POST; the server received two: the one it applied before the drop, and the browser's re-send.
    expect(requestsOf(s, 'POST').map((request) => request.fault ?? 'answered')).toEqual(['answered', 'reset-after', 'answered']);
    expect(rowsWithUid(s, 'twice')).toHaveLength(2);
    expect(item.phantom).toBe(false);
    expect(item.getId()).toBe(rowsWithUid(s, 'twice')[1]?.['id']);
  });

  it('with idempotencyKey: true the re-sent POST is a replay: one row, and the record has its id', async () => {
    const s = await start(true);
    const { item, saved } = await saveOverDroppedConnection(s, 'once', true);

    await saved;

    const posts = requestsOf(s, 'POST').slice(1);
    expect(posts.map((request) => request.fault ?? 'answered')).toEqual(['reset-after', 'answered']);
    // The browser re-sent the same request, key included.
    expect(posts[1]?.headers['idempotency-key']).toBe(posts[0]?.headers['idempotency-key']);
    expect(rowsWithUid(s, 'once')).toHaveLength(1);
    expect(item.getId()).toBe(rowsWithUid(s, 'once')[0]?.['id']);
  });

  it('a 408 answer on a reused connection is not shown to the page either: the browser re-sends, the write is applied', async () => {
    const s = await start(true);
    const Item = defineItem(itemProxy(s, { retry: 0 }));
    await new Item({ uid: 'warm-up', name: 'warm-up', rev: 0 }).save();
    s.inject({ type: 'status', status: 408, match: { method: 'POST' } });
    const item = new Item({ uid: 'after-408', name: 'new', rev: 0 });

    await item.save();

    // With retry: 0 the library would have failed with the 408 (as it does in Node and without keep-alive).
    expect(requestsOf(s, 'POST').map((request) => request.fault ?? 'answered')).toEqual(['answered', 'status', 'answered']);
    expect(rowsWithUid(s, 'after-408')).toHaveLength(1);
    expect(item.phantom).toBe(false);
  });

  it('without keep-alive (how the hub starts servers) the browser does not re-send: the drop reaches the library', async () => {
    const s = await start(false);
    const { item, saved } = await saveOverDroppedConnection(s, 'dropped', false);

    const error = await proxyErrorOf(saved);

    expect(error.kind).toBe('network');
    expect(error.mayHaveBeenApplied).toBe(true);
    expect(requestsOf(s, 'POST').map((request) => request.fault ?? 'answered')).toEqual(['answered', 'reset-after']);
    expect(rowsWithUid(s, 'dropped')).toHaveLength(1);
    expect(item.phantom).toBe(true);
  });
});
