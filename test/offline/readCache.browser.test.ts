/**
 * In Chromium (API.md section 13): a ReadCache on IndexedDB shows the last page after a reload
 * (a new cache and store over the same database) while the server cannot be reached, and a store
 * hydrated from a server's dehydrate() shows its rows without a fetch within staleTime.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Model, RestProxy, Store } from '../../src/index.js';
import { IndexedDBStorage, ReadCache } from '../../src/offline.js';
import { startTestServer, type RecordedRequest, type ScriptedAnswer, type TestServer } from '../server/index.js';

interface UserData {
  id: number;
  name: string;
}

class User extends Model<UserData> {
  static override entityName = 'User';
  static override fields = [{ name: 'id', type: 'int' }, 'name'];
}

let server: TestServer;
const reads = (): RecordedRequest[] => server.requests.filter((request) => request.method === 'GET' && request.path === '/users');

beforeEach(async () => {
  server = await startTestServer({ resources: { users: [] } });
  // Self-contained (in the browser run it runs in the hub): one page with an ETag, 304 to it.
  server.respond('GET', '/users', (req: RecordedRequest): ScriptedAnswer =>
    req.headers['if-none-match'] === '"v1"' ? { status: 304, headers: { ETag: '"v1"' } } : { status: 200, headers: { ETag: '"v1"' }, body: [{ id: 1, name: 'Ann' }, { id: 2, name: 'Ben' }] },
  );
});

afterEach(async () => {
  await server.close();
});

it('a page kept in IndexedDB shows after a reload while the server cannot be reached', async () => {
  const name = `reads-${Math.random().toString(36).slice(2)}`;
  const cache = new ReadCache({ storage: new IndexedDBStorage({ name }), scope: 'u1' });
  const first = new Store<User>({ model: User, proxy: new RestProxy({ url: `${server.url}/users`, retry: 0 }), persist: { cache, key: 'users' } });
  await first.load();
  await cache.close();
  server.inject({ type: 'status', status: 503, match: { path: '/users' } });
  const again = new ReadCache({ storage: new IndexedDBStorage({ name }), scope: 'u1' });
  const reloaded = new Store<User>({ model: User, proxy: new RestProxy({ url: `${server.url}/users`, retry: 0 }), persist: { cache: again, key: 'users' } });
  expect(await reloaded.restored).toBe(true);
  expect(reloaded.getRange().map((record) => record.get('name'))).toEqual(['Ann', 'Ben']);
  expect(reloaded.getSnapshot()).toMatchObject({ isStale: true, loading: false });
  await expect(reloaded.load()).rejects.toMatchObject({ status: 503 });
  expect(reloaded.getCount()).toBe(2);
  await reloaded.load();
  expect(reads().at(-1)?.headers['if-none-match']).toBe('"v1"');
  await again.close();
});

it('a store hydrated from a dehydrated page shows it without a fetch within staleTime', async () => {
  const onServer = new Store<User>({ model: User, proxy: new RestProxy({ url: `${server.url}/users` }) });
  await onServer.load();
  const state = JSON.parse(JSON.stringify(onServer.dehydrate())) as ReturnType<Store<User>['dehydrate']>;
  const browser = new Store<User>({ model: User, proxy: new RestProxy({ url: `${server.url}/users` }), initialState: state, staleTime: 60_000, autoLoad: true });
  const stop = browser.subscribe(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(browser.getCount()).toBe(2);
  expect(reads()).toHaveLength(1);
  stop();
});
