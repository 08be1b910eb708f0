/**
 * What a server's answer can make of an error, over HTTP against the test server: Ext-style
 * validation answers (a 200 with `success: false` and field errors, API.md section 7), field
 * names that are Object.prototype's (own keys, never inherited ones), totals that are not counts,
 * server messages too long to quote, and a value too deep to be written as JSON.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Model, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { proxyErrorOf as rejection } from '../helpers/proxyTestKit.js';
import { inBrowser } from '../helpers/inBrowser.js';

interface UserData {
  id: number;
  name: string;
  email: string;
}

let server: TestServer<{ users: UserData[] }> | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(): Promise<TestServer<{ users: UserData[] }>> {
  server = await startTestServer({ resources: { users: [{ id: 1, name: 'Ed', email: 'ed@example.com' }] } });
  return server;
}

/** An Ext-style model: records under `data`, `success` and `message` in the envelope. */
function defineUser(url: string, reader: Record<string, unknown> = { rootProperty: 'data' }) {
  class User extends Model<UserData> {
    static override fields = [{ name: 'id', type: 'int' }, 'name', 'email'];
    static override proxy = { type: 'rest', url: `${url}/users`, retry: 0, reader };
  }
  return User;
}

/** Save an edit of user 1 answered with `body` (an object, or raw JSON text); return the error and the record. */
async function failedSave(status: number, body: object | string) {
  const s = await start();
  s.respond('PUT', '/users/1', { status, body });
  const User = defineUser(s.url);
  const ed = new User({ id: 1, name: 'Ed', email: 'ed@example.com' });
  ed.set('email', 'bob@example.com');
  const error = await rejection(ed.save());
  return { error, ed };
}

describe("a 200 with success: false and field errors (Ext's convention) is kind 'validation'", () => {
  it.each<[string, object, Record<string, string[]>]>([
    ['{ success, message, errors: { field: msg } }', { success: false, message: 'Invalid data', errors: { email: 'is already taken' } }, { email: ['is already taken'] }],
    ['{ success, errors: { field: msg[] } }', { success: false, errors: { email: ['is invalid', 'is taken'], name: ['is short'] } }, { email: ['is invalid', 'is taken'], name: ['is short'] }],
    ['{ success, message, field: msg[] }', { success: false, message: 'Invalid data', email: ['is invalid'] }, { email: ['is invalid'] }],
    ['JSON:API errors', { success: false, errors: [{ source: { pointer: '/data/attributes/email' }, detail: 'is invalid' }] }, { email: ['is invalid'] }],
    ["Ext's form errors [{ id, msg }]", { success: false, errors: [{ id: 'email', msg: 'is invalid' }] }, { email: ['is invalid'] }],
  ])('%s', async (_shape, body, fieldErrors) => {
    const { error, ed } = await failedSave(200, body);
    expect(error.kind).toBe('validation');
    expect(error.fieldErrors).toEqual(fieldErrors);
    expect(ed.errors).toEqual(fieldErrors);
    expect(ed.dirty).toBe(true);
    expect(ed.get('email')).toBe('bob@example.com');
    expect(error.mayHaveBeenApplied).toBe(false);
    expect(error.message).toMatch(/^PUT http:\/\/127\.0\.0\.1:\d+\/users\/1 failed: the server answered success: false/);
    expect(error.message).toContain(`email: ${fieldErrors.email?.join(', ') ?? ''}`);
    expect(error.body).toEqual(body);
  });

  it("a 200 with success: false and no field errors stays kind 'server'", async () => {
    const { error, ed } = await failedSave(200, { success: false, message: 'Locked by an administrator' });
    expect(error.kind).toBe('server');
    expect(error.fieldErrors).toBeUndefined();
    expect(error.message).toContain('Locked by an administrator');
    expect(Object.keys(ed.errors)).toEqual([]);
  });
});

describe('field names that are Object.prototype\'s are fields like any other', () => {
  const text = '{"success":false,"errors":{"constructor":"c","toString":["t"],"__proto__":"p","email":"e"}}';

  it.each<[string, number, string]>([
    ['a 200 with success: false', 200, text],
    ['a 422', 422, text.replace('"success":false,', '')],
  ])('%s: own keys in fieldErrors and record.errors, and no inherited ones', async (_what, status, body) => {
    const { error, ed } = await failedSave(status, body);
    expect(error.kind).toBe('validation');
    for (const errors of [error.fieldErrors ?? {}, ed.errors as Record<string, string[] | undefined>]) {
      expect(Object.keys(errors)).toEqual(['constructor', 'toString', '__proto__', 'email']);
      expect(Object.hasOwn(errors, '__proto__')).toBe(true);
      expect(errors['__proto__']).toEqual(['p']);
      expect(errors['constructor']).toEqual(['c']);
      // A field without messages reads as none, whatever its name.
      expect(errors['valueOf']).toBeUndefined();
      expect(errors['hasOwnProperty']).toBeUndefined();
    }
    expect(error.message).toContain('__proto__: p');
  });

  it('a record without errors has none under any name', async () => {
    const s = await start();
    const ed = await defineUser(s.url, {}).load(1);
    const errors: Record<string, unknown> = ed.errors;
    expect(errors['toString']).toBeUndefined();
    expect(errors['constructor']).toBeUndefined();
  });
});

describe('a server message is quoted, not copied whole: the whole is on error.body', () => {
  const long = `${'Something went wrong. '.repeat(50_000)}END`;

  it.each<[string, number, object | string]>([
    ['a 500 { message }', 500, { message: long }],
    ['a 422 field error', 422, { errors: { email: [long] } }],
    ['a 200 success: false { message }', 200, { success: false, message: long }],
    ['a 200 success: false with field errors', 200, { success: false, message: long, errors: { email: long } }],
    ['an HTML page with a long title', 502, `<html><head><title>${long}</title></head></html>`],
  ])('%s', async (_what, status, body) => {
    const { error } = await failedSave(status, body);
    expect(error.message.length).toBeLessThan(1000);
    expect(error.message).toContain('Something went wrong.');
    expect(error.message).not.toContain('END');
    expect(JSON.stringify(error.body)).toContain('END');
  });
});

describe('a total that is not a number of records is refused as parse, not shown by getTotalCount()', () => {
  const rows = [{ id: 1, name: 'Ed', email: 'ed@example.com' }];

  /** A store load answered with `body` and `headers`, read with `reader`. */
  async function load(body: object, headers: Record<string, string> = {}, reader: Record<string, unknown> = { rootProperty: 'data' }) {
    const s = await start();
    s.respond('GET', '/users', { status: 200, headers, body });
    const User = defineUser(s.url, reader);
    return new Store({ model: User, pageSize: 25 });
  }

  it.each<[string, unknown]>([['-3', -3], ['1.5', 1.5], ['"0x10"', '0x10'], ['"1e3"', '1e3'], ['"12 items"', '12 items'], ['2^53 + 2', 2 ** 53 + 2], ['true', true], ['an object', { value: 3 }]])(
    'total %s in the body',
    async (_what, total) => {
      const store = await load({ data: rows, total });
      const error = await rejection(store.load());
      expect(error.kind).toBe('parse');
      expect(error.message).toMatch(/the total at "total" is .*, not a number of records \(a whole number, 0 or more\)/);
      expect(store.getCount()).toBe(0);
      expect(store.getTotalCount()).toBe(0);
    },
  );

  it.each(['-3', '1.5', '0x10', 'many'])('an X-Total-Count header of %j', async (header) => {
    const store = await load(rows, { 'X-Total-Count': header }, { totalHeader: 'X-Total-Count' });
    const error = await rejection(store.load());
    expect(error.kind).toBe('parse');
    expect(error.message).toContain(`the X-Total-Count header is ${JSON.stringify(header)}, not a number of records`);
  });

  it.each<[string, object, Record<string, string>, Record<string, unknown>, number]>([
    ['a number', { data: rows, total: 40 }, {}, { rootProperty: 'data' }, 40],
    ['a string of digits', { data: rows, total: '40' }, {}, { rootProperty: 'data' }, 40],
    ['0', { data: [], total: 0 }, {}, { rootProperty: 'data' }, 0],
    ['null: the records read', { data: rows, total: null }, {}, { rootProperty: 'data' }, 1],
    ['a header', rows, { 'X-Total-Count': ' 40 ' }, { totalHeader: 'X-Total-Count' }, 40],
  ])('accepts %s', async (_what, body, headers, reader, total) => {
    const store = await load(body, headers, reader);
    await store.load();
    expect(store.getTotalCount()).toBe(total);
  });
});

describe('a value that cannot be written as JSON fails the save naming the field, nothing sent', () => {
  function deep(levels: number): unknown {
    let value: unknown = 'bottom';
    for (let i = 0; i < levels; i++) value = { inner: value };
    return value;
  }
  const looped: Record<string, unknown> = { name: 'loop' };
  looped.self = looped;

  // Node's JSON.stringify runs out of stack first; Chromium's writes it (the server then refuses it).
  const tooDeep: [string, unknown, RegExp][] = inBrowser ? [] : [['nested 20,000 levels deep', deep(20_000), /the field "notes" cannot be written as JSON: it is nested too deeply/]];
  it.each<[string, unknown, RegExp]>([
    ...tooDeep,
    ['that refers to itself', looped, /the field "notes" cannot be written as JSON: .*circular/i],
    ['a BigInt', 10n, /the field "notes" cannot be written as JSON: .*BigInt/],
  ])('a value %s', async (_what, value, message) => {
    const s = await start();
    class Note extends Model<{ id: number; name: string; notes: unknown }> {
      static override fields = [{ name: 'id', type: 'int' }, 'name', 'notes'];
      static override proxy = { type: 'rest', url: `${s.url}/users`, retry: 0 };
    }
    const ed = await Note.load(1);
    ed.set('notes', value);
    const error = await rejection(ed.save());
    expect(error.kind).toBe('config');
    expect(error.message).toMatch(/^PUT http:\/\/127\.0\.0\.1:\d+\/users\/1 cannot be sent: /);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('Maximum call stack');
    expect(error.mayHaveBeenApplied).toBe(false);
    expect(s.requests.map((request) => request.method)).toEqual(['GET']);
    expect(ed.dirty).toBe(true);
    expect(ed.get('notes')).toBe(value);
    expect(ed.getSnapshot().dirty).toBe(true);
  });
});
