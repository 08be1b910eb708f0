/**
 * The exact requests each preset sends for the scenario of docs/presets.md, observed by the
 * project's test server speaking that framework's conventions (json-server's own are observed
 * against the real json-server in json-server.e2e.test.ts):
 *   - load page 2 of 25, sorted by name DESC then age ASC, with a filter name like 'ed';
 *   - create; update of id 2; destroy of id 2.
 * The cache buster's value is shown as `<now>`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// The built-in presets are registered where they are imported, as in an app.
import '../../src/presets.js';
import { Model, ProxyError, Store, type FilterOf, type SorterOf } from '../../src/index.js';
import { startTestServer, type RecordedRequest, type TestServer } from '../server/index.js';
import type { PresetName, UserData } from './fixtures.js';

const NAMES = ['Ed', 'Fred', 'Eddie', 'Ted', 'Alice', 'Bob'];
const SEED: UserData[] = Array.from({ length: 30 }, (_, i) => ({
  id: i + 1,
  name: NAMES[i % NAMES.length] ?? 'X',
  email: `user${i + 1}@example.com`,
  age: 20 + (i % 7),
}));

const SORTERS: SorterOf<Model<UserData>>[] = [
  { property: 'name', direction: 'DESC' },
  { property: 'age', direction: 'ASC' },
];
const LIKE_ED: FilterOf<Model<UserData>> = { property: 'name', operator: 'like', value: 'ed' };
const EQUALS_ED: FilterOf<Model<UserData>> = { property: 'name', value: 'Ed' };

interface Expected {
  preset: PresetName;
  /** the page-2 request, or the refusal of the like filter and the request with `name = 'Ed'` instead */
  load: { url: string } | { refused: RegExp; urlWithEquality: string };
  /** the body as sent (the raw JSON text) */
  create: { line: string; body: string; contentType: string };
  update: { line: string; body: string };
  destroy: { line: string };
  accept: string;
}

const EXPECTED: Expected[] = [
  {
    preset: 'django-rest',
    load: { url: '/users/?page=2&page_size=25&ordering=-name%2Cage&name__icontains=ed' },
    create: { line: 'POST /users/', body: '{"name":"Nia","email":"nia@example.com","age":28}', contentType: 'application/json' },
    update: { line: 'PUT /users/2/', body: '{"name":"Fred","email":"user2@example.com","age":99,"id":2}' },
    destroy: { line: 'DELETE /users/2/' },
    accept: 'application/json',
  },
  {
    preset: 'rails',
    load: {
      refused: /rails has no "like" filter \(on "name"\)/,
      urlWithEquality: '/users?_dc=<now>&page=2&per_page=25&sort=-name%2Cage&name=Ed',
    },
    create: { line: 'POST /users', body: '{"user":{"name":"Nia","email":"nia@example.com","age":28}}', contentType: 'application/json' },
    update: { line: 'PUT /users/2', body: '{"user":{"name":"Fred","email":"user2@example.com","age":99,"id":2}}' },
    destroy: { line: 'DELETE /users/2' },
    accept: 'application/json',
  },
  {
    preset: 'laravel',
    load: { url: '/users?_dc=<now>&page=2&per_page=25&sort=-name%2Cage&filter%5Bname%5D=ed' },
    create: { line: 'POST /users', body: '{"name":"Nia","email":"nia@example.com","age":28}', contentType: 'application/json' },
    update: { line: 'PUT /users/2', body: '{"name":"Fred","email":"user2@example.com","age":99,"id":2}' },
    destroy: { line: 'DELETE /users/2' },
    accept: 'application/json',
  },
  {
    preset: 'spring-data-rest',
    load: {
      refused: /spring-data-rest has no "like" filter \(on "name"\)/,
      urlWithEquality: '/users?_dc=<now>&page=1&size=25&sort=name%2Cdesc&sort=age%2Casc&name=Ed',
    },
    create: { line: 'POST /users', body: '{"name":"Nia","email":"nia@example.com","age":28}', contentType: 'application/json' },
    update: { line: 'PUT /users/2', body: '{"name":"Fred","email":"user2@example.com","age":99,"id":2}' },
    destroy: { line: 'DELETE /users/2' },
    accept: 'application/json',
  },
  {
    preset: 'json-api',
    load: {
      refused: /json-api has no "like" filter \(on "name"\)/,
      // No cache buster: JSON:API servers refuse query params outside its families.
      urlWithEquality: '/users?page%5Bnumber%5D=2&page%5Bsize%5D=25&sort=-name%2Cage&filter%5Bname%5D=Ed',
    },
    create: {
      line: 'POST /users',
      body: '{"data":{"type":"users","attributes":{"name":"Nia","email":"nia@example.com","age":28}}}',
      contentType: 'application/vnd.api+json',
    },
    update: { line: 'PATCH /users/2', body: '{"data":{"type":"users","id":"2","attributes":{"age":99}}}' },
    destroy: { line: 'DELETE /users/2' },
    accept: 'application/vnd.api+json',
  },
];

let server: TestServer<{ users: UserData[] }>;

afterEach(async () => {
  await server.close();
});

function shown(request: RecordedRequest): string {
  return request.url.replace(/_dc=\d+/, '_dc=<now>');
}

function last(): RecordedRequest {
  const request = server.requests[server.requests.length - 1];
  if (request === undefined) throw new Error('no request');
  return request;
}

for (const expected of EXPECTED) {
  describe(`the requests of preset '${expected.preset}'`, () => {
    beforeEach(async () => {
      server = await startTestServer({ conventions: expected.preset, resources: { users: SEED.map((user) => ({ ...user })) } });
    });

    function defineUser() {
      class User extends Model<UserData> {
        static override fields = [{ name: 'id', type: 'int' }, 'name', 'email', { name: 'age', type: 'int' }];
        static override proxy = { type: 'rest', url: `${server.url}/users`, preset: expected.preset, retry: 0 };
      }
      return User;
    }

    it('load page 2 of 25 sorted by name DESC then age ASC, filtered on name like "ed"', async () => {
      const store = new Store({ model: defineUser(), pageSize: 25, remoteSort: true, remoteFilter: true, sorters: SORTERS, filters: [LIKE_ED] });
      const load = expected.load;
      if ('url' in load) {
        await store.loadPage(2);
        expect(shown(last())).toBe(load.url);
        expect(last().headers.accept).toBe(expected.accept);
        return;
      }
      let error: unknown;
      try {
        await store.loadPage(2);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ProxyError);
      expect(error instanceof ProxyError ? error.kind : undefined).toBe('config');
      expect(String(error)).toMatch(load.refused);
      expect(server.requests).toEqual([]);

      await store.filter([EQUALS_ED]);
      await store.loadPage(2);
      expect(shown(last())).toBe(load.urlWithEquality);
    });

    it('create, update of id 2, destroy of id 2', async () => {
      const User = defineUser();
      const nia = new User({ name: 'Nia', email: 'nia@example.com', age: 28 });
      await nia.save();
      const create = last();
      expect(`${create.method} ${shown(create)}`).toBe(expected.create.line);
      expect(create.body).toBe(expected.create.body);
      expect(create.headers['content-type']).toBe(expected.create.contentType);
      expect(create.headers.accept).toBe(expected.accept);

      const two = new User({ id: 2, name: 'Fred', email: 'user2@example.com', age: 21 });
      two.set('age', 99);
      await two.save();
      const update = last();
      expect(`${update.method} ${shown(update)}`).toBe(expected.update.line);
      expect(update.body).toBe(expected.update.body);
      expect(update.headers['content-type']).toBe(expected.create.contentType);

      await two.destroy();
      const destroy = last();
      expect(`${destroy.method} ${shown(destroy)}`).toBe(expected.destroy.line);
      expect(destroy.body).toBe('');
      expect(destroy.headers['content-type']).toBeUndefined();
      expect(destroy.headers.accept).toBe(expected.accept);
      expect(server.db.users.some((row) => row.id === 2)).toBe(false);
    });
  });
}
