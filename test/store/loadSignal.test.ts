/**
 * A store's load aborts through the operation's `signal`, which the store makes only when something
 * reads it (the 304 path makes none): a `beforeload` listener or another proxy reading it gets a
 * real AbortSignal, aborted when a newer load supersedes the load, and the request is cut off.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Model, RestProxy, Store, type Operation } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';

class User extends Model<{ id: number; name: string }> {
  static override fields = [{ name: 'id', type: 'int' }, 'name'];
}

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { users: [{ id: 1, name: 'Ann' }] } });
});

afterEach(async () => {
  await server.close();
});

it('the operation a beforeload listener sees has an AbortSignal, aborted when a newer load supersedes it', async () => {
  const store = new Store<User>({ model: User, proxy: new RestProxy({ url: `${server.url}/users` }) });
  const seen: Operation[] = [];
  store.on('beforeload', ({ operation }) => {
    seen.push(operation);
  });
  server.inject({ type: 'stall', ms: 5_000, match: { method: 'GET' } });
  const first = store.load();
  await new Promise((resolve) => setTimeout(resolve, 0));
  const signal = seen[0]?.signal;
  expect(signal).toBeInstanceOf(AbortSignal);
  expect(signal?.aborted).toBe(false);
  const second = store.load();
  await expect(first).rejects.toMatchObject({ kind: 'abort', superseded: true });
  expect(signal?.aborted).toBe(true);
  expect(await second).toHaveLength(1);
  expect(seen[1]?.signal?.aborted).toBe(false);
});

it('a caller signal aborted before the load: the load rejects with kind abort and sends nothing', async () => {
  const store = new Store<User>({ model: User, proxy: new RestProxy({ url: `${server.url}/users` }) });
  const controller = new AbortController();
  controller.abort();
  await expect(store.load({ signal: controller.signal })).rejects.toMatchObject({ kind: 'abort' });
  expect(server.requests).toHaveLength(0);
});
