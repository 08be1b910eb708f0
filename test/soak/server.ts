/**
 * What the soak files (npm run soak) share: the seed and a fresh test server for each run. The
 * runs are in several files so that the soak's forks run them side by side (vitest.soak.config.ts):
 * they mostly wait (on stalls, timeouts and retries), not compute.
 */
import { afterEach, beforeEach } from 'vitest';
import { startTestServer, type TestServer } from '../server/index.js';

/** `SOAK_SEED=7 npm run soak` replays the runs with another seed. */
export const SEED = Number(process.env['SOAK_SEED'] ?? 42);

/** Starts a server with empty items, users, posts and comments before each test, closes it after; returns the current one. */
export function soakServer(): () => TestServer {
  let server: TestServer | undefined;
  beforeEach(async () => {
    server = await startTestServer({ resources: { items: [], users: [], posts: [], comments: [] } });
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return () => {
    if (server === undefined) throw new Error('no soak server outside a test');
    return server;
  };
}
