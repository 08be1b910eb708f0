/**
 * The preset registry: `registerPreset` of a custom preset (used through a RestProxy, a Model's
 * `static proxy` and a Store's proxy config), explicit options beside a preset winning, an
 * unknown preset name, and the presets of servers without batch endpoints refusing batchActions.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// The built-in presets are registered where they are imported, as in an app.
import '../../src/presets.js';
import { createProxy, JsonReader, Model, presetNames, registerPreset, RestProxy, Store, type Preset } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';

// Custom presets are declared for type checking, as an app that registers one does.
declare module '../../src/index.js' {
  interface Presets {
    'plain-envelope': true;
    copied: true;
    'with-params': true;
    'no-batch': true;
    batch: true;
  }
}

const BUILT_IN = ['json-server', 'django-rest', 'rails', 'laravel', 'spring-data-rest', 'json-api'];

function typeErrorOf(make: () => unknown): TypeError {
  try {
    make();
  } catch (error) {
    if (error instanceof TypeError) return error;
    throw new Error(`expected a TypeError, got ${String(error)}`);
  }
  throw new Error('expected a TypeError, but nothing was thrown');
}

describe('registerPreset: a custom preset', () => {
  let server: TestServer;

  beforeEach(async () => {
    server = await startTestServer({
      resources: { users: Array.from({ length: 7 }, (_, i) => ({ id: i + 1, name: `User ${i + 1}`, age: 20 + i })) },
      envelope: true,
    });
  });

  afterEach(async () => {
    await server.close();
  });

  // The test server's plain conventions with the envelope: { success, total, data }, Ext-style
  // params. A preset turns the defaults into exactly that, plus simple sorting and a header.
  const plainEnvelope: Preset = {
    startParam: 'start',
    pageParam: null,
    limitParam: 'limit',
    simpleSortMode: true,
    noCache: false,
    headers: { 'X-Client': 'rest-proxy' },
    reader: { rootProperty: 'data', totalProperty: 'total' },
  };

  it('is listed, and a RestProxy, a Model and a Store proxy config all use it', async () => {
    registerPreset('plain-envelope', plainEnvelope);
    expect(presetNames()).toEqual([...BUILT_IN, 'plain-envelope']);

    const proxy = new RestProxy({ url: `${server.url}/users`, preset: 'plain-envelope' });
    expect(proxy.preset).toBe('plain-envelope');
    expect(proxy.pageParam).toBeNull();
    expect(proxy.reader.rootProperty).toBe('data');
    expect(proxy.headers).toEqual({ 'X-Client': 'rest-proxy' });

    class User extends Model<{ id: number; name: string; age: number }> {
      static override fields = ['id', 'name', 'age'];
      static override proxy = { type: 'rest', url: `${server.url}/users`, preset: 'plain-envelope' };
    }
    const store = new Store({ model: User, pageSize: 3, remoteSort: true });
    await store.sort('age', 'DESC');
    await store.loadPage(2);
    const request = server.requests[server.requests.length - 1];
    expect(request?.url).toBe('/users?start=3&limit=3&sort=age&dir=DESC');
    expect(request?.headers['x-client']).toBe('rest-proxy');
    expect(store.getTotalCount()).toBe(7);
    expect(store.getRange().map((record) => record.get('age'))).toEqual([23, 22, 21]);

    const other = new Store({ model: User, proxy: { type: 'rest', url: `${server.url}/users`, preset: 'plain-envelope' }, pageSize: 0 });
    await other.load();
    expect(other.getCount()).toBe(7);
    expect(other.proxy).toBeInstanceOf(RestProxy);
    expect(other.proxy instanceof RestProxy ? other.proxy.preset : undefined).toBe('plain-envelope');
  });

  it('replaces a preset of the same name, and the registered object is copied (later edits to it change nothing)', () => {
    const preset: Preset = { limitParam: 'n', reader: { rootProperty: 'items' } };
    registerPreset('copied', preset);
    preset.limitParam = 'changed';
    if (preset.reader) preset.reader.rootProperty = 'changed';
    expect(new RestProxy({ url: '/x', preset: 'copied' }).limitParam).toBe('n');
    expect(new RestProxy({ url: '/x', preset: 'copied' }).reader.rootProperty).toBe('items');
    registerPreset('copied', { limitParam: 'size' });
    expect(new RestProxy({ url: '/x', preset: 'copied' }).limitParam).toBe('size');
  });

  it('checks the preset when it is registered: the error names the preset and the option', () => {
    expect(typeErrorOf(() => registerPreset('', {})).message).toMatch(/non-empty string/);
    // @ts-expect-error -- a preset is an object of options
    expect(typeErrorOf(() => registerPreset('bad', 'page')).message).toContain('preset "bad" must be an object');
    // @ts-expect-error -- an unknown option
    expect(typeErrorOf(() => registerPreset('typo', { pageParm: 'p' })).message).toMatch(/preset "typo".*unknown option "pageParm"/);
    // @ts-expect-error -- an ill-typed option
    expect(typeErrorOf(() => registerPreset('ill', { trailingSlash: 'yes' })).message).toMatch(/preset "ill".*trailingSlash must be a boolean/);
    // @ts-expect-error -- a reader config with an unknown option
    expect(typeErrorOf(() => registerPreset('reader', { reader: { root: 'data' } })).message).toMatch(/preset "reader".*unknown option "root"/);
    // @ts-expect-error -- the url belongs to each proxy
    expect(typeErrorOf(() => registerPreset('url', { url: '/users' })).message).toMatch(/preset "url".*url belongs to each proxy/);
    expect(typeErrorOf(() => registerPreset('contradiction', { supportsBatch: false, batchActions: true })).message).toMatch(/batchActions/);
    expect(presetNames()).not.toContain('typo');
  });
});

describe('explicit options beside a preset win', () => {
  it('plain options replace the preset\'s', () => {
    const proxy = new RestProxy({ url: '/users', preset: 'django-rest', trailingSlash: false, limitParam: 'size', noCache: true });
    expect(proxy.trailingSlash).toBe(false);
    expect(proxy.limitParam).toBe('size');
    expect(proxy.pageParam).toBe('page');
    expect(proxy.noCache).toBe(true);
  });

  it('reader and writer configs are merged with the preset\'s, the given entries winning', () => {
    const proxy = new RestProxy({ url: '/users', preset: 'rails', reader: { totalHeader: 'X-Total' }, writer: { writeAllFields: false } });
    expect(proxy.reader.totalHeader).toBe('X-Total');
    expect(proxy.reader.transformRecord).toEqual(expect.any(Function));
    expect(proxy.writer.rootProperty).toEqual(expect.any(Function));
    expect(proxy.writer.writeAllFields).toBe(false);

    // a reader instance replaces the preset's reader whole
    const reader = new JsonReader({ rootProperty: 'items' });
    expect(new RestProxy({ url: '/users', preset: 'django-rest', reader }).reader).toBe(reader);
  });

  it('headers, actionMethods and extraParams are added to the preset\'s, entry by entry', () => {
    const jsonApi = new RestProxy({ url: '/users', preset: 'json-api', headers: { Authorization: 'Bearer t' }, actionMethods: { create: 'PUT' } });
    expect(jsonApi.headers).toEqual({ Accept: 'application/vnd.api+json', Authorization: 'Bearer t' });
    // a partial actionMethods keeps the preset's PATCH for updates
    expect(jsonApi.actionMethods).toEqual({ create: 'PUT', read: 'GET', update: 'PATCH', destroy: 'DELETE' });

    const put = new RestProxy({ url: '/users', preset: 'json-api', actionMethods: { update: 'PUT' }, headers: { Accept: 'application/json' } });
    expect(put.actionMethods.update).toBe('PUT');
    expect(put.headers).toEqual({ Accept: 'application/json' });

    registerPreset('with-params', { extraParams: { format: 'json', v: 1 } });
    expect(new RestProxy({ url: '/x', preset: 'with-params', extraParams: { v: 2, tenant: 5 } }).extraParams).toEqual({ format: 'json', v: 2, tenant: 5 });
  });

  it('an option given as undefined counts as not given (the preset\'s value stays); null turns a param off', () => {
    const options: { trailingSlash?: boolean; limitParam?: string | null } = {};
    const django = new RestProxy({ url: '/users', preset: 'django-rest', trailingSlash: options.trailingSlash, limitParam: options.limitParam, reader: { totalProperty: undefined } });
    expect(django.trailingSlash).toBe(true);
    expect(django.limitParam).toBe('page_size');
    expect(django.reader.totalProperty).toBe('count');
    expect(new RestProxy({ url: '/users', preset: 'django-rest', limitParam: null }).limitParam).toBeNull();
  });

  it('an ill-typed option beside a preset is still reported by name', () => {
    // @ts-expect-error -- headers must be an object
    expect(typeErrorOf(() => new RestProxy({ url: '/users', preset: 'json-api', headers: 'Accept: x' })).message).toContain('headers');
  });
});

describe('an unknown preset', () => {
  it('is a TypeError naming it and listing the registered ones, from every way of making a proxy', () => {
    const makers: (() => unknown)[] = [
      // @ts-expect-error -- a misspelt preset does not compile either
      () => new RestProxy({ url: '/users', preset: 'djnago-rest' }),
      () => createProxy({ type: 'rest', url: '/users', preset: 'djnago-rest' }),
      () => new Store({ proxy: { type: 'rest', url: '/users', preset: 'djnago-rest' } }),
      () => {
        class Thing extends Model {
          static override proxy = { type: 'rest', url: '/things', preset: 'djnago-rest' };
        }
        return Thing.getProxy();
      },
    ];
    for (const make of makers) {
      const error = typeErrorOf(make);
      expect(error.message).toContain('"djnago-rest"');
      for (const name of BUILT_IN) expect(error.message).toContain(`"${name}"`);
    }
  });
});

describe('batchActions with a server that has no batch endpoint', () => {
  it('json-server + batchActions: true is a TypeError (json-server would store a POSTed array as one record)', () => {
    const error = typeErrorOf(() => new RestProxy({ url: '/users', preset: 'json-server', batchActions: true }));
    expect(error.message).toContain('batchActions');
    expect(error.message).toContain('"json-server"');
    expect(typeErrorOf(() => createProxy({ type: 'rest', url: '/users', preset: 'json-server', batchActions: true })).message).toContain('batchActions');
  });

  it('batchActions: false (the default) is fine', () => {
    expect(new RestProxy({ url: '/users', preset: 'json-server', batchActions: false }).batchActions).toBe(false);
    expect(new RestProxy({ url: '/users', preset: 'json-server' }).batchActions).toBe(false);
  });

  it('a custom preset says so with supportsBatch: false', () => {
    registerPreset('no-batch', { supportsBatch: false });
    expect(typeErrorOf(() => new RestProxy({ url: '/x', preset: 'no-batch', batchActions: true })).message).toContain('"no-batch"');
    registerPreset('batch', { supportsBatch: true });
    expect(new RestProxy({ url: '/x', preset: 'batch', batchActions: true }).batchActions).toBe(true);
  });
});
