/**
 * What a UI reads of the outbox: `subscribe` and `getSnapshot` are bound (a framework takes them as
 * plain function values, as `useSyncExternalStore(outbox.subscribe, outbox.getSnapshot)` does).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/index.js';
import { attached, closeAll } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [] } });
});

afterEach(async () => {
  await closeAll();
  await server.close();
});

it('subscribe and getSnapshot work as plain function values', async () => {
  const { Item, outbox } = await attached(server);
  const { subscribe, getSnapshot } = outbox;
  const seen: number[] = [];
  const unsubscribe = subscribe(() => seen.push(getSnapshot().pending));
  server.inject({ type: 'reset-before', match: { method: 'POST' }, times: 100 });
  void new Item({ uid: 'b', name: 'bob', rev: 0 }).save().catch(() => undefined);
  expect(getSnapshot().pending).toBe(1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(seen).toContain(1);
  unsubscribe();
});
