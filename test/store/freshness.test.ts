/**
 * Reads that stay fresh (API.md section 13) against a real server on 127.0.0.1: revalidation by
 * ETag (If-None-Match, no cache buster, a 304 that changes nothing), the policy (staleTime, the
 * triggers through focusManager and onlineManager, refetchInterval on fake timers), refetch()
 * joining a read in flight and keeping edits, the precise snapshot, dehydrate / hydrate.
 * Counts of requests, never timings.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { focusManager, Model, onlineManager, RestProxy, Store, type StoreSnapshot } from '../../src/index.js';
import { inBrowser } from '../helpers/inBrowser.js';
import { startTestServer, type RecordedRequest, type ScriptedAnswer, type TestServer } from '../server/index.js';

interface UserData {
  id: number;
  name: string;
}

class User extends Model<UserData> {
  static override fields = [{ name: 'id', type: 'int' }, 'name'];
}

let server: TestServer;
let rows: UserData[];
let version: number;

/** GET /users answers with an ETag per version and page, and 304 to a matching If-None-Match. */
function etagRoute(): void {
  server.respond('GET', '/users', (req: RecordedRequest): ScriptedAnswer => {
    const etag = `"users-${version}-${req.query.get('page') ?? ''}"`;
    if (req.headers['if-none-match'] === etag) return { status: 304, headers: { ETag: etag } };
    return { status: 200, headers: { ETag: etag, 'X-Total-Count': String(rows.length) }, body: rows.map((row) => ({ ...row })) };
  });
}

const reads = (): RecordedRequest[] => server.requests.filter((request) => request.method === 'GET' && request.path === '/users');
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

function makeStore(options: Partial<ConstructorParameters<typeof Store<User>>[0]> = {}): Store<User> {
  return new Store<User>({ model: User, proxy: new RestProxy({ url: `${server.url}/users` }), ...options });
}

beforeEach(async () => {
  rows = [{ id: 1, name: 'Ann' }, { id: 2, name: 'Ben' }];
  version = 1;
  server = await startTestServer({ resources: { users: rows.map((row) => ({ ...row })) } });
  etagRoute();
});

afterEach(async () => {
  onlineManager.setOnline(true);
  focusManager.setFocused(undefined);
  vi.useRealTimers();
  await server.close();
});

// Node only: the scripted route reads this file's variables (in the browser run it would run in the hub);
// test/offline/readCache.browser.test.ts covers Chromium.
describe.skipIf(inBrowser)('revalidation by ETag', () => {
  it('a reload of the same url sends If-None-Match without the cache buster; a 304 changes no record, snapshot or event', async () => {
    const store = makeStore();
    await store.load();
    expect(reads()[0]?.query.has('_dc')).toBe(true);
    expect(reads()[0]?.headers['if-none-match']).toBeUndefined();
    const before = store.getSnapshot();
    const first = store.getAt(0);
    const recordSnapshot = first?.getSnapshot();
    const events: string[] = [];
    for (const name of ['load', 'datachanged', 'update', 'add', 'remove'] as const) store.on(name, () => events.push(name));
    const told: StoreSnapshot<User>[] = [];
    const stop = store.subscribe((snapshot) => told.push(snapshot));
    const result = await store.load();
    await settle();
    const second = reads()[1];
    expect(second?.headers['if-none-match']).toBe('"users-1-1"');
    expect(second?.query.has('_dc')).toBe(false);
    expect(events).toEqual([]);
    expect(result).toEqual([first, store.getAt(1)]);
    expect(store.getSnapshot().records).toBe(before.records);
    expect(store.getAt(0)).toBe(first);
    expect(first?.getSnapshot()).toBe(recordSnapshot);
    expect(store.getSnapshot().fetchedAt).not.toBeNull();
    stop();
  });

  it('a changed page is a 200 again; another page sends no If-None-Match; conditionalReads: false never sends it', async () => {
    const store = makeStore();
    await store.load();
    version = 2;
    rows[0] = { id: 1, name: 'Ann 2' };
    await store.load();
    expect(store.getAt(0)?.get('name')).toBe('Ann 2');
    await store.loadPage(2);
    expect(reads()[2]?.headers['if-none-match']).toBeUndefined();
    const off = new Store<User>({ model: User, proxy: new RestProxy({ url: `${server.url}/users`, conditionalReads: false }) });
    await off.load();
    await off.load();
    expect(reads()[4]?.headers['if-none-match']).toBeUndefined();
    expect(reads()[4]?.query.has('_dc')).toBe(true);
  });

  it('a 304 to a read sent without If-None-Match is an error of kind http', async () => {
    server.reset();
    server.respond('GET', '/users', { status: 304 });
    await expect(makeStore().load()).rejects.toMatchObject({ kind: 'http', status: 304 });
  });

  it('record.reload() sends the record ETag; a 304 leaves the record as it is and tells no one', async () => {
    server.reset();
    class Remote extends User {}
    Remote.setProxy(new RestProxy({ url: `${server.url}/users` }));
    const record = await Remote.load(1);
    expect(record.etag).toBe('"1-1"');
    const snapshot = record.getSnapshot();
    const told = vi.fn();
    const stop = record.subscribe(told);
    await record.reload();
    await settle();
    const last = server.requests.at(-1);
    expect(last?.headers['if-none-match']).toBe('"1-1"');
    expect(record.getSnapshot()).toBe(snapshot);
    expect(told).toHaveBeenCalledTimes(1); // the call at subscribe only
    stop();
  });
});

describe.skipIf(inBrowser)('the policy', () => {
  it('refetchOnReconnect (on by default) refetches a stale store someone shows, once per return', async () => {
    const store = makeStore();
    await store.load();
    onlineManager.setOnline(false);
    onlineManager.setOnline(true);
    await settle();
    expect(reads()).toHaveLength(1); // nobody shows it
    const stop = store.subscribe(() => undefined);
    onlineManager.setOnline(false);
    onlineManager.setOnline(true);
    onlineManager.setOnline(true);
    await vi.waitFor(() => expect(reads()).toHaveLength(2));
    await settle();
    expect(reads()[1]?.headers['if-none-match']).toBe('"users-1-1"');
    stop();
    const off = makeStore({ refetchOnReconnect: false });
    await off.load();
    const stopOff = off.subscribe(() => undefined);
    onlineManager.setOnline(false);
    onlineManager.setOnline(true);
    await settle();
    expect(reads()).toHaveLength(3);
    stopOff();
  });

  it('refetchOnFocus is off by default; on, a stale store refetches when shown again, a fresh one does not', async () => {
    const store = makeStore();
    await store.load();
    const stop = store.subscribe(() => undefined);
    focusManager.setFocused(false);
    focusManager.setFocused(true);
    await settle();
    expect(reads()).toHaveLength(1);
    stop();
    const focused = makeStore({ refetchOnFocus: true });
    await focused.load();
    const stopFocused = focused.subscribe(() => undefined);
    focusManager.setFocused(false);
    focusManager.setFocused(true);
    await vi.waitFor(() => expect(reads()).toHaveLength(3));
    stopFocused();
    const fresh = makeStore({ refetchOnFocus: true, staleTime: Infinity });
    await fresh.load();
    const stopFresh = fresh.subscribe(() => undefined);
    focusManager.setFocused(false);
    focusManager.setFocused(true);
    await settle();
    expect(reads()).toHaveLength(4);
    expect(fresh.getSnapshot().isStale).toBe(false);
    stopFresh();
  });

  it('refetchInterval runs on its clock while shown, pauses while hidden or offline, and stops with the last subscriber', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const store = makeStore({ refetchInterval: 1000, staleTime: Infinity });
    await store.load();
    const stop = store.subscribe(() => undefined);
    vi.advanceTimersByTime(1000);
    await vi.waitFor(() => expect(reads()).toHaveLength(2));
    focusManager.setFocused(false);
    vi.advanceTimersByTime(3000);
    onlineManager.setOnline(false);
    focusManager.setFocused(true);
    vi.advanceTimersByTime(3000);
    await settle();
    expect(reads()).toHaveLength(2);
    onlineManager.setOnline(true);
    stop();
    vi.advanceTimersByTime(3000);
    await settle();
    expect(reads()).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
    const background = makeStore({ refetchInterval: 1000, refetchIntervalInBackground: true });
    await background.load();
    const stopBackground = background.subscribe(() => undefined);
    focusManager.setFocused(false);
    vi.advanceTimersByTime(1000);
    await vi.waitFor(() => expect(reads()).toHaveLength(4));
    stopBackground();
  });

  it('staleTime: fresh after a load, stale once past it (subscribers told once)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const store = makeStore({ staleTime: 30_000 });
    const told: StoreSnapshot<User>[] = [];
    const stop = store.subscribe((snapshot) => told.push(snapshot));
    expect(store.getSnapshot().isStale).toBe(true);
    const loading = store.load();
    await vi.waitFor(async () => {
      await vi.advanceTimersByTimeAsync(0);
      expect(store.getSnapshot().records).toHaveLength(2);
    });
    await loading;
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getSnapshot().isStale).toBe(false);
    const count = told.length;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(store.getSnapshot().isStale).toBe(true);
    expect(told).toHaveLength(count + 1);
    stop();
  });

  it('refetch() joins a read in flight, a load of what a refetch asks for joins it, and a refetch keeps edits', async () => {
    const store = makeStore();
    await store.load();
    const load = store.load();
    const refetch = store.refetch();
    expect(await refetch).toEqual(await load);
    expect(reads()).toHaveLength(2);
    const again = store.refetch();
    const joined = store.load();
    await Promise.all([again, joined]);
    expect(reads()).toHaveLength(3);
    version = 2;
    rows[1] = { id: 2, name: 'Ben 2' };
    store.getAt(0)?.set('name', 'mine');
    const added = store.add({ name: 'New' });
    await store.refetch();
    expect(store.getById(1)?.get('name')).toBe('mine');
    expect(store.getById(2)?.get('name')).toBe('Ben 2');
    expect(store.getNewRecords()).toEqual(added);
  });

  it('a trigger failure rejects nowhere: it goes to snapshot.error', async () => {
    const store = makeStore();
    await store.load();
    const stop = store.subscribe(() => undefined);
    server.inject({ type: 'status', status: 400, match: { path: '/users' } });
    onlineManager.setOnline(false);
    onlineManager.setOnline(true);
    await vi.waitFor(() => expect(store.getSnapshot().error).toMatchObject({ kind: 'http', status: 400 }));
    expect(store.getCount()).toBe(2);
    stop();
  });

  it('loading means nothing to show; isFetching any read in flight', async () => {
    const store = makeStore();
    const first = store.load();
    expect(store.getSnapshot()).toMatchObject({ loading: true, isFetching: true, fetchedAt: null, isStale: true });
    await first;
    const second = store.load();
    expect(store.getSnapshot()).toMatchObject({ loading: false, isFetching: true });
    await second;
    expect(store.getSnapshot()).toMatchObject({ loading: false, isFetching: false });
  });

  it('refuses bad options with a TypeError naming them', () => {
    expect(() => makeStore({ staleTime: -1 })).toThrow(/staleTime/);
    expect(() => makeStore({ staleTime: Number.NaN })).toThrow(/staleTime/);
    expect(() => makeStore({ refetchInterval: 5 })).toThrow(/refetchInterval/);
    expect(() => makeStore({ refetchInterval: -1000 })).toThrow(/refetchInterval/);
    // @ts-expect-error not a boolean
    expect(() => makeStore({ refetchOnFocus: 'yes' })).toThrow(/refetchOnFocus/);
    expect(() => makeStore({ persist: { cache: {}, key: 'users' } })).toThrow(/persist/);
    // @ts-expect-error not a boolean
    expect(() => onlineManager.setOnline('yes')).toThrow(TypeError);
    // @ts-expect-error not a boolean
    expect(() => focusManager.setFocused(1)).toThrow(TypeError);
  });
});

describe.skipIf(inBrowser)('server rendering', () => {
  it('dehydrate() then initialState shows the page at once, nothing fetches within staleTime (autoLoad included)', async () => {
    const onServer = makeStore();
    await onServer.load();
    onServer.getAt(0)?.set('name', 'unsaved');
    onServer.add({ name: 'new' });
    const state = JSON.parse(JSON.stringify(onServer.dehydrate())) as ReturnType<Store<User>['dehydrate']>;
    expect(state.rows).toEqual([{ id: 1, name: 'Ann' }, { id: 2, name: 'Ben' }]);
    const inBrowser = makeStore({ initialState: state, autoLoad: true, staleTime: 60_000 });
    const stop = inBrowser.subscribe(() => undefined);
    await settle();
    expect(reads()).toHaveLength(1);
    expect(inBrowser.getSnapshot()).toMatchObject({ loading: false, isStale: false, total: 2 });
    expect(inBrowser.getRange().map((record) => record.get('name'))).toEqual(['Ann', 'Ben']);
    // Stale: the first load revalidates with the ETag the server's page came with.
    const stale = makeStore({ initialState: state, autoLoad: true });
    await vi.waitFor(() => expect(reads()).toHaveLength(2));
    expect(reads()[1]?.headers['if-none-match']).toBe('"users-1-1"');
    expect(stale.getCount()).toBe(2);
    stop();
  });

  it('another model state is a TypeError; an older state than shown is ignored', async () => {
    class Other extends Model<UserData> {
      static override entityName = 'Other';
    }
    const store = makeStore();
    await store.load();
    const state = store.dehydrate();
    const other = new Store<Other>({ model: Other });
    expect(() => other.hydrate({ ...state })).toThrow(TypeError);
    store.hydrate({ ...state, rows: [], fetchedAt: 1 });
    expect(store.getCount()).toBe(2);
  });
});
