/**
 * ServerProxy (API.md section 2): url precedence, params and their names, the default JSON
 * encodings, simpleSortMode / simpleGroupMode, extraParams precedence, the cache buster (reads
 * only, idempotent buildUrl) and overridable encodeSorters / encodeFilters.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AjaxProxy, Model, Operation, Request as ProxyRequest, RestProxy, ServerProxy } from '../../src/index.js';
import { recordingFetch, type RecordingFetch } from '../helpers/recordingFetch.js';
import { pathOf, proxyErrorOf, queryOf, serverLike } from '../helpers/proxyTestKit.js';

class User extends Model<{ id: number; name: string; age: number }> {
  static override fields = ['id', 'name', 'age'];
}

const NOW = 1_700_000_000_000;
const URL_BASE = 'http://api.test/users';
let fetch: RecordingFetch;

type AjaxConfig = NonNullable<ConstructorParameters<typeof AjaxProxy>[0]>;
type RestConfig = NonNullable<ConstructorParameters<typeof RestProxy>[0]>;

function ajaxProxy(config: AjaxConfig = {}): AjaxProxy {
  return new AjaxProxy({ url: URL_BASE, model: User, fetch, retry: 0, ...config });
}

function restProxy(config: RestConfig = {}): RestProxy {
  return new RestProxy({ url: URL_BASE, model: User, fetch, retry: 0, ...config });
}

/** The query string of the single read the proxy sends for `operation`. */
async function readQuery(proxy: AjaxProxy, operation: Operation): Promise<URLSearchParams> {
  await proxy.read(operation);
  return queryOf(fetch.last().url);
}

/** A getParams value as it would appear in a query string. */
function param(params: Record<string, unknown>, name: string): string | undefined {
  const value = params[name];
  return value === undefined ? undefined : String(value);
}

beforeEach(() => {
  fetch = recordingFetch(serverLike());
  vi.spyOn(Date, 'now').mockReturnValue(NOW);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('ServerProxy: url precedence (getUrl)', () => {
  const proxy = new ServerProxy({ url: 'http://api.test/base', api: { read: 'http://api.test/read-url' } });

  it('request.url comes first', () => {
    const operation = new Operation({ action: 'read' });
    const request = new ProxyRequest({ operation, action: 'read', url: 'http://api.test/request-url' });
    expect(proxy.getUrl(request)).toBe('http://api.test/request-url');
  });

  it('then api[action]', () => {
    const request = new ProxyRequest({ operation: new Operation({ action: 'read' }), action: 'read' });
    expect(proxy.getUrl(request)).toBe('http://api.test/read-url');
  });

  it('then url, for actions that api does not name', () => {
    const request = new ProxyRequest({ operation: new Operation({ action: 'create' }), action: 'create' });
    expect(proxy.getUrl(request)).toBe('http://api.test/base');
  });

  it('api urls are used for the requests actually sent, with the id appended by RestProxy', async () => {
    const rest = restProxy({ api: { update: 'http://api.test/people', read: 'http://api.test/people-list' } });
    const ed = new User({ id: 2, name: 'Ed', age: 30 });
    ed.set('name', 'Edward');
    await rest.update(new Operation({ action: 'update', records: [ed] }));
    expect(fetch.last().url.startsWith('http://api.test/people/2')).toBe(true);
    await rest.read(new Operation({ action: 'read' }));
    expect(pathOf(fetch.last().url)).toBe('/people-list');
    await rest.destroy(new Operation({ action: 'destroy', records: [ed] }));
    expect(pathOf(fetch.last().url)).toBe('/users/2');
  });

  it('no url at all: the operation fails with a ProxyError saying that no url is configured', async () => {
    const proxy = new RestProxy({ model: User, fetch });
    const operation = new Operation({ action: 'read' });
    const error = await proxyErrorOf(proxy.read(operation));
    expect(error.kind).toBe('config');
    expect(error.message).toMatch(/url/i);
    expect(error.message).toMatch(/configured/i);
    expect(fetch.calls).toHaveLength(0);
    expect(operation.success).toBe(false);
    expect(operation.error).toBe(error);
  });
});

describe('ServerProxy: getParams', () => {
  const proxy = new ServerProxy({ url: URL_BASE });

  it('paging params come from page, start and limit', () => {
    const params = proxy.getParams(new Operation({ action: 'read', page: 2, start: 25, limit: 25 }));
    expect(param(params, 'page')).toBe('2');
    expect(param(params, 'start')).toBe('25');
    expect(param(params, 'limit')).toBe('25');
  });

  it('0 is sent for page, start and limit', () => {
    const params = proxy.getParams(new Operation({ action: 'read', page: 0, start: 0, limit: 0 }));
    expect(param(params, 'page')).toBe('0');
    expect(param(params, 'start')).toBe('0');
    expect(param(params, 'limit')).toBe('0');
  });

  it('absent paging, sorting, filtering and grouping send nothing', () => {
    const params = proxy.getParams(new Operation({ action: 'read', sorters: [], filters: [] }));
    for (const name of ['page', 'start', 'limit', 'sort', 'filter', 'group', 'dir', 'groupDir']) {
      expect(params).not.toHaveProperty(name);
    }
  });

  it('sorters default to the JSON text [{"property","direction"}]', () => {
    expect(proxy.getParams(new Operation({ action: 'read', sorters: [{ property: 'name', direction: 'ASC' }] })).sort).toBe(
      '[{"property":"name","direction":"ASC"}]',
    );
    const two = proxy.getParams(
      new Operation({ action: 'read', sorters: [{ property: 'name', direction: 'ASC' }, { property: 'age', direction: 'DESC' }] }),
    );
    expect(two.sort).toBe('[{"property":"name","direction":"ASC"},{"property":"age","direction":"DESC"}]');
  });

  it('filters default to the JSON text [{"property","value"}], with "operator" only where a filter has one', () => {
    expect(proxy.getParams(new Operation({ action: 'read', filters: [{ property: 'name', value: 'Ed' }] })).filter).toBe(
      '[{"property":"name","value":"Ed"}]',
    );
    const mixed = proxy.getParams(
      new Operation({ action: 'read', filters: [{ property: 'name', value: 'Ed' }, { property: 'age', value: 30, operator: '>' }] }),
    );
    const text = mixed.filter;
    expect(typeof text).toBe('string');
    const parsed: unknown = JSON.parse(String(text));
    expect(parsed).toStrictEqual([{ property: 'name', value: 'Ed' }, { property: 'age', value: 30, operator: '>' }]);
  });

  it('falsy filter values are kept', () => {
    const params = proxy.getParams(new Operation({ action: 'read', filters: [{ property: 'age', value: 0 }] }));
    expect(JSON.parse(String(params.filter))).toStrictEqual([{ property: 'age', value: 0 }]);
  });

  it('the grouper is the JSON text {"property","direction"}', () => {
    const params = proxy.getParams(new Operation({ action: 'read', grouper: { property: 'name', direction: 'ASC' } }));
    expect(params.group).toBe('{"property":"name","direction":"ASC"}');
  });

  it('a read by id carries idParam = the id', () => {
    expect(param(proxy.getParams(new Operation({ action: 'read', id: 7 })), 'id')).toBe('7');
    const renamed = new ServerProxy({ url: URL_BASE, idParam: 'userId' });
    const params = renamed.getParams(new Operation({ action: 'read', id: 7 }));
    expect(param(params, 'userId')).toBe('7');
    expect(params).not.toHaveProperty('id');
  });

  it('param names are configurable', () => {
    const named = new ServerProxy({
      url: URL_BASE,
      pageParam: 'p',
      startParam: 'offset',
      limitParam: 'size',
      sortParam: 'order',
      filterParam: 'where',
      groupParam: 'groupBy',
    });
    const params = named.getParams(
      new Operation({
        action: 'read',
        page: 3,
        start: 20,
        limit: 10,
        sorters: [{ property: 'name', direction: 'ASC' }],
        filters: [{ property: 'name', value: 'Ed' }],
        grouper: { property: 'age', direction: 'DESC' },
      }),
    );
    expect(param(params, 'p')).toBe('3');
    expect(param(params, 'offset')).toBe('20');
    expect(param(params, 'size')).toBe('10');
    expect(params.order).toBe('[{"property":"name","direction":"ASC"}]');
    expect(params.where).toBe('[{"property":"name","value":"Ed"}]');
    expect(params.groupBy).toBe('{"property":"age","direction":"DESC"}');
    for (const name of ['page', 'start', 'limit', 'sort', 'filter', 'group']) expect(params).not.toHaveProperty(name);
  });

  it("a param name set to '', null or undefined is not sent", () => {
    const named = new ServerProxy({ url: URL_BASE, pageParam: '', sortParam: '' });
    named.startParam = null;
    named.limitParam = undefined;
    named.filterParam = '';
    const params = named.getParams(
      new Operation({
        action: 'read',
        page: 1,
        start: 0,
        limit: 25,
        sorters: [{ property: 'name', direction: 'ASC' }],
        filters: [{ property: 'name', value: 'Ed' }],
      }),
    );
    expect(Object.keys(params)).toEqual([]);
  });

  it('simpleSortMode sends sort=<property>&dir=<direction>', () => {
    const simple = new ServerProxy({ url: URL_BASE, simpleSortMode: true });
    const params = simple.getParams(new Operation({ action: 'read', sorters: [{ property: 'name', direction: 'DESC' }] }));
    // A value may be a one-element array (a repeated query key); what is sent is sort=name&dir=DESC.
    expect([params.sort].flat()).toEqual(['name']);
    expect([params.dir].flat()).toEqual(['DESC']);
  });

  it('simpleSortMode uses directionParam', () => {
    const simple = new ServerProxy({ url: URL_BASE, simpleSortMode: true, directionParam: 'order' });
    const params = simple.getParams(new Operation({ action: 'read', sorters: [{ property: 'age', direction: 'ASC' }] }));
    expect([params.sort].flat()).toEqual(['age']);
    expect([params.order].flat()).toEqual(['ASC']);
    expect(params).not.toHaveProperty('dir');
  });

  it('simpleGroupMode sends group=<property>&groupDir=<direction>', () => {
    const simple = new ServerProxy({ url: URL_BASE, simpleGroupMode: true });
    const params = simple.getParams(new Operation({ action: 'read', grouper: { property: 'age', direction: 'DESC' } }));
    expect([params.group].flat()).toEqual(['age']);
    expect([params.groupDir].flat()).toEqual(['DESC']);
  });
});

describe('ServerProxy: params in the query string of what is sent', () => {
  it('paging, sort, filter and group reach the query of a GET', async () => {
    const query = await readQuery(
      ajaxProxy(),
      new Operation({
        action: 'read',
        page: 2,
        start: 25,
        limit: 25,
        sorters: [{ property: 'name', direction: 'ASC' }],
        filters: [{ property: 'name', value: 'Ed' }],
        grouper: { property: 'age', direction: 'ASC' },
      }),
    );
    expect(query.get('page')).toBe('2');
    expect(query.get('start')).toBe('25');
    expect(query.get('limit')).toBe('25');
    expect(query.get('sort')).toBe('[{"property":"name","direction":"ASC"}]');
    expect(query.get('filter')).toBe('[{"property":"name","value":"Ed"}]');
    expect(query.get('group')).toBe('{"property":"age","direction":"ASC"}');
  });

  it('simpleSortMode and simpleGroupMode on the wire', async () => {
    const query = await readQuery(
      ajaxProxy({ simpleSortMode: true, simpleGroupMode: true }),
      new Operation({ action: 'read', sorters: [{ property: 'name', direction: 'DESC' }], grouper: { property: 'age', direction: 'ASC' } }),
    );
    expect(query.get('sort')).toBe('name');
    expect(query.get('dir')).toBe('DESC');
    expect(query.get('group')).toBe('age');
    expect(query.get('groupDir')).toBe('ASC');
  });

  it('extraParams, then the operation params, then the generated params: later wins', async () => {
    const proxy = ajaxProxy({ extraParams: { tenant: 'extra', x: 'extra', page: 99 } });
    const query = await readQuery(proxy, new Operation({ action: 'read', page: 2, params: { x: 'op', y: 'op', page: 98 } }));
    expect(query.get('tenant')).toBe('extra');
    expect(query.get('x')).toBe('op');
    expect(query.get('y')).toBe('op');
    expect(query.getAll('page')).toEqual(['2']);
  });

  it('extraParams are sent with every request, writes included, in the query string and not the body', async () => {
    const proxy = restProxy({ extraParams: { tenant: '5' } });
    await proxy.create(new Operation({ action: 'create', records: [new User({ name: 'Ed', age: 30 })] }));
    const post = fetch.last();
    expect(post.method).toBe('POST');
    expect(queryOf(post.url).get('tenant')).toBe('5');
    expect(post.json).not.toHaveProperty('tenant');

    await proxy.destroy(new Operation({ action: 'destroy', records: [new User({ id: 2, name: 'Ed', age: 30 })] }));
    expect(fetch.last().method).toBe('DELETE');
    expect(queryOf(fetch.last().url).get('tenant')).toBe('5');
    expect(fetch.last().body).toBeUndefined();
  });

  it('extraParams is a writable property, and requests do not mutate it', async () => {
    const proxy = ajaxProxy();
    proxy.extraParams = { tenant: '7' };
    const query = await readQuery(proxy, new Operation({ action: 'read', page: 1, params: { q: 'x' } }));
    expect(query.get('tenant')).toBe('7');
    expect(proxy.extraParams).toEqual({ tenant: '7' });
  });

  it('the operation params are not mutated by building the request', async () => {
    const params = { q: 'x' };
    await ajaxProxy({ extraParams: { tenant: '7' } }).read(new Operation({ action: 'read', id: 3, page: 1, params }));
    expect(params).toEqual({ q: 'x' });
  });

  it('Ext pitfall 11 fixed: with paramsAsJson a GET still sends the sorters and filters as JSON text', async () => {
    const query = await readQuery(
      ajaxProxy({ paramsAsJson: true }),
      new Operation({ action: 'read', sorters: [{ property: 'name', direction: 'ASC' }], filters: [{ property: 'name', value: 'Ed' }] }),
    );
    expect(query.get('sort')).toBe('[{"property":"name","direction":"ASC"}]');
    expect(query.get('filter')).toBe('[{"property":"name","value":"Ed"}]');
    expect(fetch.last().body).toBeUndefined();
  });
});

describe('ServerProxy: the cache buster', () => {
  it('is appended to reads as _dc=Date.now()', async () => {
    const query = await readQuery(ajaxProxy(), new Operation({ action: 'read' }));
    expect(query.getAll('_dc')).toEqual([String(NOW)]);
  });

  it('Ext pitfall 10 fixed: writes never carry it (POST, PUT, DELETE)', async () => {
    const proxy = restProxy();
    const ed = new User({ id: 2, name: 'Ed', age: 30 });
    ed.set('age', 31);
    await proxy.create(new Operation({ action: 'create', records: [new User({ name: 'New', age: 1 })] }));
    await proxy.update(new Operation({ action: 'update', records: [ed] }));
    await proxy.destroy(new Operation({ action: 'destroy', records: [ed] }));
    expect(fetch.calls.map((call) => call.method)).toEqual(['POST', 'PUT', 'DELETE']);
    for (const call of fetch.calls) expect(queryOf(call.url).has('_dc')).toBe(false);
  });

  it('noCache false turns it off', async () => {
    const query = await readQuery(ajaxProxy({ noCache: false }), new Operation({ action: 'read' }));
    expect(query.has('_dc')).toBe(false);
  });

  it('cacheString renames it', async () => {
    const query = await readQuery(ajaxProxy({ cacheString: 'ts' }), new Operation({ action: 'read' }));
    expect(query.get('ts')).toBe(String(NOW));
    expect(query.has('_dc')).toBe(false);
  });

  it('buildUrl appends it at the ServerProxy level for reads only, and sets request.url', () => {
    const proxy = new ServerProxy({ url: URL_BASE });
    const readRequest = proxy.buildRequest(new Operation({ action: 'read' }));
    const readUrl = proxy.buildUrl(readRequest);
    expect(readUrl).toBe(`${URL_BASE}?_dc=${NOW}`);
    expect(readRequest.url).toBe(readUrl);
    const createRequest = proxy.buildRequest(new Operation({ action: 'create', records: [new User({ name: 'Ed', age: 1 })] }));
    expect(proxy.buildUrl(createRequest)).toBe(URL_BASE);
  });

  it('buildUrl keeps a base query and joins with "&"', () => {
    const proxy = new ServerProxy({ url: `${URL_BASE}?tenant=5` });
    expect(proxy.buildUrl(proxy.buildRequest(new Operation({ action: 'read' })))).toBe(`${URL_BASE}?tenant=5&_dc=${NOW}`);
  });

  it('buildUrl is idempotent: calling it again gives the same url with one cache buster', () => {
    const proxy = new ServerProxy({ url: URL_BASE });
    const request = proxy.buildRequest(new Operation({ action: 'read' }));
    const first = proxy.buildUrl(request);
    expect(proxy.buildUrl(request)).toBe(first);
    expect(queryOf(proxy.buildUrl(request)).getAll('_dc')).toHaveLength(1);
  });

  it('buildUrl does not carry the params: the transport adds them when it sends', () => {
    const proxy = new ServerProxy({ url: URL_BASE, noCache: false });
    const request = proxy.buildRequest(new Operation({ action: 'read', page: 3, params: { q: 'x' } }));
    expect(proxy.buildUrl(request)).toBe(URL_BASE);
    expect(request.params).toMatchObject({ q: 'x' });
  });
});

describe('ServerProxy: encodeSorters and encodeFilters can be overridden', () => {
  class CompactProxy extends AjaxProxy {
    override encodeSorters(sorters: Parameters<AjaxProxy['encodeSorters']>[0]): string {
      return sorters.map((sorter) => `${sorter.direction === 'DESC' ? '-' : ''}${sorter.property}`).join(',');
    }

    override encodeFilters(filters: Parameters<AjaxProxy['encodeFilters']>[0]): string {
      return filters.map((filter) => `${filter.property}:${String(filter.value)}`).join(';');
    }
  }

  it('the overrides decide what the sort and filter params hold', async () => {
    const proxy = new CompactProxy({ url: URL_BASE, model: User, fetch });
    const query = await readQuery(
      proxy,
      new Operation({
        action: 'read',
        sorters: [{ property: 'name', direction: 'ASC' }, { property: 'age', direction: 'DESC' }],
        filters: [{ property: 'name', value: 'Ed' }],
      }),
    );
    expect(query.get('sort')).toBe('name,-age');
    expect(query.get('filter')).toBe('name:Ed');
  });
});
