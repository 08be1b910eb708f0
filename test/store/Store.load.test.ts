/**
 * Store loading through a Rest proxy (API.md section 6): paging params, remote sort, filter and
 * group, params, addRecords, signal, superseded loads (pitfall 34), beforeload/load/exception,
 * autoLoad. What a load does to unsynced changes is in Store.sync.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { Model, RestProxy, Store } from '../../src/index.js';
import { recordingFetch, type RecordingFetch, type Responder } from '../helpers/recordingFetch.js';
import { parkingResponder, pathOf, queryOf } from '../helpers/deferred.js';
import { proxyErrorOf as rejection } from '../helpers/proxyTestKit.js';

interface UserData {
  id: number;
  name: string;
  dept: string;
}

class User extends Model<UserData> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', 'dept'];
}

const URL_BASE = 'http://api.test/users';

function rows(...ids: number[]): UserData[] {
  return ids.map((id) => ({ id, name: `user${id}`, dept: id % 2 ? 'odd' : 'even' }));
}

type StoreOptions = Omit<NonNullable<ConstructorParameters<typeof Store<User>>[0]>, 'model' | 'proxy'>;

function makeStore(respond: Responder | undefined, options: StoreOptions = {}): { store: Store<User>; rec: RecordingFetch } {
  const rec = recordingFetch(respond);
  const store = new Store({ model: User, proxy: new RestProxy({ url: URL_BASE, fetch: rec, retry: 0 }), ...options });
  return { store, rec };
}

function ids(store: Store<User>): unknown[] {
  return store.getRange().map((record) => record.getId());
}

describe('Store.load: request and result', () => {
  it('GETs the collection with page 1 of 25 and resolves with the loaded records', async () => {
    const { store, rec } = makeStore(() => ({ body: rows(1, 2, 3) }));
    const records = await store.load();
    expect(rec.calls).toHaveLength(1);
    expect(rec.last().method).toBe('GET');
    expect(pathOf(rec.last())).toBe('/users');
    const query = queryOf(rec.last());
    expect(query.get('page')).toBe('1');
    expect(query.get('start')).toBe('0');
    expect(query.get('limit')).toBe('25');
    expect(records.map((record) => record.getId())).toEqual([1, 2, 3]);
    expect(records[0]).toBeInstanceOf(User);
    expect(ids(store)).toEqual([1, 2, 3]);
    expect(store.getById(2)?.get('name')).toBe('user2');
    expect(store.getAt(0)?.phantom).toBe(false);
    expect(store.getAt(0)?.dirty).toBe(false);
  });

  it('replaces the records on a second load', async () => {
    const { store } = makeStore((_call, index) => ({ body: index === 0 ? rows(1, 2) : rows(3) }));
    await store.load();
    await store.load();
    expect(ids(store)).toEqual([3]);
    expect(store.getById(1)).toBeUndefined();
  });

  it('takes the total from the reader', async () => {
    const rec = recordingFetch(() => ({ body: { total: 120, data: rows(1, 2) } }));
    const store = new Store({
      model: User, pageSize: 2, proxy: new RestProxy({ url: URL_BASE, fetch: rec, retry: 0, reader: { rootProperty: 'data' } }),
    });
    await store.load();
    expect(store.getCount()).toBe(2);
    expect(store.getTotalCount()).toBe(120);
  });

  it('pageSize 0 sends no page, start or limit', async () => {
    const { store, rec } = makeStore(() => ({ body: rows(1, 2, 3, 4) }), { pageSize: 0 });
    await store.load();
    const query = queryOf(rec.last());
    expect(query.has('page')).toBe(false);
    expect(query.has('start')).toBe(false);
    expect(query.has('limit')).toBe(false);
    expect(store.getCount()).toBe(4);
  });

  it('sends load params, and explicit page/start/limit', async () => {
    const { store, rec } = makeStore(() => ({ body: [] }));
    await store.load({ params: { q: 'ed', tenant: 5 } });
    expect(queryOf(rec.last()).get('q')).toBe('ed');
    expect(queryOf(rec.last()).get('tenant')).toBe('5');
    await store.load({ start: 40, limit: 20 });
    expect(queryOf(rec.last()).get('start')).toBe('40');
    expect(queryOf(rec.last()).get('limit')).toBe('20');
  });

  it('addRecords appends instead of replacing', async () => {
    const { store } = makeStore((_call, index) => ({ body: index === 0 ? rows(1, 2) : rows(3, 4) }));
    await store.load();
    await store.load({ addRecords: true });
    expect(ids(store)).toEqual([1, 2, 3, 4]);
    expect(store.getById(1)?.get('name')).toBe('user1');
  });

  it('a failed load rejects with the ProxyError, fires exception and changes nothing', async () => {
    const { store } = makeStore((_call, index) => (index === 0 ? { body: rows(1, 2) } : { status: 500, body: { message: 'down' } }));
    await store.load();
    const exceptions: unknown[] = [];
    store.on('exception', (event) => {
      exceptions.push(event);
    });
    const error = await rejection(store.load());
    expect(error.kind).toBe('http');
    expect(error.status).toBe(500);
    expect(exceptions).toHaveLength(1);
    expect(ids(store)).toEqual([1, 2]);
  });
});

describe('Store paging', () => {
  it('page n sends page=n, start=(n-1)*pageSize, limit=pageSize and sets currentPage', async () => {
    const { store, rec } = makeStore(() => ({ body: [] }), { pageSize: 10 });
    await store.loadPage(3);
    let query = queryOf(rec.last());
    expect([query.get('page'), query.get('start'), query.get('limit')]).toEqual(['3', '20', '10']);
    expect(store.currentPage).toBe(3);
    await store.nextPage();
    query = queryOf(rec.last());
    expect([query.get('page'), query.get('start'), query.get('limit')]).toEqual(['4', '30', '10']);
    expect(store.currentPage).toBe(4);
    await store.previousPage();
    query = queryOf(rec.last());
    expect([query.get('page'), query.get('start'), query.get('limit')]).toEqual(['3', '20', '10']);
    expect(store.currentPage).toBe(3);
  });

  it('load() after loadPage loads the current page again', async () => {
    const { store, rec } = makeStore(() => ({ body: [] }), { pageSize: 5 });
    await store.loadPage(2);
    await store.load();
    expect(queryOf(rec.last()).get('page')).toBe('2');
    expect(queryOf(rec.last()).get('start')).toBe('5');
  });
});

describe('Store: remote sort, filter and group', () => {
  it('remoteSort: sort() reloads with the sorters JSON-encoded', async () => {
    const { store, rec } = makeStore(() => ({ body: rows(3, 1, 2) }), { remoteSort: true });
    await store.sort('name', 'DESC');
    expect(rec.calls).toHaveLength(1);
    expect(JSON.parse(queryOf(rec.last()).get('sort') ?? 'null')).toEqual([{ property: 'name', direction: 'DESC' }]);
    // The server's order is kept.
    expect(ids(store)).toEqual([3, 1, 2]);
  });

  it('remoteSort: the configured sorters go with the first load', async () => {
    const { store, rec } = makeStore(() => ({ body: [] }), { remoteSort: true, sorters: [{ property: 'dept', direction: 'ASC' }] });
    await store.load();
    expect(JSON.parse(queryOf(rec.last()).get('sort') ?? 'null')).toEqual([{ property: 'dept', direction: 'ASC' }]);
  });

  it('remoteFilter: filter() reloads with the filters JSON-encoded, clearFilter() without', async () => {
    const { store, rec } = makeStore(() => ({ body: rows(1) }), { remoteFilter: true });
    await store.filter('name', 'Ed');
    expect(rec.calls).toHaveLength(1);
    expect(JSON.parse(queryOf(rec.last()).get('filter') ?? 'null')).toEqual([{ property: 'name', value: 'Ed' }]);
    await store.clearFilter();
    expect(rec.calls).toHaveLength(2);
    expect(queryOf(rec.last()).has('filter')).toBe(false);
  });

  it('remoteGroup: group() reloads with the grouper JSON-encoded', async () => {
    const { store, rec } = makeStore(() => ({ body: [] }), { remoteGroup: true });
    await store.group('dept', 'DESC');
    expect(rec.calls).toHaveLength(1);
    expect(JSON.parse(queryOf(rec.last()).get('group') ?? 'null')).toEqual({ property: 'dept', direction: 'DESC' });
  });

  it('local sort and filter send nothing and leave the loaded records alone', async () => {
    const { store, rec } = makeStore(() => ({ body: rows(1, 2, 3, 4) }));
    await store.load();
    await store.sort('id', 'DESC');
    await store.filter('dept', 'odd');
    expect(rec.calls).toHaveLength(1);
    expect(ids(store)).toEqual([3, 1]);
    expect(queryOf(rec.calls[0] ?? rec.last()).has('sort')).toBe(false);
  });
});

describe('Store.load: a newer load supersedes an older one in flight', () => {
  it('the older rejects with kind "abort" and its late answer changes nothing', async () => {
    const { respond, parked } = parkingResponder();
    const { store, rec } = makeStore(respond);
    const older = store.load({ params: { q: 'old' } });
    const olderFailure = rejection(older);
    await vi.waitFor(() => expect(rec.calls).toHaveLength(1));
    const newer = store.load({ params: { q: 'new' } });
    await vi.waitFor(() => expect(rec.calls).toHaveLength(2));
    parked[1]?.answer({ body: rows(2) });
    await newer;
    parked[0]?.answer({ body: rows(1) });
    const error = await olderFailure;
    expect(error.kind).toBe('abort');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ids(store)).toEqual([2]);
  });

  it('the older answering first does not show its records', async () => {
    const { respond, parked } = parkingResponder();
    const { store, rec } = makeStore(respond);
    // Different params: identical GETs in flight may share one request.
    const older = store.load({ params: { q: 'old' } });
    const olderFailure = rejection(older);
    await vi.waitFor(() => expect(rec.calls).toHaveLength(1));
    const loads: unknown[] = [];
    store.on('load', (event) => {
      loads.push(event);
    });
    const newer = store.load({ params: { q: 'new' } });
    await vi.waitFor(() => expect(rec.calls).toHaveLength(2));
    parked[0]?.answer({ body: rows(1) });
    const error = await olderFailure;
    expect(error.kind).toBe('abort');
    expect(store.getById(1)).toBeUndefined();
    parked[1]?.answer({ body: rows(2) });
    await newer;
    expect(ids(store)).toEqual([2]);
    expect(loads).toHaveLength(1);
  });

  it('a superseded page load leaves currentPage and the total to the newer load', async () => {
    const { respond, parked } = parkingResponder();
    const rec = recordingFetch(respond);
    const store = new Store({
      model: User, pageSize: 2, proxy: new RestProxy({ url: URL_BASE, fetch: rec, retry: 0, reader: { rootProperty: 'data' } }),
    });
    const older = rejection(store.loadPage(5));
    await vi.waitFor(() => expect(rec.calls).toHaveLength(1));
    const newer = store.loadPage(2);
    await vi.waitFor(() => expect(rec.calls).toHaveLength(2));
    parked[1]?.answer({ body: { total: 40, data: rows(3, 4) } });
    await newer;
    parked[0]?.answer({ body: { total: 999, data: rows(9, 10) } });
    expect((await older).kind).toBe('abort');
    expect(store.currentPage).toBe(2);
    expect(store.getTotalCount()).toBe(40);
    expect(ids(store)).toEqual([3, 4]);
  });

  it('an aborted signal cancels the load with kind "abort" and keeps the records', async () => {
    const { respond, parked } = parkingResponder();
    const { store, rec } = makeStore((call, index) => (index === 0 ? { body: rows(1) } : respond(call, index)));
    await store.load();
    const controller = new AbortController();
    const loading = rejection(store.load({ signal: controller.signal }));
    await vi.waitFor(() => expect(rec.calls).toHaveLength(2));
    controller.abort();
    parked[0]?.answer({ body: rows(9) });
    const error = await loading;
    expect(error.kind).toBe('abort');
    expect(ids(store)).toEqual([1]);
  });
});

describe('Store load events', () => {
  it('beforeload can cancel: no request, nothing changes', async () => {
    const { store, rec } = makeStore(() => ({ body: rows(1) }));
    store.on('beforeload', () => false);
    await store.load().catch(() => undefined);
    expect(rec.calls).toHaveLength(0);
    expect(store.getCount()).toBe(0);
  });

  it('load fires after the records are in the store; datachanged fires too', async () => {
    const { store } = makeStore(() => ({ body: rows(1, 2) }));
    const counts: number[] = [];
    const loads: unknown[] = [];
    store.on('load', (event) => {
      counts.push(store.getCount());
      loads.push(event);
    });
    let changes = 0;
    store.on('datachanged', () => {
      changes++;
    });
    const records = await store.load();
    expect(counts).toEqual([2]);
    expect(loads[0]).toMatchObject({ records });
    expect(changes).toBeGreaterThan(0);
  });
});

describe('Store autoLoad', () => {
  it('autoLoad: true loads once after construction', async () => {
    const { store, rec } = makeStore(() => ({ body: rows(1, 2) }), { autoLoad: true });
    await vi.waitFor(() => expect(store.getCount()).toBe(2));
    expect(rec.calls).toHaveLength(1);
    expect(rec.last().method).toBe('GET');
  });

  it('without autoLoad nothing is sent', async () => {
    const { rec } = makeStore(() => ({ body: rows(1, 2) }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(rec.calls).toHaveLength(0);
  });
});

describe('Store: proxy precedence', () => {
  it('uses the model\'s proxy when the store has none', async () => {
    const rec = recordingFetch(() => ({ body: rows(7) }));
    class Member extends Model<UserData> {
      static override fields = ['id', 'name', 'dept'];
      static override proxy = new RestProxy({ url: 'http://api.test/members', fetch: rec, retry: 0 });
    }
    const store = new Store({ model: Member });
    await store.load();
    expect(pathOf(rec.last())).toBe('/members');
    expect(store.getById(7)).toBeInstanceOf(Member);
  });

  it('a store proxy overrides the model\'s', async () => {
    const modelFetch = recordingFetch();
    const storeFetch = recordingFetch(() => ({ body: rows(1) }));
    class Member extends Model<UserData> {
      static override fields = ['id', 'name', 'dept'];
      static override proxy = new RestProxy({ url: 'http://api.test/members', fetch: modelFetch, retry: 0 });
    }
    const store = new Store({ model: Member, proxy: { type: 'rest', url: 'http://api.test/team', fetch: storeFetch, retry: 0 } });
    await store.load();
    expect(modelFetch.calls).toHaveLength(0);
    expect(pathOf(storeFetch.last())).toBe('/team');
  });
});

describe('Store.load merges a mapped field into a locally edited record', () => {
  it('takes the server value of a mapped field as the new saved value, keeping the local edit', async () => {
    class Mapped extends Model<{ id: number; name: string; email: string }> {
      static override fields = ['id', 'name', { name: 'email', mapping: 'email_address' }];
    }
    let email = 'old@example.com';
    const rec = recordingFetch(() => ({ body: [{ id: 1, name: 'Ann', email_address: email }] }));
    const store = new Store({ model: Mapped, proxy: new RestProxy({ url: 'http://api.test/people', fetch: rec, retry: 0 }) });
    await store.load();
    const ann = store.getById(1);
    expect(ann?.get('email')).toBe('old@example.com');
    ann?.set('name', 'Anne');
    email = 'new@example.com';
    await store.load();
    expect(store.getById(1)).toBe(ann);
    expect(ann?.get('email')).toBe('new@example.com');
    expect(ann?.get('name')).toBe('Anne');
    expect(ann?.getChanges()).toEqual({ name: 'Anne' });
  });
});
