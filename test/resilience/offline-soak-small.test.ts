/**
 * A small copy of the outbox's soak (test/soak/soak.test.ts has the long one) for the normal
 * suite: a few sessions of creates, edits and destroys through an Outbox in seeded chaos, with
 * offline flips, reloads and kills; once quiet, the server holds what the user did and a store
 * loaded from it equals it. See offlineSoakRun.ts.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/index.js';
import { offlineSoakProblems, runOfflineSoak } from './offlineSoakRun.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [] } });
});

afterEach(async () => {
  await server.close();
});

it.each([{ seed: 23 }])('the outbox in chaos, offline flips, reloads and kills (seed $seed): once quiet, the server equals the client', async ({ seed }) => {
  const report = await runOfflineSoak(server, { sessions: 6, actions: 25, seed, rate: 0.2, maxMs: 25_000 });
  expect(offlineSoakProblems(report)).toEqual([]);
  expect(report.kills + report.reloads).toBe(6);
  expect(report.writes).toBeGreaterThan(100);
  expect(report.server.size).toBeGreaterThan(10);
}, 40_000);
