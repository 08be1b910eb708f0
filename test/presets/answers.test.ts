/**
 * Answers that are not records, served with a 200 (a proxy or a misconfigured server does), must
 * never become one record made of the envelope: each preset refuses them as 'parse', naming what
 * it expected. The answers each framework really gives (the test server speaks its conventions)
 * are still read: pages, empty pages, one record, a created one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import '../../src/presets.js';
import { Model, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { proxyErrorOf as rejection } from '../helpers/proxyTestKit.js';
import { defineUser, startUsers, type PresetName, type UserData } from './fixtures.js';

const SEED: UserData[] = [
  { id: 1, name: 'Ed', email: 'ed@example.com', age: 30 },
  { id: 2, name: 'alice', email: 'alice@example.com', age: 25 },
];

let server: TestServer<{ users: UserData[] }> | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(preset: PresetName, rows: UserData[] = SEED): Promise<TestServer<{ users: UserData[] }>> {
  server = await startUsers(preset, rows);
  return server;
}

const COLLECTION = /^\/users\/?$/;

/** A store load answered 200 with `body` fails as 'parse' with a message matching `expected`, and reads nothing. */
async function refusedLoad(preset: PresetName, body: object, expected: RegExp): Promise<void> {
  const s = await start(preset);
  s.respond('GET', COLLECTION, { status: 200, body });
  const store = new Store({ model: defineUser(s.url, preset), pageSize: 25 });
  const error = await rejection(store.load());
  expect(error.kind).toBe('parse');
  expect(error.message).toMatch(expected);
  expect(error.body).toEqual(body);
  expect(store.getCount()).toBe(0);
}

describe('answers without records are refused, not read as one record', () => {
  it.each<[PresetName, object, RegExp]>([
    ['django-rest', { count: 2, next: null, previous: null, results: null }, /expected a list of records or a page \{ count, results: \[\.\.\.\] \}.*"results" is null/],
    ['django-rest', { detail: 'Invalid page.' }, /expected a list of records or a page \{ count, results.*got an object with: detail/],
    ['laravel', { message: 'Server Error' }, /expected a list of records or \{ data: \[\.\.\.\] \}.*got an object with: message/],
    ['laravel', { current_page: 1, per_page: 15, total: 2 }, /got an object with: current_page, per_page, total/],
    ['laravel', { data: 'nothing', total: 2 }, /"data" is a string/],
    ['spring-data-rest', { timestamp: '2026-01-01T00:00:00Z', status: 500, error: 'Internal Server Error', path: '/users' }, /expected a list of records or a HAL collection.*got an object with: timestamp, status, error, path/],
    ['rails', { error: 'Internal Server Error', status: 500 }, /expected a list of records.*got an object with: error, status/],
    ['rails', { errors: { name: ["can't be blank"] } }, /expected a list of records.*got an object with: errors/],
    ['rails', { users: SEED, total: 2 }, /set the reader's rootProperty to 'users'/],
    ['json-api', { errors: [{ status: '500', title: 'Internal Server Error' }] }, /no records at "data"/],
    ['json-api', { data: null }, /no records at "data"/],
    ['json-api', { data: [{ name: 'Ed' }] }, /a record of the answer is not a JSON:API resource object \(it has no type; it has: name\)/],
  ])('%s: %j', async (preset, body, expected) => {
    await refusedLoad(preset, body, expected);
  });

  it('json-server: an object served for a list is refused too', async () => {
    server = await startTestServer({ resources: { users: SEED.map((user) => ({ ...user })) } });
    const s = server;
    s.respond('GET', '/users', { status: 200, body: { error: 'Internal Server Error' } });
    class User extends Model<UserData> {
      static override fields = [{ name: 'id', type: 'int' }, 'name', 'email', { name: 'age', type: 'int' }];
      static override proxy = { type: 'rest', url: `${s.url}/users`, preset: 'json-server', retry: 0 };
    }
    const error = await rejection(new Store({ model: User, pageSize: 25 }).load());
    expect(error.kind).toBe('parse');
    expect(error.message).toMatch(/expected a list of records, but got an object with: error/);
    // Its real answers are read: a list, and one record.
    s.reset();
    const store = new Store({ model: User, pageSize: 0 });
    await store.load();
    expect(store.getRange().map((record) => record.getId())).toEqual([1, 2]);
    expect((await User.load(2)).getData()).toEqual(SEED[1]);
  });

  it('spring-data-rest: a collection with only _links (Spring leaves _embedded out when it is empty) is zero records', async () => {
    const s = await start('spring-data-rest');
    s.respond('GET', COLLECTION, { status: 200, headers: { 'Content-Type': 'application/hal+json' }, body: { _links: { self: { href: `${s.url}/users` }, profile: { href: `${s.url}/profile/users` } } } });
    const store = new Store({ model: defineUser(s.url, 'spring-data-rest'), pageSize: 0 });
    expect(await store.load()).toEqual([]);
    expect(store.getCount()).toBe(0);
    expect(store.getTotalCount()).toBe(0);
  });
});

describe('the answers the frameworks give are still read', () => {
  const presets: PresetName[] = ['django-rest', 'laravel', 'spring-data-rest', 'rails', 'json-api'];

  it.each(presets)('%s: a page, one record, a created record, and an empty collection', async (preset) => {
    const s = await start(preset);
    const User = defineUser(s.url, preset);
    const store = new Store({ model: User, pageSize: 25 });
    await store.load();
    expect(store.getRange().map((record) => record.getData())).toEqual(SEED);
    expect(store.getTotalCount()).toBe(2);
    const ed = await User.load(1);
    expect(ed.getData()).toEqual(SEED[0]);
    const dee = new User({ name: 'Dee', email: 'dee@example.com', age: 50 });
    await dee.save();
    expect(dee.getData()).toEqual({ id: 3, name: 'Dee', email: 'dee@example.com', age: 50 });

    s.db.users.splice(0);
    await store.load();
    expect(store.getCount()).toBe(0);
    expect(store.getTotalCount()).toBe(0);
  });

  it.each<[PresetName, object]>([
    ['django-rest', SEED], // without pagination, a bare list
    ['laravel', SEED], // User::all()
    ['laravel', { data: [], meta: { total: 0 } }],
    ['django-rest', { count: 0, next: null, previous: null, results: [] }],
  ])('%s: reads %j', async (preset, body) => {
    const s = await start(preset);
    s.respond('GET', COLLECTION, { status: 200, body });
    const store = new Store({ model: defineUser(s.url, preset), pageSize: 25 });
    await store.load();
    expect(store.getRange().map((record) => record.getData())).toEqual(Array.isArray(body) ? body : []);
  });

  it('laravel and django-rest: one record answered bare (return $user; a retrieve) is read', async () => {
    for (const preset of ['laravel', 'django-rest'] as const) {
      const s = await start(preset);
      s.respond('GET', /^\/users\/2\/?$/, { status: 200, body: SEED[1] });
      expect((await defineUser(s.url, preset).load(2)).getData()).toEqual(SEED[1]);
      await s.close();
    }
  });

  it('spring-data-rest: one entity with an inlined association (_embedded, from a projection) is read as itself', async () => {
    const s = await start('spring-data-rest');
    s.respond('GET', '/users/2', {
      status: 200,
      headers: { 'Content-Type': 'application/hal+json' },
      body: { name: 'alice', email: 'alice@example.com', age: 25, _embedded: { team: { name: 'Core' } }, _links: { self: { href: `${s.url}/users/2` } } },
    });
    expect((await defineUser(s.url, 'spring-data-rest').load(2)).getData()).toMatchObject({ ...SEED[1] });
  });
});

describe('spring-data-rest: a _links.self.href with a malformed escape', () => {
  const user = (name: string, href: string, extra: object = {}) => ({ name, email: `${name}@example.com`, age: 20, ...extra, _links: { self: { href } } });

  it("is ignored when the record has its id elsewhere (exposeIdsFor): the page is read", async () => {
    const s = await start('spring-data-rest');
    s.respond('GET', COLLECTION, { status: 200, body: { _embedded: { users: [user('ed', `${s.url}/users/%E0%A4%A`, { id: 7 }), user('al', `${s.url}/users/8`)] }, page: { size: 20, totalElements: 2, totalPages: 1, number: 0 } } });
    const store = new Store({ model: defineUser(s.url, 'spring-data-rest'), pageSize: 20 });
    await store.load();
    expect(store.getRange().map((record) => record.getId())).toEqual([7, 8]);
  });

  it("fails the load as 'parse' naming the link when it is the only id", async () => {
    const s = await start('spring-data-rest');
    s.respond('GET', COLLECTION, { status: 200, body: { _embedded: { users: [user('al', `${s.url}/users/8`), user('ed', `${s.url}/users/%E0%A4%A`)] } } });
    const store = new Store({ model: defineUser(s.url, 'spring-data-rest'), pageSize: 20 });
    const error = await rejection(store.load());
    expect(error.kind).toBe('parse');
    expect(error.message).toContain(`the _links.self.href "${s.url}/users/%E0%A4%A" of a record of the answer cannot be decoded (it is not valid percent-encoded UTF-8), so the record has no id`);
    expect(store.getCount()).toBe(0);
  });
});
