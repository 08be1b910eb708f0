/**
 * Model contract (API.md section 5): field declaration and conversion, phantom and dirty state,
 * changes, commit and reject. Persistence (save, destroy, load) is in Model.save.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Model, RestProxy } from '../../src/index.js';
import { recordingFetch, type Responder } from '../helpers/recordingFetch.js';

interface UserData {
  id: number;
  name: string;
  email: string;
  age: number;
  active: boolean;
}

class User extends Model<UserData> {
  static override fields = [
    'id',
    'name',
    { name: 'email', type: 'string' },
    { name: 'age', type: 'int' },
    { name: 'active', type: 'boolean', defaultValue: true },
  ];
}

interface TypedData {
  id: number;
  count: number;
  ratio: number;
  flag: boolean;
  when: Date | null;
  label: string | null;
  blob: unknown;
  upper: string;
  nick: string;
  role: string;
}

/** A model whose data comes from a scripted server, to see how fields convert what is read. */
function typedModel(respond: Responder) {
  const rec = recordingFetch(respond);
  class Typed extends Model<TypedData> {
    static override fields = [
      { name: 'id', type: 'int' },
      { name: 'count', type: 'int' },
      { name: 'ratio', type: 'number' },
      { name: 'flag', type: 'boolean' },
      { name: 'when', type: 'date', allowNull: true },
      { name: 'label', type: 'string', allowNull: true },
      { name: 'blob', type: 'auto' },
      { name: 'upper', convert: (value: unknown) => String(value).toUpperCase() },
      { name: 'nick', mapping: 'nick_name' },
      { name: 'role', defaultValue: 'guest' },
    ];
    static override proxy = new RestProxy({ url: 'http://api.test/typed', fetch: rec, retry: 0 });
  }
  return { Typed, rec };
}

describe('Model: a new record (no id)', () => {
  it('is phantom, has no id and is dirty', () => {
    const user = new User({ name: 'Ed' });
    expect(user.phantom).toBe(true);
    expect(user.getId()).toBeUndefined();
    expect(user.dirty).toBe(true);
    expect(user.get('name')).toBe('Ed');
  });

  it('takes the default value of a field it was not given', () => {
    expect(new User({ name: 'Ed' }).get('active')).toBe(true);
    expect(new User({ name: 'Ed', active: false }).get('active')).toBe(false);
  });

  it('stays phantom after setId: only the server ends phantom', () => {
    const user = new User({ name: 'Ed' });
    user.setId(5);
    expect(user.getId()).toBe(5);
    expect(user.phantom).toBe(true);
    expect(user.dirty).toBe(true);
  });

  it('has a clientId unique per instance and stable over its life', () => {
    const a = new User({ name: 'A' });
    const b = new User({ name: 'B' });
    const c = new User({ id: 1, name: 'C' });
    const ids = new Set([a.clientId, b.clientId, c.clientId]);
    expect(ids.size).toBe(3);
    const before = a.clientId;
    a.set('name', 'AA');
    a.setId(9);
    expect(a.clientId).toBe(before);
  });
});

describe('Model: a record constructed with an id', () => {
  it('is not phantom and not dirty', () => {
    const user = new User({ id: 3, name: 'Ed', email: 'ed@example.com' });
    expect(user.phantom).toBe(false);
    expect(user.dirty).toBe(false);
    expect(user.getId()).toBe(3);
    expect(user.getChanges()).toEqual({});
    expect(user.isModified('name')).toBe(false);
  });

  it('treats 0 as a valid id (not phantom)', () => {
    const user = new User({ id: 0, name: 'Zero' });
    expect(user.getId()).toBe(0);
    expect(user.phantom).toBe(false);
    expect(user.dirty).toBe(false);
  });

  it('gives its values through getData()', () => {
    const user = new User({ id: 3, name: 'Ed', email: 'ed@example.com', age: 30, active: false });
    expect(user.getData()).toMatchObject({ id: 3, name: 'Ed', email: 'ed@example.com', age: 30, active: false });
  });

  it('uses a custom idProperty', () => {
    class Doc extends Model<{ _id: string; title: string }> {
      static override idProperty = '_id';
      static override fields = ['_id', 'title'];
    }
    const saved = new Doc({ _id: 'a1', title: 'T' });
    expect(saved.getId()).toBe('a1');
    expect(saved.phantom).toBe(false);
    const fresh = new Doc({ title: 'New' });
    expect(fresh.phantom).toBe(true);
    expect(fresh.getId()).toBeUndefined();
  });
});

describe('Model: changes, commit and reject', () => {
  it('tracks a changed field: dirty, modified holds the previous value, getChanges the new one', () => {
    const user = new User({ id: 1, name: 'Ed', email: 'ed@example.com' });
    user.set('name', 'Edward');
    expect(user.get('name')).toBe('Edward');
    expect(user.dirty).toBe(true);
    expect(user.isModified('name')).toBe(true);
    expect(user.isModified('email')).toBe(false);
    expect(user.modified).toEqual({ name: 'Ed' });
    expect(user.getChanges()).toEqual({ name: 'Edward' });
  });

  it('keeps the original value in modified across several edits of one field', () => {
    const user = new User({ id: 1, name: 'Ed' });
    user.set('name', 'A');
    user.set('name', 'B');
    expect(user.modified).toEqual({ name: 'Ed' });
    expect(user.getChanges()).toEqual({ name: 'B' });
  });

  it('sets several fields at once with set({ ... })', () => {
    const user = new User({ id: 1, name: 'Ed', email: 'ed@example.com', age: 30 });
    user.set({ name: 'Edward', age: 31 });
    expect(user.get('name')).toBe('Edward');
    expect(user.get('age')).toBe(31);
    expect(user.getChanges()).toEqual({ name: 'Edward', age: 31 });
    expect(user.modified).toEqual({ name: 'Ed', age: 30 });
  });

  it('does not become dirty when a field is set to the value it already has', () => {
    const user = new User({ id: 1, name: 'Ed' });
    user.set('name', 'Ed');
    expect(user.dirty).toBe(false);
    expect(user.getChanges()).toEqual({});
  });

  it('commit() makes the current values the saved ones', () => {
    const user = new User({ id: 1, name: 'Ed' });
    user.set('name', 'Edward');
    user.commit();
    expect(user.get('name')).toBe('Edward');
    expect(user.dirty).toBe(false);
    expect(user.isModified('name')).toBe(false);
    expect(user.getChanges()).toEqual({});
    user.reject();
    expect(user.get('name')).toBe('Edward');
  });

  it('reject() restores the values from before the edits', () => {
    const user = new User({ id: 1, name: 'Ed', age: 30 });
    user.set('name', 'A');
    user.set({ name: 'B', age: 40 });
    user.reject();
    expect(user.get('name')).toBe('Ed');
    expect(user.get('age')).toBe(30);
    expect(user.dirty).toBe(false);
    expect(user.getChanges()).toEqual({});
  });

  it('a phantom record stays dirty after commit-free edits and reject keeps it phantom', () => {
    const user = new User({ name: 'Ed' });
    user.set('name', 'Edward');
    user.reject();
    expect(user.phantom).toBe(true);
    expect(user.dirty).toBe(true);
  });
});

describe('Model: field conversion of data read from the server', () => {
  it('converts int, number, boolean, date and string values', async () => {
    const { Typed } = typedModel(() => ({
      body: {
        id: '5', count: '42', ratio: '3.5', flag: 'false', when: '2020-01-02T03:04:05.000Z',
        label: 12, blob: { a: [1] }, upper: 'shout', nick_name: 'eddie',
      },
    }));
    const record = await Typed.load(5);
    expect(record.getId()).toBe(5);
    expect(record.get('count')).toBe(42);
    expect(record.get('ratio')).toBe(3.5);
    expect(record.get('flag')).toBe(false);
    const when = record.get('when');
    expect(when).toBeInstanceOf(Date);
    expect(when?.getTime()).toBe(Date.UTC(2020, 0, 2, 3, 4, 5));
    expect(record.get('label')).toBe('12');
    expect(record.get('blob')).toEqual({ a: [1] });
  });

  it('reads "true", true and 1 as true, and "false", false and 0 as false for boolean fields', async () => {
    const values: unknown[] = ['true', true, 1, 'false', false, 0];
    const { Typed } = typedModel((_call, index) => ({ body: { id: index + 1, flag: values[index] } }));
    const read: boolean[] = [];
    for (let i = 0; i < values.length; i++) read.push((await Typed.load(i + 1)).get('flag'));
    expect(read).toEqual([true, true, true, false, false, false]);
  });

  it('keeps null in a field that allows null', async () => {
    const { Typed } = typedModel(() => ({ body: { id: 1, when: null, label: null } }));
    const record = await Typed.load(1);
    expect(record.get('when')).toBeNull();
    expect(record.get('label')).toBeNull();
  });

  it('applies a custom convert function', async () => {
    const { Typed } = typedModel(() => ({ body: { id: 1, upper: 'shout' } }));
    expect((await Typed.load(1)).get('upper')).toBe('SHOUT');
  });

  it('reads a mapped field from its server name', async () => {
    const { Typed } = typedModel(() => ({ body: { id: 1, nick_name: 'eddie' } }));
    expect((await Typed.load(1)).get('nick')).toBe('eddie');
  });

  it('fills a field the server did not send with its default value', async () => {
    const { Typed } = typedModel(() => ({ body: { id: 1 } }));
    expect((await Typed.load(1)).get('role')).toBe('guest');
  });

  it('a record read from the server is neither phantom nor dirty', async () => {
    const { Typed } = typedModel(() => ({ body: { id: '7', count: '1' } }));
    const record = await Typed.load(7);
    expect(record.phantom).toBe(false);
    expect(record.dirty).toBe(false);
    expect(record.getChanges()).toEqual({});
  });

  it('never turns a value that cannot convert into NaN or an Invalid Date silently', async () => {
    const { Typed } = typedModel(() => ({ body: { id: 1, count: 'abc', ratio: 'x', when: 'not a date' } }));
    let record: InstanceType<typeof Typed> | undefined;
    let failure: unknown;
    try {
      record = await Typed.load(1);
    } catch (error) {
      failure = error;
    }
    if (record) {
      expect(Number.isNaN(record.get('count'))).toBe(false);
      expect(Number.isNaN(record.get('ratio'))).toBe(false);
      const when = record.get('when');
      expect(when === null || !Number.isNaN(when.getTime())).toBe(true);
    } else {
      // The documented alternative: a clear error naming the field.
      expect(failure).toBeInstanceOf(Error);
      expect(String(failure)).toMatch(/count|ratio|when/);
    }
  });
});

describe('Model: conversion of values given in code', () => {
  it('applies a convert function to constructor data and to set()', () => {
    class Tag extends Model<{ id: number; name: string }> {
      static override fields = ['id', { name: 'name', convert: (value: unknown) => String(value).trim() }];
    }
    const tag = new Tag({ id: 1, name: '  red ' });
    expect(tag.get('name')).toBe('red');
    tag.set('name', ' blue  ');
    expect(tag.get('name')).toBe('blue');
    expect(tag.getChanges()).toEqual({ name: 'blue' });
  });
});

describe('Model: bad input given in code', () => {
  // A model without a typed data shape, as plain JavaScript callers have it: the compiler lets
  // anything through, so the runtime must refuse what cannot convert.
  class Loose extends Model {
    static override fields = ['id', { name: 'age', type: 'int' }, { name: 'born', type: 'date' }, { name: 'ok', type: 'boolean' }];
  }

  it('set() of a value that cannot convert is a TypeError naming the field, and changes nothing', () => {
    const record = new Loose({ id: 1, age: 3 });
    expect(() => record.set('age', 'abc')).toThrow(TypeError);
    expect(() => record.set('age', 'abc')).toThrow(/age/);
    expect(() => record.set('born', 'not a date')).toThrow(/born/);
    expect(() => record.set('ok', 'perhaps')).toThrow(/ok/);
    expect(record.get('age')).toBe(3);
    expect(record.dirty).toBe(false);
  });

  it('set({ ... }) with one bad value applies none of them', () => {
    const record = new Loose({ id: 1, age: 3, ok: true });
    expect(() => record.set({ ok: false, age: 'abc' })).toThrow(/age/);
    expect(record.get('ok')).toBe(true);
    expect(record.dirty).toBe(false);
  });

  it('the constructor refuses a value that cannot convert', () => {
    expect(() => new Loose({ age: 'abc' })).toThrow(/age/);
    expect(() => new Loose({ born: 'not a date' })).toThrow(/born/);
    expect(() => new Loose({ born: '2024-13-01T00:00:00.000Z' })).toThrow(/born/);
  });

  it('a date given as an ISO string reads as the same Date, in every form', () => {
    const forms = ['2024-03-01T09:30:00.000Z', '2024-03-01T09:30:00Z', '2024-03-01T10:30:00.000+01:00'];
    for (const born of forms) expect(new Loose({ born }).get('born'), born).toEqual(new Date(Date.UTC(2024, 2, 1, 9, 30)));
    expect(new Loose({ born: forms[0] }).getData()['born']).toBeInstanceOf(Date);
  });

  it('converts what can be converted', () => {
    const record = new Loose({ id: 1, age: '42', born: '2020-01-02T00:00:00.000Z', ok: 'true' });
    expect(record.get('age')).toBe(42);
    expect(record.get('born')).toEqual(new Date(Date.UTC(2020, 0, 2)));
    expect(record.get('ok')).toBe(true);
  });

  it('set() of an undeclared field is a TypeError naming it', () => {
    const record = new Loose({ id: 1 });
    expect(() => record.set('nope', 1)).toThrow(/nope/);
    expect(record.dirty).toBe(false);
  });
});

describe('Model: proxy per class', () => {
  it('creates the proxy from a config once per class', () => {
    class Account extends Model<{ id: number; name: string }> {
      static override fields = ['id', 'name'];
      static override proxy = { type: 'rest', url: 'http://api.test/accounts' };
    }
    class Other extends Model<{ id: number; name: string }> {
      static override fields = ['id', 'name'];
      static override proxy = { type: 'rest', url: 'http://api.test/others' };
    }
    const proxy = Account.getProxy();
    expect(proxy).toBeInstanceOf(RestProxy);
    expect(Account.getProxy()).toBe(proxy);
    expect(Other.getProxy()).not.toBe(proxy);
    expect(Other.getProxy()).toBeInstanceOf(RestProxy);
  });

  it('setProxy replaces the proxy with an instance or a config', () => {
    class Account extends Model<{ id: number; name: string }> {
      static override fields = ['id', 'name'];
      static override proxy = { type: 'rest', url: 'http://api.test/accounts' };
    }
    const replacement = new RestProxy({ url: 'http://api.test/v2/accounts' });
    Account.setProxy(replacement);
    expect(Account.getProxy()).toBe(replacement);
    Account.setProxy({ type: 'rest', url: 'http://api.test/v3/accounts' });
    const fromConfig = Account.getProxy();
    expect(fromConfig).toBeInstanceOf(RestProxy);
    expect(fromConfig).not.toBe(replacement);
  });
});
