/**
 * The answers and filters the presets meet beyond the common scenario, over HTTP against the
 * test server (scripted answers where a framework has several shapes): Rails' root-wrapped
 * answers and `{ errors: {...} }`, Laravel's bare paginator `{ data, total }` and Spatie's
 * partial filters, Spring's empty HAL page, JSON:API with a mapped id field, and the filters
 * that would silently match the wrong records (an empty `in`, a comma inside a comma list),
 * which are refused before anything is sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
// The built-in presets are registered where they are imported, as in an app.
import '../../src/presets.js';
import { Model, Store, type FilterOf } from '../../src/index.js';
import type { RecordedRequest, TestServer } from '../server/index.js';
import { proxyErrorOf as rejection } from '../helpers/proxyTestKit.js';
import { defineUser, startUsers, type PresetName, type UserData } from './fixtures.js';

const SEED: UserData[] = [
  { id: 1, name: 'Ed', email: 'ed@example.com', age: 30 },
  { id: 2, name: 'alice', email: 'alice@example.com', age: 25 },
  { id: 3, name: 'Bob', email: 'bob@example.com', age: 41 },
];

let server: TestServer<{ users: UserData[] }> | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(preset: PresetName): Promise<TestServer<{ users: UserData[] }>> {
  server = await startUsers(preset, SEED);
  return server;
}

function lastOf(requests: readonly RecordedRequest[]): RecordedRequest {
  const request = requests[requests.length - 1];
  if (request === undefined) throw new Error('no request');
  return request;
}

describe('rails', () => {
  it('reads root-wrapped answers (include_root_in_json): a list, one record and a created one', async () => {
    const s = await start('rails');
    s.respond('GET', '/users', { status: 200, headers: { 'X-Total-Count': '3' }, body: SEED.map((user) => ({ user })) }, { times: 1 });
    s.respond('GET', '/users/3', { status: 200, body: { user: SEED[2] } }, { times: 1 });
    // Self-contained: in the browser run the function runs in the hub (test/server/API.md).
    s.respond('POST', '/users', (req) => {
      const sent: unknown = req.json;
      const user = typeof sent === 'object' && sent !== null && 'user' in sent && typeof sent.user === 'object' && sent.user !== null ? sent.user : {};
      return { status: 201, body: { user: { id: 4, ...user } } };
    }, { times: 1 });
    const User = defineUser(s.url, 'rails');

    const store = new Store({ model: User, pageSize: 0 });
    await store.load();
    expect(store.getRange().map((record) => record.getData())).toEqual(SEED);
    expect(store.getTotalCount()).toBe(3);

    const bob = await User.load(3);
    expect(bob.getData()).toEqual(SEED[2]);

    const dee = new User({ name: 'Dee', email: 'dee@example.com', age: 50 });
    await dee.save();
    expect(lastOf(s.requests).json).toEqual({ user: { name: 'Dee', email: 'dee@example.com', age: 50 } });
    expect(dee.getData()).toEqual({ id: 4, name: 'Dee', email: 'dee@example.com', age: 50 });
    expect(dee.phantom).toBe(false);
  });

  it('reads a 422 { errors: { field: [...] } } as field errors', async () => {
    const s = await start('rails');
    s.respond('PUT', '/users/1', { status: 422, body: { errors: { email: ['has already been taken'] } } });
    const User = defineUser(s.url, 'rails');
    const ed = new User(SEED[0]);
    ed.set('email', 'bob@example.com');
    const error = await rejection(ed.save());
    expect(error.kind).toBe('validation');
    expect(error.fieldErrors).toEqual({ email: ['has already been taken'] });
    expect(ed.errors).toEqual({ email: ['has already been taken'] });
    expect(ed.dirty).toBe(true);
  });

  it('wraps the body under the model\'s entity name, snake_cased (BlogPost -> blog_post)', async () => {
    const s = await start('rails');
    class BlogPost extends Model<{ id: number; title: string }> {
      static override fields = ['id', 'title'];
      static override proxy = { type: 'rest', url: `${s.url}/blog_posts`, preset: 'rails', retry: 0 };
    }
    await new BlogPost({ title: 'Hello' }).save();
    expect(lastOf(s.requests).json).toEqual({ blog_post: { title: 'Hello' } });
    expect(s.db.blog_posts).toEqual([{ id: 1, title: 'Hello' }]);
  });
});

describe('laravel', () => {
  it('reads a bare paginator { data, total } as well as { data, meta: { total } }', async () => {
    const s = await start('laravel');
    s.respond('GET', '/users', { status: 200, body: { data: SEED.slice(0, 2), total: 40, per_page: 2, current_page: 1 } }, { times: 1 });
    const store = new Store({ model: defineUser(s.url, 'laravel'), pageSize: 2 });
    await store.load();
    expect(store.getRange().map((record) => record.getData())).toEqual(SEED.slice(0, 2));
    expect(store.getTotalCount()).toBe(40);

    await store.loadPage(2);
    expect(lastOf(s.requests).query.get('page')).toBe('2');
    expect(store.getRange().map((record) => record.getId())).toEqual([3]);
    expect(store.getTotalCount()).toBe(3);
  });

  it('sends like as filter[field] (Spatie\'s default partial filter) and in comma-separated', async () => {
    const s = await start('laravel');
    const store = new Store({ model: defineUser(s.url, 'laravel'), pageSize: 0, remoteFilter: true });
    await store.filter([
      { property: 'name', operator: 'like', value: 'ed' },
      { property: 'age', operator: 'in', value: [25, 30] },
    ]);
    const query = lastOf(s.requests).query;
    expect(query.get('filter[name]')).toBe('ed');
    expect(query.get('filter[age]')).toBe('25,30');
  });
});

describe('spring-data-rest', () => {
  it('reads a page without _embedded (an empty page) as no records, not as one record made of the page', async () => {
    const s = await start('spring-data-rest');
    s.respond('GET', '/users', {
      status: 200,
      headers: { 'Content-Type': 'application/hal+json' },
      body: { _links: { self: { href: `${s.url}/users?page=5&size=2` } }, page: { size: 2, totalElements: 3, totalPages: 2, number: 5 } },
    });
    const store = new Store({ model: defineUser(s.url, 'spring-data-rest'), pageSize: 2 });
    const records = await store.loadPage(6);
    expect(records).toEqual([]);
    expect(store.getCount()).toBe(0);
    expect(store.getTotalCount()).toBe(3);
  });

  it('takes ids from _links.self.href, also into a mapped id field, and sends in as a repeated param', async () => {
    const s = await start('spring-data-rest');
    class Person extends Model<{ key: number; name: string }> {
      static override idProperty = 'key';
      static override fields = [{ name: 'key', type: 'int', mapping: 'id' }, 'name'];
      static override proxy = { type: 'rest', url: `${s.url}/users`, preset: 'spring-data-rest', retry: 0 };
    }
    const store = new Store({ model: Person, pageSize: 0, remoteFilter: true });
    await store.filter('name', ['Ed', 'Bob'], 'in');
    expect(lastOf(s.requests).query.getAll('name')).toEqual(['Ed', 'Bob']);
    expect(store.getRange().map((record) => record.getId())).toEqual([1, 2, 3]);
    const bob = await Person.load(3);
    expect(bob.getData()).toMatchObject({ key: 3, name: 'Bob' });
  });
});

describe('json-api', () => {
  it('with a mapped id field: the id goes to the resource id, never into the attributes', async () => {
    const s = await start('json-api');
    class Person extends Model<{ key: number; name: string; email: string }> {
      static override idProperty = 'key';
      static override fields = [{ name: 'key', type: 'int', mapping: 'id' }, 'name', 'email'];
      static override proxy = { type: 'rest', url: `${s.url}/users`, preset: 'json-api', retry: 0 };
    }
    const bob = await Person.load(3);
    expect(bob.getData()).toMatchObject({ key: 3, name: 'Bob', email: 'bob@example.com' });
    bob.set('email', 'robert@example.com');
    await bob.save();
    expect(lastOf(s.requests).json).toEqual({ data: { type: 'users', id: '3', attributes: { email: 'robert@example.com' } } });
    expect(s.db.users.find((row) => row.id === 3)).toEqual({ id: 3, name: 'Bob', email: 'robert@example.com', age: 41 });

    const dee = new Person({ name: 'Dee', email: 'dee@example.com' });
    await dee.save();
    expect(lastOf(s.requests).json).toEqual({ data: { type: 'users', attributes: { name: 'Dee', email: 'dee@example.com' } } });
    expect(dee.getId()).toBe(4);
  });
});

describe('django-rest', () => {
  it('sends search=, lookups (name__icontains, age__gte) and in comma-separated', async () => {
    const s = await start('django-rest');
    const store = new Store({ model: defineUser(s.url, 'django-rest'), pageSize: 25, remoteFilter: true });
    await store.filter('anything', 'ALI', 'search');
    expect(lastOf(s.requests).url).toBe('/users/?page=1&page_size=25&search=ALI');
    expect(store.getRange().map((record) => record.get('name'))).toEqual(['alice']);

    await store.clearFilter();
    await store.filter([
      { property: 'name', operator: 'like', value: 'ed' },
      { property: 'age', operator: '>=', value: 30 },
      { property: 'id', operator: 'in', value: [1, 3] },
    ]);
    expect(lastOf(s.requests).url).toBe('/users/?page=1&page_size=25&name__icontains=ed&age__gte=30&id__in=1%2C3');
  });
});

describe('filters that would silently match the wrong records are refused before anything is sent', () => {
  const cases: [PresetName, FilterOf<Model<UserData>>, RegExp][] = [
    ['django-rest', { property: 'id', operator: 'in', value: [] }, /has no values/],
    ['laravel', { property: 'name', operator: 'in', value: [] }, /has no values/],
    ['spring-data-rest', { property: 'name', operator: 'in', value: [] }, /has no values/],
    ['json-api', { property: 'name', value: 'Smith, John' }, /has a value with a comma .*"Smith" or " John"/],
    ['laravel', { property: 'name', operator: 'in', value: ['Ed', 'Smith, John'] }, /has a value with a comma/],
    ['django-rest', { property: 'name', operator: 'in', value: ['a,b'] }, /has a value with a comma/],
    ['rails', { property: 'name', operator: 'in', value: ['Ed'] }, /rails has no "in" filter/],
    ['django-rest', { property: 'name', operator: '!=', value: 'Ed' }, /django-filter has no "!=" filter/],
  ];

  it.each(cases)('%s: %o', async (preset, filter, message) => {
    const s = await start(preset);
    const store = new Store({ model: defineUser(s.url, preset), pageSize: 25, remoteFilter: true });
    const error = await rejection(store.filter([filter]));
    expect(error.kind).toBe('config');
    expect(error.message).toMatch(message);
    expect(s.requests).toEqual([]);
  });
});
