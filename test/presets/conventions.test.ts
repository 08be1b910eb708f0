/**
 * The built-in presets other than json-server, each against the project's test server speaking
 * that framework's conventions (test/server/API.md): the same scenario for every one (create,
 * update, load by id, a store's page 2 with the total, sort, filter, a validation error, destroy,
 * a sync), with `server.db` compared with the client's records after every write. Plus Django's
 * trailing-slash redirect, which must fail loudly instead of silently not creating.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// The built-in presets are registered where they are imported, as in an app.
import '../../src/presets.js';
import { Model, RestProxy, Store, type FilterOf, type SorterOf } from '../../src/index.js';
import { startTestServer, type RecordedRequest, type TestServer } from '../server/index.js';
import { proxyErrorOf as rejection } from '../helpers/proxyTestKit.js';
import type { PresetName, UserData } from './fixtures.js';

type Row = Record<string, unknown>;

const SEED: UserData[] = [
  { id: 1, name: 'Ed', email: 'ed@example.com', age: 30 },
  { id: 2, name: 'alice', email: 'alice@example.com', age: 25 },
  { id: 3, name: 'Bob', email: 'bob@example.com', age: 41 },
  { id: 4, name: 'Ed', email: 'ed2@example.com', age: 22 },
  { id: 5, name: 'Carol', email: 'carol@example.com', age: 25 },
  { id: 6, name: 'Eddie', email: 'eddie@example.com', age: 30 },
];

/** Sorted by name DESC (code points), then age ASC. */
const BY_NAME_DESC_AGE_ASC = [2, 6, 4, 1, 5, 3];

const SORTERS: SorterOf<Model<UserData>>[] = [
  { property: 'name', direction: 'DESC' },
  { property: 'age', direction: 'ASC' },
];

interface Case {
  preset: PresetName;
  /** the media type of request bodies and of Accept */
  mediaType: string;
  /** `/users/` for Django, `/users` for the others */
  collection: string;
  item: (id: unknown) => string;
  updateMethod: 'PUT' | 'PATCH';
  /** the record's fields out of a request body as the framework expects it */
  unwrap: (body: unknown) => Row;
  /** the query of page 2 of 2 (without the cache buster) */
  page2: [string, string][];
  /** the query params of SORTERS */
  sort: [string, string][];
  /** whether the test server applies that sort (some frameworks have no standard sort param) */
  sortApplied: boolean;
  /** the query params of the filter name = 'Ed' */
  filter: [string, string][];
  filterApplied: boolean;
  validationStatus: number;
}

function toRow(value: unknown): Row {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`expected an object, got ${JSON.stringify(value)}`);
  return Object.fromEntries(Object.entries(value));
}

const CASES: Case[] = [
  {
    preset: 'django-rest',
    mediaType: 'application/json',
    collection: '/users/',
    item: (id) => `/users/${String(id)}/`,
    updateMethod: 'PUT',
    unwrap: toRow,
    page2: [['page', '2'], ['page_size', '2']],
    sort: [['ordering', '-name,age']],
    sortApplied: true,
    filter: [['name', 'Ed']],
    filterApplied: true,
    validationStatus: 400,
  },
  {
    preset: 'rails',
    mediaType: 'application/json',
    collection: '/users',
    item: (id) => `/users/${String(id)}`,
    updateMethod: 'PUT',
    unwrap: (body) => toRow(toRow(body).user),
    page2: [['page', '2'], ['per_page', '2']],
    sort: [['sort', '-name,age']],
    sortApplied: false,
    filter: [['name', 'Ed']],
    filterApplied: false,
    validationStatus: 422,
  },
  {
    preset: 'laravel',
    mediaType: 'application/json',
    collection: '/users',
    item: (id) => `/users/${String(id)}`,
    updateMethod: 'PUT',
    unwrap: toRow,
    page2: [['page', '2'], ['per_page', '2']],
    sort: [['sort', '-name,age']],
    sortApplied: false,
    filter: [['filter[name]', 'Ed']],
    filterApplied: false,
    validationStatus: 422,
  },
  {
    preset: 'spring-data-rest',
    mediaType: 'application/json',
    collection: '/users',
    item: (id) => `/users/${String(id)}`,
    updateMethod: 'PUT',
    unwrap: toRow,
    page2: [['page', '1'], ['size', '2']],
    sort: [['sort', 'name,desc'], ['sort', 'age,asc']],
    sortApplied: true,
    filter: [['name', 'Ed']],
    filterApplied: false,
    validationStatus: 400,
  },
  {
    preset: 'json-api',
    mediaType: 'application/vnd.api+json',
    collection: '/users',
    item: (id) => `/users/${String(id)}`,
    updateMethod: 'PATCH',
    unwrap: (body) => {
      const data = toRow(toRow(body).data);
      expect(data.type).toBe('users');
      return { ...(data.id === undefined ? {} : { id: data.id }), ...toRow(data.attributes) };
    },
    page2: [['page[number]', '2'], ['page[size]', '2']],
    sort: [['sort', '-name,age']],
    sortApplied: true,
    filter: [['filter[name]', 'Ed']],
    filterApplied: true,
    validationStatus: 422,
  },
];

let server: TestServer<{ users: UserData[] }>;

afterEach(async () => {
  await server.close();
});

function pick(data: Row): Row {
  return { id: data.id, name: data.name, email: data.email, age: data.age };
}

function serverRows(): Row[] {
  return (server.db.users ?? []).map(pick).sort((a, b) => Number(a.id) - Number(b.id));
}

function serverRow(id: unknown): Row | undefined {
  const row = (server.db.users ?? []).find((candidate) => String(candidate.id) === String(id));
  return row === undefined ? undefined : pick(row);
}

function clientRows(records: readonly Model<UserData>[]): Row[] {
  return records.map((record) => pick(record.getData()));
}

function lastRequest(): RecordedRequest {
  const last = server.requests[server.requests.length - 1];
  if (last === undefined) throw new Error('the server received no request');
  return last;
}

/** The query of a request, without the cache buster, as [name, value] pairs. */
function queryPairs(request: RecordedRequest): [string, string][] {
  return [...request.query].filter(([name]) => name !== '_dc');
}

for (const c of CASES) {
  describe(`preset '${c.preset}' against the ${c.preset} test server`, () => {
    beforeEach(async () => {
      server = await startTestServer({
        conventions: c.preset,
        resources: { users: SEED.map((user) => ({ ...user })) },
        required: { users: ['name'] },
      });
    });

    function defineUser() {
      class User extends Model<UserData> {
        static override fields = [{ name: 'id', type: 'int' }, 'name', 'email', { name: 'age', type: 'int' }];
        static override proxy = { type: 'rest', url: `${server.url}/users`, preset: c.preset, retry: 0 };
      }
      return User;
    }

    function expectHeaders(request: RecordedRequest): void {
      expect(request.headers.accept).toBe(c.mediaType);
      if (request.body !== '') expect(request.headers['content-type']).toBe(c.mediaType);
      else expect(request.headers['content-type']).toBeUndefined();
    }

    it('creates, updates, loads by id and destroys a user; server.db follows the client', async () => {
      const User = defineUser();

      const zed = new User({ name: 'Zed', email: 'zed@example.com', age: 41 });
      await zed.save();
      const create = lastRequest();
      expect(`${create.method} ${create.path}`).toBe(`POST ${c.collection}`);
      expectHeaders(create);
      // no id of the client's making in a create
      expect(c.unwrap(create.json)).toEqual({ name: 'Zed', email: 'zed@example.com', age: 41 });
      expect(zed.phantom).toBe(false);
      expect(zed.getId()).toBe(7);
      expect(serverRow(7)).toEqual(pick(zed.getData()));

      zed.set('age', 42);
      await zed.save();
      const update = lastRequest();
      expect(`${update.method} ${update.path}`).toBe(`${c.updateMethod} ${c.item(7)}`);
      expectHeaders(update);
      const written = c.unwrap(update.json);
      expect(written.age).toBe(42);
      if (c.updateMethod === 'PUT') expect(written).toMatchObject({ name: 'Zed', email: 'zed@example.com' });
      expect(zed.dirty).toBe(false);
      expect(serverRow(7)).toEqual({ id: 7, name: 'Zed', email: 'zed@example.com', age: 42 });
      expect(pick(zed.getData())).toEqual(serverRow(7));

      const loaded = await User.load(7);
      const read = lastRequest();
      expect(`${read.method} ${read.path}`).toBe(`GET ${c.item(7)}`);
      expectHeaders(read);
      expect(pick(loaded.getData())).toEqual(serverRow(7));
      expect(loaded.phantom).toBe(false);
      expect(loaded.dirty).toBe(false);

      await loaded.destroy();
      const destroy = lastRequest();
      expect(`${destroy.method} ${destroy.path}`).toBe(`DELETE ${c.item(7)}`);
      expect(destroy.body).toBe('');
      expectHeaders(destroy);
      expect(loaded.erased).toBe(true);
      expect(serverRow(7)).toBeUndefined();
      expect(serverRows()).toEqual(SEED);
    });

    it('loads page 2 of a store with the total the server reports', async () => {
      const store = new Store({ model: defineUser(), pageSize: 2, remoteSort: true, remoteFilter: true });
      const records = await store.loadPage(2);
      const read = lastRequest();
      expect(`${read.method} ${read.path}`).toBe(`GET ${c.collection}`);
      expect(queryPairs(read)).toEqual(c.page2);
      expectHeaders(read);
      expect(clientRows(records)).toEqual(SEED.slice(2, 4));
      expect(store.getTotalCount()).toBe(SEED.length);
      expect(store.getPageCount()).toBe(3);
      expect(store.currentPage).toBe(2);
    });

    it('sorts by name DESC then age ASC', async () => {
      const store = new Store({ model: defineUser(), pageSize: 25, remoteSort: true, remoteFilter: true });
      await store.sort(SORTERS);
      const read = lastRequest();
      expect(queryPairs(read).filter(([name]) => !c.page2.some(([paging]) => paging === name))).toEqual(c.sort);
      expect(store.getTotalCount()).toBe(SEED.length);
      const ids = store.getRange().map((record) => record.getId());
      if (c.sortApplied) expect(ids).toEqual(BY_NAME_DESC_AGE_ASC);
      else expect([...ids].sort((a, b) => Number(a) - Number(b))).toEqual(SEED.map((user) => user.id));
    });

    it('filters on name = Ed', async () => {
      const store = new Store({ model: defineUser(), pageSize: 25, remoteSort: true, remoteFilter: true });
      const filters: FilterOf<Model<UserData>>[] = [{ property: 'name', value: 'Ed' }];
      await store.filter(filters);
      const read = lastRequest();
      expect(queryPairs(read).filter(([name]) => !c.page2.some(([paging]) => paging === name))).toEqual(c.filter);
      if (c.filterApplied) {
        expect(clientRows(store.getRange())).toEqual(SEED.filter((user) => user.name === 'Ed'));
        expect(store.getTotalCount()).toBe(2);
      } else {
        expect(store.getCount()).toBe(SEED.length);
      }
    });

    it('reports a validation error as kind validation with fieldErrors, on record.errors too, and changes nothing', async () => {
      const User = defineUser();
      const nameless = new User({ email: 'nameless@example.com', age: 5 });
      const error = await rejection(nameless.save());
      expect(error.kind).toBe('validation');
      expect(error.status).toBe(c.validationStatus);
      expect(Object.keys(error.fieldErrors ?? {})).toEqual(['name']);
      expect(error.fieldErrors?.name?.[0]).toEqual(expect.any(String));
      expect(nameless.errors).toEqual(error.fieldErrors);
      expect(nameless.phantom).toBe(true);
      expect(serverRows()).toEqual(SEED);

      // An update that blanks a required field: the same, and the record keeps its edit.
      const ed = await User.load(1);
      ed.set('name', '');
      const updateError = await rejection(ed.save());
      expect(updateError.kind).toBe('validation');
      expect(Object.keys(updateError.fieldErrors ?? {})).toEqual(['name']);
      expect(ed.errors).toEqual(updateError.fieldErrors);
      expect(ed.dirty).toBe(true);
      expect(ed.get('name')).toBe('');
      expect(serverRows()).toEqual(SEED);
    });

    it('syncs creates, updates and destroys, after which server.db holds the client records', async () => {
      const store = new Store({ model: defineUser(), pageSize: 25 });
      await store.load();
      expect(store.getCount()).toBe(SEED.length);
      store.add({ name: 'Nia', email: 'nia@example.com', age: 28 });
      store.getById(2)?.set('age', 26);
      const bob = store.getById(3);
      if (bob === undefined) throw new Error('no Bob');
      store.remove(bob);
      server.reset();

      const batch = await store.sync();
      expect(batch.hasException()).toBe(false);
      expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        `POST ${c.collection}`,
        `${c.updateMethod} ${c.item(2)}`,
        `DELETE ${c.item(3)}`,
      ]);
      for (const request of server.requests) expectHeaders(request);
      expect(store.hasChanges()).toBe(false);
      const inClient = clientRows(store.getRange()).sort((a, b) => Number(a.id) - Number(b.id));
      expect(serverRows()).toEqual(inClient);
      expect(serverRows().map((row) => row.id)).toEqual([1, 2, 4, 5, 6, 7]);
    });
  });
}

describe('django-rest: the trailing-slash redirect', () => {
  beforeEach(async () => {
    server = await startTestServer({ conventions: 'django-rest', resources: { users: SEED.map((user) => ({ ...user })) }, required: { users: ['name'] } });
  });

  it('a POST redirected by a 301 (no trailing slash) fails with kind http, names the redirect, suggests trailingSlash: true, and creates nothing', async () => {
    const proxy = new RestProxy({ url: `${server.url}/users`, trailingSlash: false, retry: 0 });
    class User extends Model<UserData> {
      static override fields = ['id', 'name', 'email', 'age'];
      static override proxy = proxy;
    }
    const zed = new User({ name: 'Zed', email: 'zed@example.com', age: 41 });
    const error = await rejection(zed.save());
    expect(error.kind).toBe('http');
    expect(error.message).toMatch(/redirect/i);
    // A browser's manual redirect is opaque (no status, no Location), so there the message can only
    // point at the network panel; in Node it names the fix.
    // In a browser the redirect is opaque (no Location): the message still names the likely fix.
    expect(error.message).toContain('trailingSlash: true');
    expect(error.message).toContain(`POST ${server.url}/users `);
    // Not followed: fetch would have turned the POST into a GET of /users/.
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /users']);
    expect(zed.phantom).toBe(true);
    expect(zed.dirty).toBe(true);
    expect(serverRows()).toEqual(SEED);
  });

  it('the preset builds every url with the slash, so nothing is redirected', async () => {
    const proxy = new RestProxy({ url: `${server.url}/users`, preset: 'django-rest', retry: 0 });
    expect(proxy.trailingSlash).toBe(true);
    class User extends Model<UserData> {
      static override fields = ['id', 'name', 'email', 'age'];
      static override proxy = proxy;
    }
    const zed = new User({ name: 'Zed', email: 'zed@example.com', age: 41 });
    await zed.save();
    await User.load(7);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /users/', 'GET /users/7/']);
    expect(server.requests.every((request) => request.method !== 'GET' || request.query.get('_dc') === null)).toBe(true);
    expect(serverRow(7)).toEqual(pick(zed.getData()));
  });
});
