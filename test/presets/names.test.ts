/**
 * Nothing on the wire, in messages or in client ids comes from a JS class name (a minifier renames
 * classes): the Rails root key comes from the model's entityName, else from the singular of the
 * resource url; messages and client ids use the entityName or the url's last segment. Also the
 * json-api preset's totals and `in` filter style, and the hint a 400 to a wrapped body gives.
 */
import { describe, expect, it } from 'vitest';
import { Model, Operation, ProxyError, registerPreset, RestProxy, Store } from '../../src/index.js';
import { jsonApiPreset, railsRootKey, singularize } from '../../src/presets.js';
import { recordingFetch } from '../helpers/recordingFetch.js';
import { proxyErrorOf } from '../helpers/proxyTestKit.js';

declare module '../../src/index.js' {
  interface Presets {
    'json-api-operators': true;
  }
}

interface ItemData {
  id: number;
  name: string;
}

/** The root key the rails preset wraps a create in, for a model and a url. */
function rootKeyFor(url: string, entityName = ''): string | undefined {
  class LocalThing extends Model<ItemData> {
    static override fields = ['id', 'name'];
    static override entityName = entityName;
  }
  const proxy = new RestProxy({ url });
  const request = proxy.buildRequest(new Operation({ action: 'create', records: [new LocalThing({ name: 'x' })], params: { userId: 1 } }));
  return railsRootKey(request);
}

describe('the Rails root key', () => {
  it.each([
    ['/api/users', 'user'],
    ['https://api.example.com/people', 'person'],
    ['/categories', 'category'],
    ['/api/blog_posts.json', 'blog_post'],
    ['/users/{userId}/posts', 'post'],
    ['/statuses', 'status'],
    ['/analyses', 'analysis'],
  ])('for %s is %s (from the url, never the class name)', (url, key) => {
    expect(rootKeyFor(url)).toBe(key);
  });

  it("is the model's entityName, in snake case, when it has one", () => {
    expect(rootKeyFor('/api/accounts', 'AdminUser')).toBe('admin_user');
  });

  it.each([
    ['users', 'user'], ['boxes', 'box'], ['wolves', 'wolf'], ['knives', 'knife'], ['mice', 'mouse'], ['children', 'child'],
    ['men', 'man'], ['news', 'news'], ['fish', 'fish'], ['series', 'series'], ['matrices', 'matrix'], ['indices', 'index'],
    ['quizzes', 'quiz'], ['buses', 'bus'], ['heroes', 'hero'], ['shoes', 'shoe'], ['addresses', 'address'], ['line_items', 'line_item'],
  ])('singularize(%s) is %s, as Rails inflects it', (plural, singular) => {
    expect(singularize(plural)).toBe(singular);
  });
});

describe('names in messages and client ids', () => {
  it("are the model's entityName, else its url's last segment, else 'Record'", () => {
    class LocalUser extends Model<ItemData> {
      static override fields = ['id', 'name'];
      static override proxy = { type: 'rest', url: '/api/users' };
    }
    class Named extends Model<ItemData> {
      static override fields = ['id', 'name'];
      static override entityName = 'User';
    }
    class Bare extends Model<ItemData> {
      static override fields = ['id', 'name'];
    }
    expect(new LocalUser().clientId).toMatch(/^users-\d+$/);
    expect(new Named().clientId).toMatch(/^User-\d+$/);
    expect(new Bare().clientId).toMatch(/^Record-\d+$/);
    // @ts-expect-error -- not a field (refused at run time too)
    expect(() => new LocalUser().set({ nmae: 'x' })).toThrow(/^users\.set: unknown field "nmae"/);
    expect(() => new Store({ model: LocalUser }).add(new Named())).toThrow(/Store of users: cannot add a record of User/);
  });
});

describe('a 400 to a write whose body was wrapped under a root key', () => {
  it("names the root key that was sent and how to change it", async () => {
    const fetch = recordingFetch(() => ({ status: 400, body: { status: 400, error: 'Bad Request' } }));
    const proxy = new RestProxy({ url: 'http://api.test/users', fetch, retry: 0, writer: { rootProperty: 'person' } });
    class LocalUser extends Model<ItemData> {
      static override fields = ['id', 'name'];
      static override proxy = proxy;
    }
    const error = await proxyErrorOf(new LocalUser({ name: 'Ed' }).save());
    expect(fetch.last().json).toEqual({ person: { name: 'Ed' } });
    expect(error.kind).toBe('http');
    expect(error.message).toContain('the body was sent wrapped in "person"');
    expect(error.message).toMatch(/set the model's entityName or the writer's rootProperty/);
  });
});

describe('the json-api preset', () => {
  it.each([
    [{ meta: { total: 7 } }],
    [{ meta: { totalItems: 7 } }],
    [{ meta: { page: { total: 7 } } }],
    [{ meta: { count: 7 } }],
    [{ meta: { 'record-count': 7 } }],
  ])('reads the total from %j, and sends no cache buster', async (envelope) => {
    await import('../../src/presets.js');
    const fetch = recordingFetch(() => ({ body: { data: [{ type: 'users', id: '1', attributes: { name: 'Ed' } }], ...envelope } }));
    const proxy = new RestProxy({ url: 'http://api.test/users', preset: 'json-api', fetch });
    const operation = await proxy.read(new Operation({ action: 'read', page: 1, limit: 25 }));
    expect(operation.resultSet?.total).toBe(7);
    expect(fetch.last().url).toBe('http://api.test/users?page%5Bnumber%5D=1&page%5Bsize%5D=25');
  });

  it("takes an `in` filter as filter[name]=a,b, or as filter[name][in]=a,b with jsonApiPreset({ inFilter: 'operator' })", async () => {
    registerPreset('json-api-operators', jsonApiPreset({ inFilter: 'operator' }));
    const read = async (preset: 'json-api' | 'json-api-operators'): Promise<string> => {
      const fetch = recordingFetch(() => ({ body: { data: [] } }));
      await new RestProxy({ url: 'http://api.test/users', preset, fetch }).read(new Operation({ action: 'read', filters: [{ property: 'name', operator: 'in', value: ['Ed', 'Bo'] }] }));
      return decodeURIComponent(fetch.last().url);
    };
    expect(await read('json-api')).toBe('http://api.test/users?filter[name]=Ed,Bo');
    expect(await read('json-api-operators')).toBe('http://api.test/users?filter[name][in]=Ed,Bo');
  });

  it('a refused filter says so as a ProxyError of kind config', async () => {
    const fetch = recordingFetch(() => ({ body: { data: [] } }));
    const error = await proxyErrorOf(new RestProxy({ url: 'http://api.test/users', preset: 'json-api', fetch }).read(new Operation({ action: 'read', filters: [{ property: 'name', operator: '>', value: 1 }] })));
    expect(error).toBeInstanceOf(ProxyError);
    expect(error.kind).toBe('config');
    expect(fetch.calls).toHaveLength(0);
  });
});
