/**
 * ReadCache (API.md section 13) on MemoryStorage and FileStorage, against a real server on
 * 127.0.0.1: a reload (a new store on the same storage) shows the last page at once, stale, and
 * revalidates it with the stored ETag; offline the page stays on screen; only confirmed rows are
 * kept; scopes keep users apart; bounds; corrupt data is dropped with an error event.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Model, RestProxy, Store } from '../../src/index.js';
import { FileStorage, MemoryStorage, ReadCache, type OutboxStorage, type ReadCacheErrorEvent } from '../../src/offline.js';
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
let rows: UserData[];
let dir: string;

const reads = (): RecordedRequest[] => server.requests.filter((request) => request.method === 'GET' && request.path === '/users');

function makeStore(cache: ReadCache, key = 'users', autoLoad = true): Store<User> {
  return new Store<User>({ model: User, proxy: new RestProxy({ url: `${server.url}/users`, retry: 0 }), autoLoad, persist: { cache, key } });
}

beforeEach(async () => {
  rows = [{ id: 1, name: 'Ann' }, { id: 2, name: 'Ben' }];
  server = await startTestServer({ resources: { users: [] } });
  server.respond('GET', '/users', (req: RecordedRequest): ScriptedAnswer => {
    const etag = `"v-${rows.map((row) => row.name).join()}"`;
    if (req.headers['if-none-match'] === etag) return { status: 304, headers: { ETag: etag } };
    return { status: 200, headers: { ETag: etag }, body: rows };
  });
  dir = mkdtempSync(join(tmpdir(), 'read-cache-'));
});

afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const kinds: [string, () => OutboxStorage][] = [
  ['MemoryStorage', () => new MemoryStorage()],
  ['FileStorage', () => new FileStorage({ path: join(dir, 'reads.json') })],
];

describe.each(kinds)('ReadCache on %s', (_name, storageOf) => {
  it('a reload shows the last page at once (stale), then revalidates it with the stored ETag; offline it stays on screen', async () => {
    const memory = storageOf();
    const cache = new ReadCache({ storage: memory, scope: 'u1' });
    const first = makeStore(cache);
    await first.restored;
    await new Promise<void>((resolve) => first.on('load', () => resolve()));
    first.getAt(0)?.set('name', 'unsaved edit');
    first.add({ name: 'new' });
    await cache.flush();
    // A FileStorage is reopened as a new object on the same file; a MemoryStorage is the same one.
    const storage = memory instanceof MemoryStorage ? memory : storageOf();
    if (!(memory instanceof MemoryStorage)) await cache.close();
    const again = new ReadCache({ storage, scope: 'u1' });
    server.inject({ type: 'reset-before', match: { path: '/users' } });
    const reloaded = makeStore(again);
    expect(await reloaded.restored).toBe(true);
    expect(reloaded.getRange().map((record) => record.get('name'))).toEqual(['Ann', 'Ben']);
    expect(reloaded.getSnapshot()).toMatchObject({ isStale: true, loading: false });
    // The first load revalidates, fails offline, and leaves the page on screen.
    await expect.poll(() => reloaded.getSnapshot().error?.message ?? '').not.toBe('');
    expect(reloaded.getCount()).toBe(2);
    expect(reads().at(-1)?.headers['if-none-match']).toBe('"v-Ann,Ben"');
    await reloaded.load();
    expect(reloaded.getSnapshot()).toMatchObject({ isStale: true, error: undefined });
    expect(reads().at(-1)?.headers['if-none-match']).toBe('"v-Ann,Ben"');
    await again.close();
  });

  it('scopes keep users apart; clear(scope) forgets one user; an answer sent under another scope is not kept', async () => {
    const storage = storageOf();
    const cache = new ReadCache({ storage, scope: 'u1' });
    const store = makeStore(cache);
    await store.restored;
    await new Promise<void>((resolve) => store.on('load', () => resolve()));
    await cache.flush();
    cache.scope = 'u2';
    const other = makeStore(cache);
    expect(await other.restored).toBe(false);
    const loading = other.load();
    cache.scope = 'u3';
    await loading;
    await cache.flush();
    cache.scope = 'u2';
    expect(await makeStore(cache, 'users', false).restored).toBe(false);
    cache.scope = 'u1';
    expect(await makeStore(cache, 'users', false).restored).toBe(true);
    await cache.clear('u1');
    expect(await makeStore(cache, 'users', false).restored).toBe(false);
    await cache.close();
  });

  it('keeps at most maxEntries pages (least recently used go)', async () => {
    const cache = new ReadCache({ storage: storageOf(), scope: 'u1', maxEntries: 2 });
    for (const key of ['a', 'b', 'c']) {
      const store = makeStore(cache, key);
      await store.restored;
      await new Promise<void>((resolve) => store.on('load', () => resolve()));
    }
    await cache.flush();
    expect(await makeStore(cache, 'a', false).restored).toBe(false);
    expect(await makeStore(cache, 'c', false).restored).toBe(true);
    await cache.close();
  });

  it('refuses bad options with a TypeError naming them', () => {
    const storage = storageOf();
    expect(() => new ReadCache({ storage, scope: '' })).toThrow(/scope/);
    expect(() => new ReadCache({ storage, scope: 'u', maxAge: 0 })).toThrow(/maxAge/);
    expect(() => new ReadCache({ storage, scope: 'u', maxEntries: -1 })).toThrow(/maxEntries/);
    expect(() => new ReadCache({ storage, scope: 'u', maxBytes: Number.NaN })).toThrow(/maxBytes/);
  });
});

describe('corrupt data', () => {
  it('is deleted with an error event of kind corrupt; the store loads from the server', async () => {
    const storage = new MemoryStorage();
    await storage.commit({ put: [{ id: 'u1\u0000users', kind: 'rest-proxy.read', version: 1, scope: 'u1', key: 'users', savedAt: Date.now(), json: '{not json' }, { id: 'junk', what: 1 }] });
    const cache = new ReadCache({ storage, scope: 'u1' });
    const errors: ReadCacheErrorEvent[] = [];
    cache.on('error', (event) => errors.push(event));
    const store = makeStore(cache);
    expect(await store.restored).toBe(false);
    expect(errors.map((event) => event.error.kind)).toEqual(['corrupt', 'corrupt']);
    await new Promise<void>((resolve) => store.on('load', () => resolve()));
    expect(store.getCount()).toBe(2);
    await cache.flush();
    expect((await storage.load()).map((object) => object.id)).toEqual(['u1\u0000users']);
  });

  it('a storage that cannot open gives unavailable, and stores load uncached', async () => {
    const storage = new MemoryStorage();
    await storage.close();
    const cache = new ReadCache({ storage, scope: 'u1' });
    const errors: string[] = [];
    cache.on('error', (event) => errors.push(event.error.kind));
    const store = makeStore(cache);
    expect(await store.restored).toBe(false);
    await new Promise<void>((resolve) => store.on('load', () => resolve()));
    expect(store.getCount()).toBe(2);
    expect(errors).toEqual(['unavailable']);
  });
});
