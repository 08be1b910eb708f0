/**
 * JsonWriter (API.md section 4) seen on the wire: what a create, update (PUT and PATCH) and
 * destroy send, with rootProperty, allowSingle, writeAllFields, writeRecordId, clientIdProperty,
 * dateFormat and transform, plus the Ext body pitfalls the contract fixes.
 */
import { describe, expect, it } from 'vitest';
import { JsonWriter, Model, Operation, Request as ProxyRequest, RestProxy } from '../../src/index.js';
import { recordingFetch, type RecordingFetch } from '../helpers/recordingFetch.js';
import { objectBody, serverLike } from '../helpers/proxyTestKit.js';

class User extends Model<{ id: number; name: string; email: string }> {
  static override fields = ['id', 'name', 'email'];
}

class Meeting extends Model<{ id: number; title: string; startsAt: Date }> {
  static override fields = ['id', 'title', { name: 'startsAt', type: 'date' }];
}

class Account extends Model<{ id: number; name: string; secret: string; score: number; fullName: string }> {
  static override fields = [
    'id',
    'name',
    { name: 'secret', persist: false },
    { name: 'score', serialize: (value: unknown) => `score:${String(value)}` },
    { name: 'fullName', mapping: 'full_name' },
  ];
}

type RestConfig = NonNullable<ConstructorParameters<typeof RestProxy>[0]>;

function setup(config: RestConfig = {}): { proxy: RestProxy; fetch: RecordingFetch } {
  const fetch = recordingFetch(serverLike());
  return { fetch, proxy: new RestProxy({ url: 'http://api.test/users', model: User, fetch, retry: 0, ...config }) };
}

function ed(): User {
  const user = new User({ id: 2, name: 'Ed', email: 'ed@example.com' });
  user.set('name', 'Edward');
  return user;
}

async function update(proxy: RestProxy, ...records: User[]): Promise<void> {
  await proxy.update(new Operation({ action: 'update', records }));
}

describe('JsonWriter: create', () => {
  it('a phantom record is written with its fields and no id of the client making (Ext pitfall 8 fixed)', async () => {
    const { proxy, fetch } = setup();
    await proxy.create(new Operation({ action: 'create', records: [new User({ name: 'Ed', email: 'ed@example.com' })] }));
    const body = objectBody(fetch.last().json);
    expect(body).toEqual({ name: 'Ed', email: 'ed@example.com' });
    expect(Object.keys(body)).not.toContain('id');
  });

  it("clientIdProperty sends the phantom record's client id, still without an id", async () => {
    const { proxy, fetch } = setup({ writer: { clientIdProperty: 'clientId' } });
    const user = new User({ name: 'Ed', email: 'ed@example.com' });
    await proxy.create(new Operation({ action: 'create', records: [user] }));
    const body = objectBody(fetch.last().json);
    expect(body.clientId).toBe(user.clientId);
    expect(Object.keys(body)).not.toContain('id');
  });

  it('clientIdProperty on a batched create gives each item its own client id', async () => {
    const { proxy, fetch } = setup({ batchActions: true, writer: { clientIdProperty: 'clientId' } });
    const a = new User({ name: 'A', email: 'a@x' });
    const b = new User({ name: 'B', email: 'b@x' });
    expect(a.clientId).not.toBe(b.clientId);
    await proxy.create(new Operation({ action: 'create', records: [a, b] }));
    expect(fetch.last().json).toEqual([
      { name: 'A', email: 'a@x', clientId: a.clientId },
      { name: 'B', email: 'b@x', clientId: b.clientId },
    ]);
  });
});

describe('JsonWriter: update', () => {
  it('Ext pitfall 16 fixed: a PUT writes every field by default (a full replace must not drop fields)', async () => {
    const { proxy, fetch } = setup();
    await update(proxy, ed());
    expect(fetch.last().method).toBe('PUT');
    expect(fetch.last().json).toEqual({ id: 2, name: 'Edward', email: 'ed@example.com' });
  });

  it('a PATCH writes only the changed fields and the id by default', async () => {
    const { proxy, fetch } = setup({ actionMethods: { update: 'PATCH' } });
    await update(proxy, ed());
    expect(fetch.last().method).toBe('PATCH');
    expect(fetch.last().json).toEqual({ id: 2, name: 'Edward' });
  });

  it('writeAllFields false makes a PUT partial', async () => {
    const { proxy, fetch } = setup({ writer: { writeAllFields: false } });
    await update(proxy, ed());
    expect(fetch.last().json).toEqual({ id: 2, name: 'Edward' });
  });

  it('writeAllFields true makes a PATCH complete', async () => {
    const { proxy, fetch } = setup({ actionMethods: { update: 'PATCH' }, writer: new JsonWriter({ writeAllFields: true }) });
    await update(proxy, ed());
    expect(fetch.last().json).toEqual({ id: 2, name: 'Edward', email: 'ed@example.com' });
  });

  it('writeRecordId false leaves the id out of the body (it is in the url)', async () => {
    const { proxy, fetch } = setup({ writer: { writeRecordId: false } });
    await update(proxy, ed());
    const body = objectBody(fetch.last().json);
    expect(Object.keys(body)).not.toContain('id');
    expect(body.name).toBe('Edward');
  });
});

describe('JsonWriter: shape of the body', () => {
  it('allowSingle (default true): one record is an object, several an array', async () => {
    const { proxy, fetch } = setup({ batchActions: true });
    await update(proxy, ed());
    expect(Array.isArray(fetch.last().json)).toBe(false);
    const other = new User({ id: 3, name: 'T', email: 't@x' });
    other.set('email', 'tommy@x');
    await update(proxy, ed(), other);
    expect(fetch.last().json).toEqual([
      { id: 2, name: 'Edward', email: 'ed@example.com' },
      { id: 3, name: 'T', email: 'tommy@x' },
    ]);
  });

  it('allowSingle false: one record is written as an array of one', async () => {
    const { proxy, fetch } = setup({ writer: { allowSingle: false } });
    await update(proxy, ed());
    expect(fetch.last().json).toEqual([{ id: 2, name: 'Edward', email: 'ed@example.com' }]);
  });

  it('rootProperty wraps the body', async () => {
    const { proxy, fetch } = setup({ writer: { rootProperty: 'user' } });
    await update(proxy, ed());
    expect(fetch.last().json).toEqual({ user: { id: 2, name: 'Edward', email: 'ed@example.com' } });
  });

  it('transform(data, request) gives the body that is sent', async () => {
    const seen: Array<{ data: unknown; action: unknown; isRequest: boolean }> = [];
    const transform = (data: unknown, request: ProxyRequest): unknown => {
      seen.push({ data, action: request.action, isRequest: request instanceof ProxyRequest });
      return { wrapped: data };
    };
    const { proxy, fetch } = setup({ writer: { transform } });
    await update(proxy, ed());
    expect(seen).toEqual([{ data: { id: 2, name: 'Edward', email: 'ed@example.com' }, action: 'update', isRequest: true }]);
    expect(fetch.last().json).toEqual({ wrapped: { id: 2, name: 'Edward', email: 'ed@example.com' } });
  });

  it('Ext pitfall 14 fixed: a DELETE of one record has no body', async () => {
    const { proxy, fetch } = setup();
    await proxy.destroy(new Operation({ action: 'destroy', records: [new User({ id: 2, name: 'Ed', email: 'e' })] }));
    expect(fetch.last().method).toBe('DELETE');
    expect(fetch.last().body).toBeUndefined();
  });
});

describe('JsonWriter: field values', () => {
  it('Ext pitfall 17 fixed: dates are written as ISO 8601 by default', async () => {
    const fetch = recordingFetch(serverLike());
    const proxy = new RestProxy({ url: 'http://api.test/meetings', model: Meeting, fetch });
    const event = new Meeting({ title: 'Launch', startsAt: new Date('2024-03-01T09:30:00.000Z') });
    await proxy.create(new Operation({ action: 'create', records: [event] }));
    expect(objectBody(fetch.last().json).startsAt).toBe('2024-03-01T09:30:00.000Z');
  });

  it('a date held as the string it was given is written in ISO 8601 UTC, whatever form the string had', async () => {
    const fetch = recordingFetch(serverLike());
    const proxy = new RestProxy({ url: 'http://api.test/meetings', model: Meeting, fetch, batchActions: true });
    const given = ['2024-03-01T09:30:00.000Z', '2024-03-01', '2024-03-01T10:30:00+01:00', '2024-02-30T09:30:00.000Z', 'not a date'];
    const meetings = given.map((startsAt, i) => Meeting.fromServer({ id: i + 1, title: `M${i}`, startsAt }));
    for (const meeting of meetings) meeting.set('title', 'changed');
    await proxy.update(new Operation({ action: 'update', records: meetings }));
    const written = (fetch.last().json as { startsAt: unknown }[]).map((item) => item.startsAt);
    // Canonical strings go out as they are; others are converted first (Feb 30 is Date.parse's March 1).
    expect(written).toEqual(['2024-03-01T09:30:00.000Z', '2024-03-01T00:00:00.000Z', '2024-03-01T09:30:00.000Z', new Date('2024-02-30T09:30:00.000Z').toISOString(), null]);
  });

  it('dateFormat applies to a date still held as its canonical string too', async () => {
    const fetch = recordingFetch(serverLike());
    const proxy = new RestProxy({ url: 'http://api.test/meetings', model: Meeting, fetch, writer: { dateFormat: 'timestamp' } });
    const meeting = Meeting.fromServer({ id: 1, title: 'Launch', startsAt: '2024-03-01T09:30:00.000Z' });
    meeting.set('title', 'Launch!');
    await proxy.update(new Operation({ action: 'update', records: [meeting] }));
    expect(objectBody(fetch.last().json).startsAt).toBe(Date.UTC(2024, 2, 1, 9, 30) / 1000);
  });

  it('persist false fields are never written; serialize shapes a value; mapping names the key', async () => {
    const fetch = recordingFetch(serverLike());
    const proxy = new RestProxy({ url: 'http://api.test/accounts', model: Account, fetch });
    const account = new Account({ name: 'A', secret: 'hush', score: 7, fullName: 'Ann A' });
    await proxy.create(new Operation({ action: 'create', records: [account] }));
    const body = objectBody(fetch.last().json);
    expect(Object.keys(body)).not.toContain('secret');
    expect(body.score).toBe('score:7');
    expect(body.full_name).toBe('Ann A');
    expect(Object.keys(body)).not.toContain('fullName');

    const saved = new Account({ id: 4, name: 'B', secret: 'hush', score: 1, fullName: 'Bo B' });
    saved.set('secret', 'changed');
    saved.set('name', 'Bee');
    await proxy.update(new Operation({ action: 'update', records: [saved] }));
    expect(Object.keys(objectBody(fetch.last().json))).not.toContain('secret');
  });
});
