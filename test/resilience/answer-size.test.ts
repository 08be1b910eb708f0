/**
 * `maxResponseBytes` through the test server (also run in Chromium, whose fetch streams the body
 * its own way): a larger answer fails at once with kind 'parse' and is not retried; a smaller
 * one is read as usual. test/resilience/max-response-bytes.test.ts has the endless and lying
 * bodies (Node only).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/index.js';
import { defineItem, itemProxy, proxyErrorOf, requestsOf } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [{ id: 1, uid: 'u1', name: 'x'.repeat(50_000), rev: 0 }] } });
});

afterEach(async () => {
  await server.close();
});

it('an answer above the limit: kind "parse" naming the option, one GET', async () => {
  const error = await proxyErrorOf(defineItem(itemProxy(server, { maxResponseBytes: 10_000 })).load(1));
  expect(error.kind).toBe('parse');
  expect(error.message).toContain('maxResponseBytes (10000 bytes)');
  expect(requestsOf(server, 'GET')).toHaveLength(1);
});

it('an answer within the limit is read whole', async () => {
  const item = await defineItem(itemProxy(server, { maxResponseBytes: 60_000 })).load(1);
  expect(item.get('name')).toHaveLength(50_000);
});
