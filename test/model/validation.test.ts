/**
 * Validators on the write path (API.md 9.2), against a real server on 127.0.0.1: an invalid
 * record is never sent (the server receives nothing for it), save() rejects with kind
 * 'validation' and the errors on record.errors, sync() sends the valid records and leaves each
 * invalid one pending, destroy() never validates, records read from a server are never validated.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, custom, email, length, Model, presence, ProxyError, RestProxy, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';

interface Row {
  id: number;
  name: string;
  email: string;
}

const ROWS: Row[] = [
  { id: 1, name: 'Ann', email: 'ann@example.com' },
  // Invalid by the model's rules (a name too short, no valid e-mail): stored before the rules came.
  { id: 2, name: 'B', email: 'not an e-mail' },
];

let server: TestServer<{ users: Row[] }>;

/** A User model bound to this test's server. */
function defineUser() {
  return class User extends Model.define({
    entityName: 'User',
    fields: { id: { type: 'int', allowNull: false }, name: 'string', email: 'string' },
    proxy: new RestProxy({ url: `${server.url}/users`, retry: 0 }),
    validators: { name: [presence(), length({ min: 2 })], email: email() },
  }) {};
}

/** What the server received, as `METHOD /path`. */
function received(): string[] {
  return server.requests.map((request) => `${request.method} ${request.path}`);
}

beforeEach(async () => {
  server = await startTestServer({ resources: { users: ROWS } });
});

afterEach(async () => {
  await server.close();
});

describe('save() of an invalid record', () => {
  it('sends nothing, rejects with kind validation (status 0, fieldErrors, nothing applied, no request), and puts the errors on the record', async () => {
    const User = defineUser();
    const user = new User({ name: '', email: 'nope' });
    const error = await user.save().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ProxyError);
    if (!(error instanceof ProxyError)) return;
    expect(error.kind).toBe('validation');
    expect(error.status).toBe(0);
    expect(error.fieldErrors).toEqual({ name: ['is required'], email: ['is not a valid e-mail address'] });
    expect(error.mayHaveBeenApplied).toBe(false);
    expect(error.request).toBeUndefined();
    expect(error.message).toMatch(/^User-\d+ not saved: name is required, email is not a valid e-mail address$/);
    expect(user.errors).toEqual(error.fieldErrors);
    expect(received()).toEqual([]);
    expect(server.db.users).toHaveLength(2);
  });

  it('leaves the record as it was: still new, its values kept', async () => {
    const User = defineUser();
    const user = new User({ name: 'E', email: 'ed@example.com' });
    await expect(user.save()).rejects.toThrow(/name is too short \(minimum is 2 characters\)/);
    expect(user.phantom).toBe(true);
    expect(user.dirty).toBe(true);
    expect(user.get('name')).toBe('E');
    expect(user.saving).toBe(false);
  });

  it('an edited saved record is named by its id, and its update is not sent', async () => {
    const User = defineUser();
    const user = await User.load(1);
    server.reset();
    user.set('email', 'ann at example');
    await expect(user.save()).rejects.toThrow(/^User 1 not saved: email is not a valid e-mail address$/);
    expect(received()).toEqual([]);
    expect(user.dirty).toBe(true);
    expect(server.db.users[0]?.email).toBe('ann@example.com');
  });

  it('once fixed, saves, and the success clears record.errors', async () => {
    const User = defineUser();
    const user = new User({ name: '', email: 'ed@example.com' });
    await expect(user.save()).rejects.toBeInstanceOf(ProxyError);
    user.set('name', 'Ed');
    await user.save();
    expect(received()).toEqual(['POST /users']);
    expect(user.errors).toEqual({});
    expect(user.phantom).toBe(false);
  });

  it('save({ validate: false }) sends it anyway', async () => {
    const User = defineUser();
    const user = new User({ name: '', email: 'nope' });
    await user.save({ validate: false });
    expect(received()).toEqual(['POST /users']);
    expect(user.phantom).toBe(false);
  });

  it('a clean saved record is not checked: its save sends nothing and resolves, although its values fail the rules', async () => {
    const User = defineUser();
    const user = await User.load(2);
    server.reset();
    await expect(user.save()).resolves.toBeDefined();
    expect(received()).toEqual([]);
    expect(user.errors).toEqual({});
  });
});

describe('destroy() never validates', () => {
  it('destroys an invalid saved record', async () => {
    const User = defineUser();
    const user = await User.load(2);
    user.set('name', '');
    server.reset();
    await user.destroy();
    expect(received()).toEqual(['DELETE /users/2']);
    expect(user.erased).toBe(true);
  });
});

describe('records read from a server are never validated', () => {
  it('a load takes rows that fail the rules as they are, with no errors', async () => {
    const User = defineUser();
    const store = new Store({ model: User });
    const records = await store.load();
    expect(records.map((record) => record.get('name'))).toEqual(['Ann', 'B']);
    expect(records.map((record) => record.errors)).toEqual([{}, {}]);
    expect(store.hasChanges()).toBe(false);
  });
});

describe('sync()', () => {
  it('sends the valid records; each invalid one gets its errors, adds a validation error to the BatchError and stays pending', async () => {
    const User = defineUser();
    const store = new Store({ model: User });
    await store.load();
    server.reset();
    const [good, bad] = store.add([
      { name: 'Cy', email: 'cy@example.com' },
      { name: '', email: 'dee@example.com' },
    ]);
    store.getById(1)?.set('email', 'broken');
    store.getById(2)?.set('name', 'Bo'); // its e-mail still fails
    const error = await store.sync().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(received()).toEqual(['POST /users']);
    expect(server.requests[0]?.json).toMatchObject({ name: 'Cy' });
    expect(error).toBeInstanceOf(BatchError);
    if (!(error instanceof BatchError)) return;
    expect(error.errors.map((failure) => [failure.kind, failure.status, failure.mayHaveBeenApplied])).toEqual([
      ['validation', 0, false],
      ['validation', 0, false],
      ['validation', 0, false],
    ]);
    expect(error.errors.map((failure) => failure.message)).toEqual([
      expect.stringMatching(/^User-\d+ not saved: name is required$/),
      'User 1 not saved: email is not a valid e-mail address',
      'User 2 not saved: email is not a valid e-mail address',
    ]);
    expect(error.batch.exceptions.map((operation) => operation.action)).toEqual(['create', 'update', 'update']);
    expect(good?.phantom).toBe(false);
    expect(bad?.phantom).toBe(true);
    expect(bad?.errors).toEqual({ name: ['is required'] });
    expect(store.getById(1)?.errors).toEqual({ email: ['is not a valid e-mail address'] });
    expect(store.getNewRecords()).toEqual([bad]);
    expect(store.getUpdatedRecords().map((record) => record.getId())).toEqual([1, 2]);
  });

  it('when every pending record is invalid, sends nothing and rejects', async () => {
    const User = defineUser();
    const store = new Store({ model: User });
    store.add({ name: '', email: '' });
    await expect(store.sync()).rejects.toBeInstanceOf(BatchError);
    expect(received()).toEqual([]);
    expect(store.getNewRecords()).toHaveLength(1);
  });

  it('a sync destroys invalid removed records without checking them', async () => {
    const User = defineUser();
    const store = new Store({ model: User });
    await store.load();
    server.reset();
    const second = store.getById(2);
    if (second === undefined) throw new Error('row 2 not loaded');
    second.set('name', '');
    store.remove(second);
    await store.sync();
    expect(received()).toEqual(['DELETE /users/2']);
  });

  it('the next sync, once the records are fixed, sends them', async () => {
    const User = defineUser();
    const store = new Store({ model: User });
    const [record] = store.add({ name: '', email: 'x@example.com' });
    await expect(store.sync()).rejects.toBeInstanceOf(BatchError);
    record?.set('name', 'Xi');
    await store.sync();
    expect(received()).toEqual(['POST /users']);
    expect(record?.errors).toEqual({});
    expect(store.hasChanges()).toBe(false);
  });
});

// Issue 29 item 4: a rule that throws (a custom() reading `.length` of null, a message function
// that throws) is its record's validation failure, named; it stopped the whole sync before.
describe('a rule that throws', () => {
  function defineNicknamed() {
    return class Nicknamed extends Model.define({
      entityName: 'Nicknamed',
      fields: { id: { type: 'int', allowNull: false }, name: 'string', email: 'string' },
      proxy: new RestProxy({ url: `${server.url}/users`, retry: 0 }),
      validators: {
        // Reads `.length` of a null e-mail: throws a TypeError for that record.
        email: custom((value) => (value as string).length > 3 || 'is too short'),
        name: length({ min: 2, message: (value) => { if (value === 'X') throw new Error('no message for X'); return 'is short'; } }),
      },
    }) {};
  }

  it('store.sync() sends the valid records; the throwing rule fails its record with a message naming the rule', async () => {
    const Nicknamed = defineNicknamed();
    const store = new Store({ model: Nicknamed });
    const [good, thrown, badMessage] = store.add([
      { name: 'Cy', email: 'cy@example.com' },
      { name: 'Dee', email: null },
      { name: 'X', email: 'x@example.com' },
    ]);
    const error = await store.sync().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(received()).toEqual(['POST /users']);
    expect(server.requests[0]?.json).toMatchObject({ name: 'Cy' });
    expect(good?.phantom).toBe(false);
    expect(error).toBeInstanceOf(BatchError);
    if (!(error instanceof BatchError)) return;
    expect(error.errors.map((failure) => failure.kind)).toEqual(['validation', 'validation']);
    expect(thrown?.phantom).toBe(true);
    expect(thrown?.errors['email']).toEqual([expect.stringMatching(/^is invalid \(custom threw: .+\)$/)]);
    expect(badMessage?.errors).toEqual({ name: ['is invalid (length threw: no message for X)'] });
    expect(store.getNewRecords()).toEqual([thrown, badMessage]);
  });

  it('record.validate() returns the failure instead of throwing; save() rejects with kind validation and sends nothing', async () => {
    const Nicknamed = defineNicknamed();
    const record = new Nicknamed({ name: 'Dee', email: null });
    expect(record.validate()).toEqual({ email: [expect.stringMatching(/^is invalid \(custom threw: /)] });
    await expect(record.save()).rejects.toMatchObject({ kind: 'validation', message: expect.stringMatching(/not saved: email is invalid \(custom threw: /) });
    expect(received()).toEqual([]);
  });
});
