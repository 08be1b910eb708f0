/**
 * Hostile review (s5-review) of section 13 where it meets section 6 and the read cache: failing
 * tests of confirmed bugs, marked `it.fails` so the branch stays green. Each says what a user
 * sees and what API.md says instead. A real server on 127.0.0.1 answering 304 to a matching
 * If-None-Match, as any ETag-aware server does.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Model, RestProxy, Store } from '../../src/index.js';
import { MemoryStorage, Outbox, ReadCache } from '../../src/offline.js';
import type { StoredObject } from '../../src/offline/storage.js';
import { startTestServer, type RecordedRequest, type ScriptedAnswer, type TestServer } from '../server/index.js';

interface UserData {
  id: number;
  name: string;
  age: number;
}

class User extends Model<UserData> {
  static override entityName = 'User';
  static override fields = [{ name: 'id', type: 'int' }, 'name', { name: 'age', type: 'int' }];
}

let server: TestServer;
let rows: UserData[];
const reads = (): RecordedRequest[] => server.requests.filter((request) => request.method === 'GET' && request.path === '/users');

beforeEach(async () => {
  rows = [{ id: 1, name: 'Ann', age: 30 }, { id: 2, name: 'Ben', age: 40 }, { id: 3, name: 'Cy', age: 50 }];
  server = await startTestServer({ resources: { users: [] } });
  // An ETag per content; a 304 to a matching If-None-Match.
  server.respond('GET', '/users', (req: RecordedRequest): ScriptedAnswer => {
    const etag = `"v-${rows.map((row) => `${row.name}${row.age}`).join()}"`;
    if (req.headers['if-none-match'] === etag) return { status: 304, headers: { ETag: etag } };
    return { status: 200, headers: { ETag: etag, 'X-Total-Count': String(rows.length) }, body: rows };
  });
});

afterEach(async () => {
  await server.close();
});

function makeStore(extra: Partial<ConstructorParameters<typeof Store<User>>[0]> = {}): Store<User> {
  return new Store<User>({ model: User, proxy: new RestProxy({ url: `${server.url}/users`, retry: 0 }), ...extra });
}

// User sees: "Discard my changes" (load({ discardChanges: true })) does nothing whenever the
// server's page did not change: the revalidation answers 304 and the store returns early, so the
// edited name and the new row stay, still pending, and the next sync() sends them.
// API.md section 6: "load({ discardChanges: true }) and rejectChanges() drop them"; section 13's
// "a 304 changes nothing" is about the server's data, which a discarding load must fall back to.
it('load({ discardChanges: true }) answered 304 still drops the local edits and new records', async () => {
  const store = makeStore();
  await store.load();
  store.getById(1)?.set('name', 'Edited');
  store.add({ name: 'New', age: 1 });
  await store.load({ discardChanges: true });
  expect(reads()[1]?.headers['if-none-match']).toBeDefined(); // the 304 path was taken
  expect(store.getById(1)?.get('name')).toBe('Ann');
  expect(store.getNewRecords()).toEqual([]);
  expect(store.getCount()).toBe(3);
});

// User sees: rows vanish for good after a reload. A store filtered locally (remoteFilter false,
// the default) persists only the rows its filter shows, but with the ETag of the whole page. The
// next session restores that partial page and revalidates it: the server answers 304 and the
// hidden rows never come back, even after clearFilter(); the page says 1 row of a total of 3.
// API.md section 13: the cache keeps "the last page a load brought (...) each row as the server
// last confirmed it"; a 304 then means "what you hold is the server's page".
it('a locally filtered store persists the whole page it loaded: after a reload and a 304, clearFilter() shows every row', async () => {
  const cache = new ReadCache({ storage: new MemoryStorage(), scope: 'u1' });
  const first = makeStore({ persist: { cache, key: 'users' } });
  await first.load();
  await first.filter('name', 'Ann');
  rows = rows.map((row) => ({ ...row, age: row.age + 1 })); // the page changed: the next load is a 200, kept by the cache
  await first.load();
  await cache.flush();

  const next = makeStore({ persist: { cache, key: 'users' } }); // the app reloaded
  await next.restored;
  await next.load();
  expect(reads().at(-1)?.headers['if-none-match']).toBeDefined(); // revalidated: 304
  await next.clearFilter();
  expect(next.getRange().map((record) => record.get('name'))).toEqual(['Ann', 'Ben', 'Cy']);
});

// User sees: a row they removed but never synced (the tab closed before sync) is gone after the
// reload although the server still has it, and stays gone: the cache kept the page without it
// and with the page's ETag, so every revalidation is a 304.
// API.md section 13: kept is each row "as the server last confirmed it, never unsaved edits, new
// records or unsynced removals".
it('an unsynced removal is not persisted: after a reload and a 304 the row the server still has is shown', async () => {
  const cache = new ReadCache({ storage: new MemoryStorage(), scope: 'u1' });
  const first = makeStore({ persist: { cache, key: 'users' } });
  await first.load();
  first.remove(first.getById(2)!);
  rows = rows.map((row) => ({ ...row, age: row.age + 1 }));
  await first.load(); // a 200: kept
  await cache.flush();

  const next = makeStore({ persist: { cache, key: 'users' } });
  await next.restored;
  await next.load();
  expect(reads().at(-1)?.headers['if-none-match']).toBeDefined();
  expect(next.getRange().map((record) => record.getId())).toEqual([1, 2, 3]);
});

// User sees: a store destroyed at once (React StrictMode's mount, unmount, mount) still fills
// with the persisted rows a moment later, and `restored` says true: the read cache hydrates a
// destroyed store, its records join it.
// API.md section 6: "destroy() releases a store: its records stop referring to it (...) it
// refuses loads"; section 13: restore is a load of the stored page.
it('a store destroyed before its persisted page was read is not filled by it', async () => {
  const seed = new ReadCache({ storage: new MemoryStorage(), scope: 'u1' });
  const first = makeStore({ persist: { cache: seed, key: 'users' } });
  await first.load();
  await seed.flush();
  const cache = new ReadCache({ storage: seed.storage, scope: 'u1' });
  const store = makeStore({ persist: { cache, key: 'users' } });
  store.destroy();
  expect(await store.restored).toBe(false);
  expect(store.getCount()).toBe(0);
});

// User sees: a corrupt cache entry (here `filters` is not an array) is neither deleted nor
// reported, and the store keeps the sorters the corrupt entry carried (half applied), which it
// then persists again with its next load.
// API.md section 13: "Stored data that is corrupt (...) is deleted, with an error event (...)
// kind 'corrupt'".
it('a corrupt entry whose hydrate fails is deleted with a corrupt error, and applies nothing', async () => {
  const storage = new MemoryStorage();
  const state = { entity: 'User', version: 1, rows: [{ id: 5, name: 'Zed', age: 1 }], total: 1, page: 1, sorters: [{ property: 'age', direction: 'DESC' }], filters: 'x', params: {}, fetchedAt: Date.now() };
  await storage.commit({ put: [{ id: 'u1\u0000users', kind: 'rest-proxy.read', version: 1, scope: 'u1', key: 'users', savedAt: Date.now(), json: JSON.stringify(state) }] });
  const cache = new ReadCache({ storage, scope: 'u1' });
  const errors: string[] = [];
  cache.on('error', ({ error }) => errors.push(error.kind));
  const store = makeStore({ persist: { cache, key: 'users' } });
  expect(await store.restored).toBe(false);
  expect(store.sorters).toEqual([]);
  expect(errors).toEqual(['corrupt']);
  expect((await storage.load()).filter((object) => object['kind'] === 'rest-proxy.read')).toEqual([]);
});

// User sees: an infinite list (nextPage({ addRecords: true })) then reload() or a refetch gives a
// different list depending on whether the server changed anything: unchanged, the 304 keeps all
// six rows; changed, the 200 shows the last page's two. The store kept the ETag of the last
// appended page as if it were the page shown, so a non-adding load of that url is "not modified".
// API.md section 13: the store keeps "the ETag of the answer its page came from" (after appends,
// the page shown came from several answers); section 12: reload() is load() "with the last load's
// page, start, limit, params": page 3 alone, as a server without ETags gives.
it('after appending loads, reload() of the last page shows that page whether the answer is 200 or 304', async () => {
  const all = Array.from({ length: 6 }, (_, i) => ({ id: i + 1, name: `R${i + 1}`, age: i }));
  server.respond('GET', '/pages', (req: RecordedRequest): ScriptedAnswer => {
    const page = Number(req.query.get('page') ?? 1);
    const etag = `"page-${page}"`; // nothing changes on the server
    if (req.headers['if-none-match'] === etag) return { status: 304, headers: { ETag: etag } };
    return { status: 200, headers: { ETag: etag }, body: all.slice((page - 1) * 2, page * 2) };
  });
  const store = new Store<User>({ model: User, pageSize: 2, proxy: new RestProxy({ url: `${server.url}/pages`, retry: 0 }) });
  await store.load();
  await store.nextPage({ addRecords: true });
  await store.nextPage({ addRecords: true });
  expect(store.getCount()).toBe(6);
  await store.reload();
  expect(store.getRange().map((record) => record.getId())).toEqual([5, 6]);
});

// User sees: the orders page opened on "closed" orders (filters from the route) shows the open
// orders of the last visit, and keeps fetching them: the persisted page's filters replace the
// filters the store was constructed with, and its loads then send them
// (`filter=[{"property":"age","value":30}]` here instead of 40).
// API.md section 6: `filters` (an option) is what the store loads; section 13: a restored page
// is shown at once and "the first load revalidates it": a page kept for another query is not
// that store's page, and must never change what the store asks for.
it("a restored page never replaces the filters the store was constructed with", async () => {
  await server.close();
  server = await startTestServer({ resources: { users: rows.map((row) => ({ ...row })) } }); // the plain server: filters applied
  const cache = new ReadCache({ storage: new MemoryStorage(), scope: 'u1' });
  const make = (age: number): Store<User> => makeStore({ remoteFilter: true, filters: [{ property: 'age', value: age }], persist: { cache, key: 'users' } });
  const before = make(30);
  await before.load();
  await cache.flush();
  const store = make(40); // the next visit asks for age 40
  await store.restored;
  await store.load();
  expect(store.filters).toEqual([{ property: 'age', value: 40 }]);
  expect(reads().at(-1)?.query.get('filter')).toBe('[{"property":"age","value":40}]');
  expect(store.getRange().map((record) => record.get('name'))).toEqual(['Ben']);
});

// Regression tests of the fixes above (s5-cache), on the same real server.

// API.md section 6: "a discarding load drops what was pending when it was called, never a change
// made after that"; a 304 answer must not change that.
it('load({ discardChanges: true }) answered 304 keeps the changes made after it was called, and brings removed rows back where they stood', async () => {
  const store = makeStore();
  await store.load();
  store.getById(1)?.set('name', 'Before');
  store.remove(store.getById(2)!);
  const loading = store.load({ discardChanges: true });
  store.getById(3)?.set('name', 'After');
  const [added] = store.add({ name: 'Later', age: 2 });
  await loading;
  expect(reads()[1]?.headers['if-none-match']).toBeDefined();
  expect(store.getRange().map((record) => record.get('name'))).toEqual(['Later', 'Ann', 'Ben', 'After']);
  expect(store.getNewRecords()).toEqual([added]);
  expect(store.getUpdatedRecords().map((record) => record.getId())).toEqual([3]);
  expect(store.getRemovedRecords()).toEqual([]);
});

// API.md section 13: the page kept is the server's, each row where the server listed it.
it('rows removed one after the other without a sync are persisted where the server listed them', async () => {
  const cache = new ReadCache({ storage: new MemoryStorage(), scope: 'u1' });
  const first = makeStore({ persist: { cache, key: 'users' } });
  await first.load();
  first.remove(first.getById(1)!);
  first.remove(first.getById(2)!);
  expect(first.dehydrate().rows.map((row) => row['id'])).toEqual([1, 2, 3]);
  rows = rows.map((row) => ({ ...row, age: row.age + 1 }));
  await first.load();
  await cache.flush();

  const next = makeStore({ persist: { cache, key: 'users' } });
  expect(await next.restored).toBe(true);
  expect(next.getRange().map((record) => record.getId())).toEqual([1, 2, 3]);
});

// API.md section 13: "an answer whose load was sent under another scope is not written" and one
// user's rows are never shown to another: a restore waiting for the outbox's open() included.
it('a restore waiting for the outbox to open shows nothing once the cache moved to another scope meanwhile', async () => {
  const proxy = new RestProxy({ url: `${server.url}/users`, retry: 0 });
  class Member extends Model<UserData> {
    static override entityName = 'Member';
    static override fields = [{ name: 'id', type: 'int' }, 'name', { name: 'age', type: 'int' }];
    static override proxy = proxy;
  }
  const cache = new ReadCache({ storage: new MemoryStorage(), scope: 'u1' });
  const first = new Store<Member>({ model: Member, persist: { cache, key: 'members' } });
  await first.load();
  await cache.flush();

  let release = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    release = resolve;
  });
  /** An outbox storage that opens only when the test says. */
  class Slow extends MemoryStorage {
    override async load(): Promise<StoredObject[]> {
      await opened;
      return super.load();
    }
  }
  const outbox = new Outbox({ name: 'fresh-review-scope', storage: new Slow(), models: [Member] });
  try {
    const opening = outbox.open();
    const store = new Store<Member>({ model: Member, persist: { cache, key: 'members' } });
    await cache.flush(); // the stored page was read (under u1); the restore waits for the outbox
    cache.scope = 'u2'; // log out, log in
    release();
    await opening;
    expect(await store.restored).toBe(false);
    expect(store.getCount()).toBe(0);
  } finally {
    await outbox.close();
  }
});
