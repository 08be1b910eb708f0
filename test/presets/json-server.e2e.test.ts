/**
 * The 'json-server' preset end to end against the REAL json-server 0.17.4 (test/server/jsonServer.ts):
 * a Model declared with `static proxy = { type: 'rest', url, preset: 'json-server' }` and a Store of
 * it save, load, page, sort, filter, sync and destroy; after every step the server's own state is
 * read back with a plain fetch (`GET /users/:id`, `GET /db`) and compared with the client's records.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
// The built-in presets are registered where they are imported, as in an app.
import '../../src/presets.js';
import { Model, ProxyError, RestProxy, Store, type RequestHookContext } from '../../src/index.js';
import { startJsonServer, type JsonServer } from '../server/jsonServer.js';
import type { UserData } from './fixtures.js';

type Row = Record<string, unknown>;

const SEED: UserData[] = [
  { id: 1, name: 'Ed', email: 'ed@example.com', age: 30 },
  { id: 2, name: 'alice', email: 'alice@example.com', age: 25 },
  { id: 3, name: 'Bob', email: 'bob@example.com', age: 41 },
  { id: 4, name: 'Carol', email: 'carol@example.com', age: 25 },
  { id: 5, name: 'Eddie', email: 'eddie@example.com', age: 30 },
  { id: 6, name: 'a.b', email: 'dot@example.com', age: 19 },
  { id: 7, name: 'axb', email: 'axb@example.com', age: 19 },
  { id: 8, name: 'Fred (x)', email: 'fred@example.com', age: 60 },
  { id: 9, name: 'Ted', email: 'ted@example.com', age: 52 },
  { id: 10, name: 'Zoe', email: 'zoe@example.com', age: 41 },
];

/** One request as the proxy sent it (seen through its onRequest hook). */
interface Sent {
  method: string;
  url: string;
  /** path + query, without the origin */
  pathAndQuery: string;
  headers: Headers;
  body: string | undefined;
}

let server: JsonServer<{ users: UserData[] }>;
let sent: Sent[] = [];

function record(context: RequestHookContext): void {
  const { init, url } = context;
  const parsed = new URL(url);
  sent.push({
    method: init.method ?? 'GET',
    url,
    pathAndQuery: `${parsed.pathname}${parsed.search}`,
    headers: new Headers(init.headers),
    body: typeof init.body === 'string' ? init.body : undefined,
  });
}

/** A fresh User class bound to this file's json-server, declared the way an application would. */
function defineUser() {
  class User extends Model<UserData> {
    static override fields = [{ name: 'id', type: 'int' }, 'name', 'email', { name: 'age', type: 'int' }];
    static override proxy = { type: 'rest', url: `${server.url}/users`, preset: 'json-server' };
  }
  const proxy = User.getProxy();
  if (!(proxy instanceof RestProxy)) throw new Error('expected a RestProxy');
  proxy.onRequest = record;
  return User;
}

/** A plain fetch of json-server (never through the library). */
async function plainGet(path: string): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(`${server.url}${path}`);
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('json');
  return { status: response.status, body: json && text !== '' ? JSON.parse(text) : text, headers: response.headers };
}

async function serverUser(id: unknown): Promise<Row | undefined> {
  const { status, body } = await plainGet(`/users/${encodeURIComponent(String(id))}`);
  if (status === 404) return undefined;
  expect(status).toBe(200);
  return toRow(body);
}

function toRow(value: unknown): Row {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`expected an object, got ${JSON.stringify(value)}`);
  return Object.fromEntries(Object.entries(value));
}

function toRows(value: unknown): Row[] {
  if (!Array.isArray(value)) throw new Error(`expected an array, got ${JSON.stringify(value)}`);
  return value.map(toRow);
}

/** Every user json-server holds (GET /db), by id. */
async function serverUsers(): Promise<Row[]> {
  const { body } = await plainGet('/db');
  const users = toRow(body).users;
  return toRows(users).sort((a, b) => Number(a.id) - Number(b.id));
}

function pick(data: Row): Row {
  return { id: data.id, name: data.name, email: data.email, age: data.age };
}

function clientRows(records: readonly Model<UserData>[]): Row[] {
  return records.map((record) => pick(record.getData()));
}

function lastSent(): Sent {
  const last = sent[sent.length - 1];
  if (last === undefined) throw new Error('no request was sent');
  return last;
}

function bodyOf(request: Sent): Row {
  return toRow(JSON.parse(request.body ?? 'null'));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** One json-server per describe, on a fresh copy of the seed db, closed when the describe ends. */
function useJsonServer(): void {
  beforeAll(async () => {
    server = await startJsonServer({ users: SEED.map((user) => ({ ...user })) });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    sent = [];
  });
}

describe('json-server preset: a Model', () => {
  useJsonServer();

  it('creates, updates, loads by id and destroys one user, and json-server holds exactly that', async () => {
    const User = defineUser();

    // create
    const sam = new User({ name: 'Sam', email: 'sam@example.com', age: 33 });
    expect(sam.phantom).toBe(true);
    await sam.save();
    const create = lastSent();
    expect(create.method).toBe('POST');
    expect(create.pathAndQuery).toBe('/users');
    expect(create.headers.get('content-type')).toBe('application/json');
    expect(create.headers.get('accept')).toBe('application/json');
    // The phantom's temporary client id is never sent as its id (json-server would keep it).
    expect(bodyOf(create)).toEqual({ name: 'Sam', email: 'sam@example.com', age: 33 });
    expect(sam.phantom).toBe(false);
    expect(sam.getId()).toBe(11);
    expect(await serverUser(11)).toEqual(pick(sam.getData()));

    // update (PUT is a full replace on json-server: every field is sent)
    sam.set('age', 34);
    expect(sam.dirty).toBe(true);
    await sam.save();
    const update = lastSent();
    expect(`${update.method} ${update.pathAndQuery}`).toBe('PUT /users/11');
    expect(update.headers.get('content-type')).toBe('application/json');
    expect(bodyOf(update)).toEqual({ id: 11, name: 'Sam', email: 'sam@example.com', age: 34 });
    expect(sam.dirty).toBe(false);
    expect(await serverUser(11)).toEqual({ id: 11, name: 'Sam', email: 'sam@example.com', age: 34 });

    // load by id (no cache buster: the preset turns noCache off)
    const loaded = await User.load(11);
    expect(`${lastSent().method} ${lastSent().pathAndQuery}`).toBe('GET /users/11');
    expect(lastSent().body).toBeUndefined();
    expect(pick(loaded.getData())).toEqual(await serverUser(11));
    expect(loaded.phantom).toBe(false);
    expect(loaded.dirty).toBe(false);

    // destroy
    await loaded.destroy();
    expect(`${lastSent().method} ${lastSent().pathAndQuery}`).toBe('DELETE /users/11');
    expect(lastSent().body).toBeUndefined();
    expect(loaded.erased).toBe(true);
    expect(await serverUser(11)).toBeUndefined();
    expect(await serverUsers()).toEqual(SEED);
  });

  it('reports a missing id as a 404 http error, and an unknown id to load leaves json-server as it was', async () => {
    const User = defineUser();
    const error = await rejection(User.load(999));
    expect(error).toBeInstanceOf(ProxyError);
    if (!(error instanceof ProxyError)) return;
    expect(error.kind).toBe('http');
    expect(error.status).toBe(404);
    expect(error.message).toContain(`GET ${server.url}/users/999 failed: 404`);
    expect(await serverUsers()).toEqual(SEED);
  });
});

describe('json-server preset: a Store', () => {
  useJsonServer();

  function makeStore(pageSize = 3) {
    const User = defineUser();
    return new Store({ model: User, pageSize, remoteSort: true, remoteFilter: true });
  }

  it('loads page 2 with _page/_limit and takes the total from X-Total-Count', async () => {
    const store = makeStore(3);
    const records = await store.loadPage(2);
    expect(lastSent().pathAndQuery).toBe('/users?_page=2&_limit=3');
    expect(store.currentPage).toBe(2);
    expect(store.getTotalCount()).toBe(10);
    expect(store.getPageCount()).toBe(4);

    const plain = await plainGet('/users?_page=2&_limit=3');
    expect(plain.headers.get('x-total-count')).toBe('10');
    expect(clientRows(records)).toEqual(toRows(plain.body));
    expect(clientRows(records)).toEqual(SEED.slice(3, 6));
  });

  it('sorts on several fields with ONE comma-joined _sort and _order (a repeated _sort is a 500 there)', async () => {
    const store = makeStore(4);
    await store.sort([{ property: 'age', direction: 'DESC' }, { property: 'name', direction: 'ASC' }]);
    const query = new URL(lastSent().url).searchParams;
    expect(query.getAll('_sort')).toEqual(['age,name']);
    expect(query.getAll('_order')).toEqual(['desc,asc']);
    expect(lastSent().pathAndQuery).toBe('/users?_page=1&_limit=4&_sort=age%2Cname&_order=desc%2Casc');

    const expected = [...SEED].sort((a, b) => b.age - a.age || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    expect(clientRows(store.getRange())).toEqual(expected.slice(0, 4));
    const plain = await plainGet('/users?_page=1&_limit=4&_sort=age,name&_order=desc,asc');
    expect(clientRows(store.getRange())).toEqual(toRows(plain.body));
    expect(store.getTotalCount()).toBe(10);

    // The second page continues the same order.
    await store.nextPage();
    expect(clientRows(store.getRange())).toEqual(expected.slice(4, 8));
  });

  it('filters by equality (field=value)', async () => {
    const store = makeStore(25);
    await store.filter('age', 30);
    expect(lastSent().pathAndQuery).toBe('/users?_page=1&_limit=25&age=30');
    expect(clientRows(store.getRange())).toEqual(SEED.filter((user) => user.age === 30));
    expect(store.getTotalCount()).toBe(2);
    expect(clientRows(store.getRange())).toEqual(toRows((await plainGet('/users?age=30')).body));
  });

  it('filters by a range (field_gte, field_lte) and by field_ne', async () => {
    const store = makeStore(25);
    await store.filter([
      { property: 'age', operator: '>=', value: 25 },
      { property: 'age', operator: '<=', value: 41 },
    ]);
    expect(lastSent().pathAndQuery).toBe('/users?_page=1&_limit=25&age_gte=25&age_lte=41');
    const inRange = SEED.filter((user) => user.age >= 25 && user.age <= 41);
    expect(clientRows(store.getRange())).toEqual(inRange);
    expect(store.getTotalCount()).toBe(inRange.length);

    await store.filter('name', 'Bob', '!=');
    expect(lastSent().pathAndQuery).toBe('/users?_page=1&_limit=25&age_gte=25&age_lte=41&name_ne=Bob');
    expect(clientRows(store.getRange())).toEqual(inRange.filter((user) => user.name !== 'Bob'));
    expect(clientRows(store.getRange())).toEqual(toRows((await plainGet('/users?age_gte=25&age_lte=41&name_ne=Bob')).body));
  });

  it('filters with field_like, case-insensitive, with regex metacharacters escaped', async () => {
    const store = makeStore(25);
    await store.filter('name', 'ed', 'like');
    expect(lastSent().pathAndQuery).toBe('/users?_page=1&_limit=25&name_like=ed');
    expect(clientRows(store.getRange()).map((row) => row.name)).toEqual(['Ed', 'Eddie', 'Fred (x)', 'Ted']);

    // 'a.b' is the text a.b, not the pattern a-anything-b: 'axb' must not match.
    await store.filter('name', 'a.b', 'like');
    expect(new URL(lastSent().url).searchParams.get('name_like')).toBe('a\\.b');
    expect(clientRows(store.getRange()).map((row) => row.name)).toEqual(['a.b']);
    expect(toRows((await plainGet('/users?name_like=a.b')).body).map((row) => row.name)).toEqual(['a.b', 'axb']);

    // '(x' unescaped is an invalid regular expression (json-server answers 500).
    await store.filter('name', '(x', 'like');
    expect(new URL(lastSent().url).searchParams.get('name_like')).toBe('\\(x');
    expect(clientRows(store.getRange()).map((row) => row.name)).toEqual(['Fred (x)']);
    expect(store.getTotalCount()).toBe(1);
    expect(clientRows(store.getRange())).toEqual(toRows((await plainGet(`/users?name_like=${encodeURIComponent('\\(x')}`)).body));
    expect((await plainGet('/users?name_like=(x')).status).toBe(500);
  });

  it('filters with in (a repeated field=value, ORed) and notin (a repeated field_ne, ANDed)', async () => {
    const store = makeStore(25);
    await store.filter('name', ['Ed', 'Bob', 'Zoe'], 'in');
    expect(lastSent().pathAndQuery).toBe('/users?_page=1&_limit=25&name=Ed&name=Bob&name=Zoe');
    expect(clientRows(store.getRange()).map((row) => row.id)).toEqual([1, 3, 10]);

    await store.clearFilter();
    await store.filter('name', ['Ed', 'Bob', 'Zoe'], 'notin');
    expect(lastSent().pathAndQuery).toBe('/users?_page=1&_limit=25&name_ne=Ed&name_ne=Bob&name_ne=Zoe');
    expect(clientRows(store.getRange()).map((row) => row.id)).toEqual([2, 4, 5, 6, 7, 8, 9]);
    expect(store.getTotalCount()).toBe(7);
  });

  it('refuses an operator json-server does not have, naming it, before anything is sent', async () => {
    const store = makeStore(25);
    const error = await rejection(store.filter('age', 30, '>'));
    expect(error).toBeInstanceOf(ProxyError);
    expect(String(error)).toMatch(/json-server has no ">" filter \(on "age"\)/);
    expect(sent).toEqual([]);
  });

  it('syncs creates, updates and destroys one request per record, and json-server ends up with the client records', async () => {
    const store = makeStore(0);
    await store.load();
    expect(lastSent().pathAndQuery).toBe('/users');
    expect(store.getCount()).toBe(10);
    sent = [];

    const [nia, omar] = store.add([
      { name: 'Nia', email: 'nia@example.com', age: 28 },
      { name: 'Omar', email: 'omar@example.com', age: 35 },
    ]);
    store.getById(2)?.set('age', 26);
    store.getById(4)?.set({ name: 'Caroline', email: 'caroline@example.com' });
    const bob = store.getById(3);
    if (bob === undefined) throw new Error('no Bob');
    store.remove(bob);

    const batch = await store.sync();
    expect(batch.hasException()).toBe(false);
    expect(batch.operations).toHaveLength(5);
    expect(sent.map((request) => `${request.method} ${request.pathAndQuery}`).sort()).toEqual(
      ['DELETE /users/3', 'POST /users', 'POST /users', 'PUT /users/2', 'PUT /users/4'].sort(),
    );
    for (const request of sent) {
      if (request.method === 'DELETE') {
        expect(request.body).toBeUndefined();
        continue;
      }
      expect(request.headers.get('content-type')).toBe('application/json');
      // one record per request, never an array (json-server stores a POSTed array as one element)
      const body = bodyOf(request);
      if (request.method === 'POST') expect(body).not.toHaveProperty('id');
    }
    expect(nia?.phantom).toBe(false);
    expect(omar?.phantom).toBe(false);
    expect(store.getNewRecords()).toEqual([]);
    expect(store.getUpdatedRecords()).toEqual([]);
    expect(store.getRemovedRecords()).toEqual([]);

    const onServer = await serverUsers();
    const inClient = clientRows(store.getRange()).sort((a, b) => Number(a.id) - Number(b.id));
    expect(onServer).toEqual(inClient);
    expect(onServer.map((row) => row.id)).toEqual([1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(onServer.find((row) => row.id === 4)).toEqual({ id: 4, name: 'Caroline', email: 'caroline@example.com', age: 25 });

    // A load after the sync reads back what the client has.
    await store.load();
    expect(clientRows(store.getRange()).sort((a, b) => Number(a.id) - Number(b.id))).toEqual(onServer);
  });

  it('refuses batchActions: true beside the preset (json-server has no batch endpoint)', () => {
    expect(() => new RestProxy({ url: `${server.url}/users`, preset: 'json-server', batchActions: true })).toThrow(TypeError);
    expect(() => new RestProxy({ url: `${server.url}/users`, preset: 'json-server', batchActions: true })).toThrow(/batchActions.*json-server/);
  });
});

describe('json-server preset: the requests of docs/presets.md', () => {
  useJsonServer();

  it('load page 2 of 25 sorted by name DESC then age ASC, filtered on name like "ed"', async () => {
    const store = new Store({
      model: defineUser(),
      pageSize: 25,
      remoteSort: true,
      remoteFilter: true,
      sorters: [{ property: 'name', direction: 'DESC' }, { property: 'age', direction: 'ASC' }],
      filters: [{ property: 'name', operator: 'like', value: 'ed' }],
    });
    await store.loadPage(2);
    expect(`${lastSent().method} ${lastSent().pathAndQuery}`).toBe('GET /users?_page=2&_limit=25&_sort=name%2Cage&_order=desc%2Casc&name_like=ed');
    expect(lastSent().headers.get('accept')).toBe('application/json');
    expect(store.getCount()).toBe(0);
    expect(store.getTotalCount()).toBe(4);
  });

  it('create, update of id 2, destroy of id 2', async () => {
    const User = defineUser();
    await new User({ name: 'Nia', email: 'nia@example.com', age: 28 }).save();
    expect(`${lastSent().method} ${lastSent().pathAndQuery}`).toBe('POST /users');
    expect(lastSent().body).toBe('{"name":"Nia","email":"nia@example.com","age":28}');
    expect(lastSent().headers.get('content-type')).toBe('application/json');

    const two = new User({ id: 2, name: 'alice', email: 'alice@example.com', age: 25 });
    two.set('age', 99);
    await two.save();
    expect(`${lastSent().method} ${lastSent().pathAndQuery}`).toBe('PUT /users/2');
    expect(lastSent().body).toBe('{"name":"alice","email":"alice@example.com","age":99,"id":2}');
    expect(await serverUser(2)).toEqual({ id: 2, name: 'alice', email: 'alice@example.com', age: 99 });

    await two.destroy();
    expect(`${lastSent().method} ${lastSent().pathAndQuery}`).toBe('DELETE /users/2');
    expect(lastSent().body).toBeUndefined();
    expect(lastSent().headers.get('content-type')).toBeNull();
    expect(await serverUser(2)).toBeUndefined();
  });
});
