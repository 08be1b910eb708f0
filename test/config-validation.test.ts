/**
 * Config objects (API.md section 1): every proxy, reader and writer takes one optional config
 * object; every option is then a public, writable property of the same name; an unknown or
 * ill-typed option fails fast with a TypeError naming it. The `@ts-expect-error` lines also
 * prove that the types reject what the runtime rejects.
 */
import { describe, expect, it } from 'vitest';
import {
  AjaxProxy,
  JsonReader,
  JsonWriter,
  MemoryProxy,
  Model,
  Operation,
  Request as ProxyRequest,
  RestProxy,
  ServerProxy,
  createProxy,
} from '../src/index.js';
// The built-in presets are registered where they are imported, as in an app.
import '../src/presets.js';
import { recordingFetch } from './helpers/recordingFetch.js';

class User extends Model<{ id: number; name: string }> {
  static override fields = ['id', 'name'];
}

type Case = [option: string, make: () => unknown];

const illTyped: Case[] = [
  // Proxy
  // @ts-expect-error -- model must be a Model class
  ['model', () => new RestProxy({ model: 42 })],
  // @ts-expect-error -- reader must be a reader or reader config
  ['reader', () => new RestProxy({ reader: 42 })],
  // @ts-expect-error -- writer must be a writer or writer config
  ['writer', () => new RestProxy({ writer: 'json' })],
  // @ts-expect-error -- batchActions must be a boolean
  ['batchActions', () => new RestProxy({ batchActions: 'yes' })],
  // @ts-expect-error -- batchOrder must be a string
  ['batchOrder', () => new RestProxy({ batchOrder: 42 })],
  // ServerProxy
  // @ts-expect-error -- url must be a string
  ['url', () => new RestProxy({ url: 42 })],
  // @ts-expect-error -- api must be an object
  ['api', () => new RestProxy({ api: '/users' })],
  // @ts-expect-error -- api urls must be strings
  ['api', () => new RestProxy({ api: { read: 42 } })],
  // @ts-expect-error -- extraParams must be an object
  ['extraParams', () => new RestProxy({ extraParams: 'tenant=5' })],
  // @ts-expect-error -- noCache must be a boolean
  ['noCache', () => new RestProxy({ noCache: 'yes' })],
  // @ts-expect-error -- cacheString must be a string
  ['cacheString', () => new RestProxy({ cacheString: 42 })],
  // @ts-expect-error -- timeout must be a number
  ['timeout', () => new RestProxy({ timeout: '30s' })],
  // @ts-expect-error -- pageParam must be a string
  ['pageParam', () => new RestProxy({ pageParam: 42 })],
  // @ts-expect-error -- startParam must be a string
  ['startParam', () => new RestProxy({ startParam: 42 })],
  // @ts-expect-error -- limitParam must be a string
  ['limitParam', () => new RestProxy({ limitParam: 42 })],
  // @ts-expect-error -- sortParam must be a string
  ['sortParam', () => new RestProxy({ sortParam: 42 })],
  // @ts-expect-error -- filterParam must be a string
  ['filterParam', () => new RestProxy({ filterParam: 42 })],
  // @ts-expect-error -- groupParam must be a string
  ['groupParam', () => new RestProxy({ groupParam: 42 })],
  // @ts-expect-error -- directionParam must be a string
  ['directionParam', () => new RestProxy({ directionParam: 42 })],
  // @ts-expect-error -- idParam must be a string
  ['idParam', () => new RestProxy({ idParam: 42 })],
  // @ts-expect-error -- simpleSortMode must be a boolean
  ['simpleSortMode', () => new RestProxy({ simpleSortMode: 'yes' })],
  // @ts-expect-error -- simpleGroupMode must be a boolean
  ['simpleGroupMode', () => new RestProxy({ simpleGroupMode: 1 })],
  // AjaxProxy
  // @ts-expect-error -- actionMethods must be an object
  ['actionMethods', () => new RestProxy({ actionMethods: 'POST' })],
  // @ts-expect-error -- actionMethods verbs must be strings
  ['actionMethods', () => new RestProxy({ actionMethods: { update: 42 } })],
  // @ts-expect-error -- headers must be an object
  ['headers', () => new RestProxy({ headers: 'X-A: 1' })],
  // @ts-expect-error -- withCredentials must be a boolean
  ['withCredentials', () => new RestProxy({ withCredentials: 'include' })],
  // @ts-expect-error -- username must be a string
  ['username', () => new RestProxy({ username: 42 })],
  // @ts-expect-error -- password must be a string
  ['password', () => new RestProxy({ password: 42 })],
  // @ts-expect-error -- paramsAsJson must be a boolean
  ['paramsAsJson', () => new RestProxy({ paramsAsJson: 'yes' })],
  // @ts-expect-error -- fetch must be a function
  ['fetch', () => new RestProxy({ fetch: 'node-fetch' })],
  // @ts-expect-error -- retry must be a number or an object
  ['retry', () => new RestProxy({ retry: 'twice' })],
  // @ts-expect-error -- idempotencyKey must be a boolean
  ['idempotencyKey', () => new RestProxy({ idempotencyKey: 'yes' })],
  // @ts-expect-error -- etag must be a boolean
  ['etag', () => new RestProxy({ etag: 'yes' })],
  // RestProxy
  // @ts-expect-error -- appendId must be a boolean
  ['appendId', () => new RestProxy({ appendId: 'yes' })],
  // @ts-expect-error -- format must be a string
  ['format', () => new RestProxy({ format: 42 })],
  // @ts-expect-error -- trailingSlash must be a boolean
  ['trailingSlash', () => new RestProxy({ trailingSlash: 'yes' })],
  // @ts-expect-error -- preset must be a string
  ['preset', () => new RestProxy({ preset: 42 })],
  // AjaxProxy and ServerProxy validate their own options too
  // @ts-expect-error -- timeout must be a number
  ['timeout', () => new AjaxProxy({ timeout: '30s' })],
  // @ts-expect-error -- url must be a string
  ['url', () => new ServerProxy({ url: 42 })],
  // MemoryProxy
  // @ts-expect-error -- data must be an array
  ['data', () => new MemoryProxy({ data: 'rows' })],
  // @ts-expect-error -- batchActions must be a boolean
  ['batchActions', () => new MemoryProxy({ batchActions: 'yes' })],
  // JsonReader
  // @ts-expect-error -- rootProperty must be a string
  ['rootProperty', () => new JsonReader({ rootProperty: 42 })],
  // @ts-expect-error -- totalProperty must be a string
  ['totalProperty', () => new JsonReader({ totalProperty: 42 })],
  // @ts-expect-error -- successProperty must be a string
  ['successProperty', () => new JsonReader({ successProperty: 42 })],
  // @ts-expect-error -- messageProperty must be a string
  ['messageProperty', () => new JsonReader({ messageProperty: 42 })],
  // @ts-expect-error -- totalHeader must be a string
  ['totalHeader', () => new JsonReader({ totalHeader: 42 })],
  // @ts-expect-error -- transform must be a function
  ['transform', () => new JsonReader({ transform: 'items' })],
  // JsonWriter
  // @ts-expect-error -- rootProperty must be a string
  ['rootProperty', () => new JsonWriter({ rootProperty: 42 })],
  // @ts-expect-error -- allowSingle must be a boolean
  ['allowSingle', () => new JsonWriter({ allowSingle: 'yes' })],
  // @ts-expect-error -- writeAllFields must be a boolean
  ['writeAllFields', () => new JsonWriter({ writeAllFields: 'yes' })],
  // @ts-expect-error -- writeRecordId must be a boolean
  ['writeRecordId', () => new JsonWriter({ writeRecordId: 'no' })],
  // @ts-expect-error -- clientIdProperty must be a string
  ['clientIdProperty', () => new JsonWriter({ clientIdProperty: 42 })],
  // @ts-expect-error -- dateFormat cannot be a number
  ['dateFormat', () => new JsonWriter({ dateFormat: 42 })],
  // @ts-expect-error -- transform must be a function
  ['transform', () => new JsonWriter({ transform: 'upper' })],
  // Reader and writer configs given to a proxy are validated as well
  // @ts-expect-error -- allowSingle must be a boolean
  ['allowSingle', () => new RestProxy({ writer: { allowSingle: 'yes' } })],
  // @ts-expect-error -- totalProperty must be a string
  ['totalProperty', () => new RestProxy({ reader: { totalProperty: false } })],
  // An object option with a key that is not an action is an ill-typed option
  // @ts-expect-error -- list is not an action
  ['api', () => new RestProxy({ api: { list: '/users' } })],
  // @ts-expect-error -- list is not an action
  ['actionMethods', () => new RestProxy({ actionMethods: { list: 'GET' } })],
  // An inherited name is no action either
  // @ts-expect-error -- constructor is not an action
  ['actionMethods', () => new RestProxy({ actionMethods: { constructor: 'GET' } })],
  // Operation
  // @ts-expect-error -- limit must be a number
  ['limit', () => new Operation({ action: 'read', limit: '25' })],
  // @ts-expect-error -- signal must be an AbortSignal
  ['signal', () => new Operation({ action: 'read', signal: 'stop' })],
];

const unknownOptions: Case[] = [
  // @ts-expect-error -- appendID is not an option (appendId is)
  ['appendID', () => new RestProxy({ appendID: false })],
  // @ts-expect-error -- urls is not an option
  ['urls', () => new ServerProxy({ urls: '/users' })],
  // @ts-expect-error -- method is not an option (actionMethods is)
  ['method', () => new AjaxProxy({ method: 'GET' })],
  // @ts-expect-error -- records is not an option (data is)
  ['records', () => new MemoryProxy({ records: [] })],
  // @ts-expect-error -- root is not an option (rootProperty is)
  ['root', () => new JsonReader({ root: 'data' })],
  // @ts-expect-error -- encode is not an option
  ['encode', () => new JsonWriter({ encode: true })],
  // @ts-expect-error -- rootPropety is a typo
  ['rootPropety', () => new RestProxy({ reader: { rootPropety: 'data' } })],
  // @ts-expect-error -- pageSize is not an Operation option
  ['pageSize', () => new Operation({ action: 'read', pageSize: 5 })],
];

function expectTypeErrorNaming(make: () => unknown, option: string): void {
  let thrown: unknown;
  try {
    make();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected a TypeError naming ${option}`).toBeInstanceOf(TypeError);
  if (thrown instanceof TypeError) expect(thrown.message).toContain(option);
}

describe('config validation: ill-typed options', () => {
  it.each(illTyped)('%s: a wrong type is a TypeError naming the option', (option, make) => {
    expectTypeErrorNaming(make, option);
  });

  it('the message reads like "appendId must be a boolean, got "yes""', () => {
    // @ts-expect-error -- appendId must be a boolean
    expect(() => new RestProxy({ appendId: 'yes' })).toThrow('appendId must be a boolean, got "yes"');
  });

  it('batchOrder may only name create, update and destroy', () => {
    expectTypeErrorNaming(() => new RestProxy({ batchOrder: 'create,update,delete' }), 'batchOrder');
  });

  it('an unknown preset is a TypeError naming it', () => {
    const preset: string = 'no-such-preset';
    expectTypeErrorNaming(() => createProxy({ type: 'rest', url: '/users', preset }), 'no-such-preset');
  });

  it('createProxy validates the config it is given', () => {
    const appendId: unknown = 'yes';
    expectTypeErrorNaming(() => createProxy({ type: 'rest', url: '/users', appendId }), 'appendId');
  });
});

describe('config validation: values of the right type that can never work', () => {
  const cases: Case[] = [
    ['retry', () => new RestProxy({ retry: { limit: 1.5 } })],
    ['retry', () => new RestProxy({ retry: 1.5 })],
    ['retry', () => new RestProxy({ retry: { statusCodes: [503, 600] } })],
    ['retry', () => new RestProxy({ retry: { statusCodes: [99] } })],
    ['password', () => new RestProxy({ password: 'secret' })],
    ['totalHeader', () => new JsonReader({ totalHeader: '' })],
    ['totalHeader', () => new JsonReader({ totalHeader: 'total count' })],
    ['totalHeader', () => new RestProxy({ reader: { totalHeader: 'X-Total:' } })],
    ['contentType', () => new JsonWriter({ contentType: 'application/json\r\nX-Injected: 1' })],
    ['contentType', () => new RestProxy({ writer: { contentType: 'application/json\n' } })],
  ];
  it.each(cases)('%s: a TypeError naming it, at construction', (option, make) => {
    expectTypeErrorNaming(make, option);
  });

  it('and when set afterwards', () => {
    expectTypeErrorNaming(() => {
      new JsonWriter().contentType = 'text/plain\r\n';
    }, 'contentType');
    expectTypeErrorNaming(() => {
      new JsonReader().totalHeader = 'a b';
    }, 'totalHeader');
  });

  it('a username alone, or with a password, is fine', () => {
    expect(new RestProxy({ username: 'ed' }).username).toBe('ed');
    expect(new RestProxy({ username: 'ed', password: 'pw' }).password).toBe('pw');
  });
});

describe('config validation: unknown options', () => {
  it.each(unknownOptions)('%s: an unknown option is a TypeError naming it', (option, make) => {
    expectTypeErrorNaming(make, option);
  });
});

describe('config validation: required parts', () => {
  it('an Operation needs its action', () => {
    // @ts-expect-error -- action is required
    expectTypeErrorNaming(() => new Operation({}), 'action');
    // @ts-expect-error -- list is not an action
    expectTypeErrorNaming(() => new Operation({ action: 'list' }), 'action');
  });

  it('a Request needs its operation', () => {
    // @ts-expect-error -- operation is required
    expectTypeErrorNaming(() => new ProxyRequest({ action: 'read' }), 'operation');
  });
});

describe('config objects are optional', () => {
  it('every proxy, reader and writer can be made without a config', () => {
    expect(() => [new RestProxy(), new AjaxProxy(), new ServerProxy(), new MemoryProxy(), new JsonReader(), new JsonWriter()]).not.toThrow();
    expect(() => new RestProxy({ url: '/users' })).not.toThrow();
  });
});

describe('config options become public, writable properties', () => {
  it('RestProxy defaults', () => {
    const proxy = new RestProxy();
    expect(proxy.url).toBeUndefined();
    expect(proxy.model).toBeUndefined();
    expect(proxy.api).toEqual({});
    expect(proxy.extraParams).toEqual({});
    expect(proxy.noCache).toBe(true);
    expect(proxy.cacheString).toBe('_dc');
    expect(proxy.timeout).toBe(30000);
    expect([proxy.pageParam, proxy.startParam, proxy.limitParam]).toEqual(['page', 'start', 'limit']);
    expect([proxy.sortParam, proxy.filterParam, proxy.groupParam]).toEqual(['sort', 'filter', 'group']);
    expect(proxy.directionParam).toBe('dir');
    expect(proxy.idParam).toBe('id');
    expect(proxy.simpleSortMode).toBe(false);
    expect(proxy.simpleGroupMode).toBe(false);
    expect(proxy.actionMethods).toEqual({ create: 'POST', read: 'GET', update: 'PUT', destroy: 'DELETE' });
    expect(proxy.headers).toEqual({});
    expect(proxy.withCredentials).toBe(false);
    expect(proxy.username).toBeUndefined();
    expect(proxy.password).toBeUndefined();
    expect(proxy.paramsAsJson).toBe(false);
    expect(proxy.retry).toMatchObject({ limit: 2, methods: ['GET', 'PUT', 'DELETE'], statusCodes: [408, 429, 500, 502, 503, 504] });
    expect(proxy.idempotencyKey).toBe(false);
    expect(proxy.etag).toBe(false);
    expect(proxy.appendId).toBe(true);
    expect(proxy.format).toBeUndefined();
    expect(proxy.trailingSlash).toBe(false);
    expect(proxy.batchActions).toBe(false);
    expect(proxy.batchOrder).toBe('create,update,destroy');
    expect(proxy.preset).toBeUndefined();
    expect(proxy.reader).toBeInstanceOf(JsonReader);
    expect(proxy.writer).toBeInstanceOf(JsonWriter);
  });

  it("AjaxProxy's own actionMethods default", () => {
    expect(new AjaxProxy().actionMethods).toEqual({ create: 'POST', read: 'GET', update: 'POST', destroy: 'POST' });
  });

  it('reader and writer defaults', () => {
    const reader = new JsonReader();
    expect(reader.rootProperty).toBe('');
    expect(reader.totalProperty).toBe('total');
    expect(reader.successProperty).toBe('success');
    expect(reader.messageProperty).toBe('message');
    expect(reader.totalHeader).toBeUndefined();
    const writer = new JsonWriter();
    expect(writer.rootProperty).toBeUndefined();
    expect(writer.allowSingle).toBe(true);
    expect(writer.writeRecordId).toBe(true);
    expect(writer.clientIdProperty).toBeUndefined();
  });

  it('given options are readable under their own names', () => {
    const proxy = new RestProxy({
      url: '/users',
      model: User,
      appendId: false,
      format: 'json',
      trailingSlash: true,
      timeout: 500,
      extraParams: { tenant: '5' },
      headers: { 'X-A': '1' },
      cacheString: 'ts',
      idParam: 'userId',
      batchActions: true,
      batchOrder: 'destroy,create,update',
    });
    expect(proxy.url).toBe('/users');
    expect(proxy.model).toBe(User);
    expect(proxy.appendId).toBe(false);
    expect(proxy.format).toBe('json');
    expect(proxy.trailingSlash).toBe(true);
    expect(proxy.timeout).toBe(500);
    expect(proxy.extraParams).toEqual({ tenant: '5' });
    expect(proxy.headers).toEqual({ 'X-A': '1' });
    expect(proxy.cacheString).toBe('ts');
    expect(proxy.idParam).toBe('userId');
    expect(proxy.batchActions).toBe(true);
    expect(proxy.batchOrder).toBe('destroy,create,update');
  });

  it('a reader config becomes a JsonReader with those options; an instance is kept', () => {
    const proxy = new RestProxy({ reader: { rootProperty: 'data', totalProperty: 'count' } });
    expect(proxy.reader).toBeInstanceOf(JsonReader);
    expect(proxy.reader.rootProperty).toBe('data');
    expect(proxy.reader.totalProperty).toBe('count');
    const writer = new JsonWriter({ rootProperty: 'user' });
    expect(new RestProxy({ writer }).writer).toBe(writer);
  });

  it('properties are writable and take effect on the next request', async () => {
    const fetch = recordingFetch(() => ({ body: { id: 2, name: 'Ed' } }));
    const proxy = new RestProxy({ url: 'http://api.test/users', model: User, fetch });
    proxy.format = 'xml';
    proxy.url = 'http://api.test/people';
    proxy.noCache = false;
    proxy.headers = { 'X-B': '2' };
    await proxy.read(new Operation({ action: 'read', id: 2 }));
    expect(fetch.last().url).toBe('http://api.test/people/2.xml');
    expect(fetch.last().headers['x-b']).toBe('2');
  });
});
