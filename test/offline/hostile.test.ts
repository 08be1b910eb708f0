/**
 * Hostile stored entries and odd answers, against the test server on 127.0.0.1: a migrate that
 * throws or returns garbage, stored values the model cannot take (`__proto__`, a field since
 * removed), an entry without an id, a Retry-After too far away for a timer.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStorage, MemoryStorage, type StoredObject } from '../../src/offline.js';
import { defineItem } from '../resilience/helpers.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { attached, closeAll, outboxProxy, proxyErrorOf, rejectionOf, ReopenableStorage, requestsOf, rowsOf, sleep } from './helpers.js';

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer({ resources: { items: [{ id: 1, uid: 'a', name: 'ann', rev: 0 }] } });
});
afterEach(async () => {
  await closeAll();
  await server.close();
});

/** A storage holding these objects, as another version of the app left them. */
class Preloaded extends MemoryStorage {
  constructor(readonly objects: StoredObject[]) {
    super();
  }
  override load(): Promise<StoredObject[]> {
    return Promise.resolve(structuredClone(this.objects));
  }
}

/** The entry a create sent while offline leaves in storage. */
async function storedCreate(): Promise<StoredObject> {
  const storage = new ReopenableStorage();
  const { Item, outbox } = await attached(server, { storage });
  server.inject({ type: 'reset-before', match: { method: 'POST' }, times: 1 });
  await proxyErrorOf(new Item({ uid: 'b', name: 'bob', rev: 0 }).save());
  await outbox.close();
  const [entry] = await storage.load();
  if (entry === undefined) throw new Error('nothing stored');
  return entry;
}

describe('hostile stored entries', () => {
  // Garbage past the types: JSON.parse gives what a migrate written in plain JS could return.
  const garbage: ReadonlyArray<[string, (entry: StoredObject) => StoredObject | null]> = [
    ['throws', () => {
      throw new Error('boom');
    }],
    ['returns undefined', () => JSON.parse('{}').none],
    ['returns a string', () => JSON.parse('"x"')],
    ['returns an entry without an id', (entry) => JSON.parse(JSON.stringify({ ...entry, id: undefined, v: 1 }))],
  ];
  for (const [what, migrate] of garbage) {
    it(`a migrate that ${what}: the entry is failed 'config', never sent, never dropped; open() resolves`, async () => {
      const old = { ...(await storedCreate()), v: 99 };
      const storage = new Preloaded([old]);
      const before = server.requests.length;
      const { outbox } = await attached(server, { storage, migrate });
      await outbox.flush();
      expect(outbox.failed.map((failed) => failed.error.kind)).toEqual(['config']);
      expect(server.requests.length).toBe(before);
      expect(await storage.load()).toEqual([old]);
    });
  }

  it('stored values the model cannot take ("__proto__", a field since removed) fail that entry with kind config; open() resolves and the others are sent', async () => {
    const good = await storedCreate();
    const proto: StoredObject = JSON.parse(JSON.stringify({ ...good, id: 'p', clientId: 'items-p', seq: 2 }).replace('"values":{', '"values":{"__proto__":{"polluted":1},'));
    const removed: StoredObject = { ...good, id: 'r', clientId: 'items-r', seq: 3, values: { uid: 'r', gone: 'x' } };
    const { outbox } = await attached(server, { storage: new Preloaded([good, proto, removed]) });
    await outbox.flush();
    expect(outbox.failed.map((failed) => [failed.action, failed.error.kind])).toEqual([['create', 'config'], ['create', 'config']]);
    expect(outbox.failed.map((failed) => failed.error.message).join()).toMatch(/__proto__.*gone|gone.*__proto__/);
    expect(rowsOf(server).map((row) => row['uid'])).toEqual(['a', 'b']);
    expect(requestsOf(server, 'POST').every((request) => !request.body.includes('polluted'))).toBe(true);
    expect(Reflect.get({}, 'polluted')).toBeUndefined();
  });

  it('stored values the model cannot convert (an id "..", a field whose type changed) fail every entry of their record with kind config; open() and flush() resolve', async () => {
    const good = await storedCreate();
    const update = { ...good, action: 'update', phase: 'queued', sent: false, before: { name: 'ann' }, values: { name: 'x' } };
    const dotted: StoredObject = { ...update, id: 'd', clientId: 'items-d', seq: 2, rid: '..' };
    const retyped: StoredObject = { ...update, id: 't', clientId: 'items-t', seq: 3, rid: 1, values: { rev: 'many' } };
    const after: StoredObject = { ...update, id: 't2', clientId: 'items-t', seq: 4, rid: 1, values: { name: 'later' } };
    const { outbox } = await attached(server, { storage: new Preloaded([good, dotted, retyped, after]) });
    await outbox.flush();
    expect(outbox.failed.map((failed) => failed.error.kind)).toEqual(['config', 'config', 'config']);
    expect(outbox.failed[0]?.error.message).toContain('".."');
    expect(requestsOf(server, 'PUT')).toHaveLength(0);
    expect(rowsOf(server).map((row) => [row['uid'], row['name']])).toEqual([['a', 'ann'], ['b', 'bob']]);
  });
});

describe('odd answers', () => {
  for (const [status, after] of [[503, 'Wed, 21 Oct 2015 07:28:00 GMT'], [503, '0'], [429, '0']] as const) {
    it(`a ${status} with Retry-After ${after}, answered to every try, is not tried again at once (it was sent some 170 times a second)`, async () => {
      const { Item, outbox } = await attached(server);
      server.respond('POST', '/items', { status, headers: { 'Retry-After': after }, body: {} });
      await proxyErrorOf(new Item({ uid: 'b', name: 'bob', rev: 0 }).save());
      await sleep(600);
      expect(requestsOf(server, 'POST')).toHaveLength(1);
      expect(outbox.getSnapshot()).toMatchObject({ paused: 'rate-limit', pending: 1 });
    });
  }

  it('a 503 whose Retry-After is beyond what a timer holds keeps the outbox paused (a timer overflowed fires at once)', async () => {
    const { Item, outbox } = await attached(server);
    server.respond('POST', '/items', { status: 503, headers: { 'Retry-After': '99999999999' }, body: {} }, { times: 1 });
    expect(await proxyErrorOf(new Item({ uid: 'b', name: 'bob', rev: 0 }).save())).toMatchObject({ status: 503, queued: true });
    await sleep(150);
    expect(outbox.getSnapshot()).toMatchObject({ paused: 'rate-limit', pending: 1 });
    expect(requestsOf(server, 'POST')).toHaveLength(1);
  });

  it("resolve('theirs') takes a server version that has fields the model does not declare, as a read does", async () => {
    const { Item, outbox } = await attached(server);
    const record = new Item({ id: 1, uid: 'a', name: 'ann', rev: 0 });
    server.respond('PUT', '/items/1', { status: 409, body: { id: 1, uid: 'a', name: 'server', rev: 3, updated_at: '2026-01-01' } }, { times: 1 });
    record.set('name', 'mine');
    expect(await proxyErrorOf(record.save())).toMatchObject({ status: 409 });
    await outbox.failed[0]?.resolve('theirs');
    expect([record.get('name'), record.get('rev'), record.dirty]).toEqual(['server', 3, false]);
    expect(outbox.getSnapshot().failed).toBe(0);
  });

  it('maxBytes counts bytes: text of 4-byte characters past the bound is refused (full) before any request', async () => {
    const { Item, outbox } = await attached(server, { maxBytes: 2000 });
    // 450 emoji: 900 UTF-16 units, 1800 bytes in UTF-8; the entry is past 2000 bytes, though not 2000 units.
    const record = new Item({ uid: 'e', name: '\u{1F600}'.repeat(450), rev: 0 });
    expect(await rejectionOf(record.save())).toMatchObject({ name: 'OutboxError', kind: 'full' });
    expect(requestsOf(server, 'POST')).toHaveLength(0);
    expect([record.phantom, record.dirty, outbox.getSnapshot().pending]).toEqual([true, true, 0]);
  });

  it('after a reload, a new record never takes the client id of a restored one (its failed entry was taken over and lost)', async () => {
    const good = await storedCreate();
    // The client id the next new record of this page would be given, as after a reload (the counter starts over).
    const counter = Number(/\d+$/.exec(new (defineItem(outboxProxy(server)))({}).clientId)?.[0]);
    const restored: StoredObject = { ...good, clientId: `items-${counter + 1}`, phase: 'failed', sent: false, error: { kind: 'validation', status: 422, message: 'bad' } };
    const { Item, outbox } = await attached(server, { storage: new Preloaded([restored]) });
    const fresh = new Item({ uid: 'n', name: 'new', rev: 0 });
    expect(fresh.clientId).not.toBe(restored['clientId']);
    expect(outbox.statusOf(fresh)).toBeUndefined();
    await fresh.save();
    expect(outbox.failed.map((failed) => [failed.error.status, failed.record === fresh])).toEqual([[422, false]]);
    expect(rowsOf(server).map((row) => row['uid'])).toEqual(['a', 'n']);
  });

  it('FileStorage writes no credential to disk: not the Authorization header, extraParams or a key in the url', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rest-proxy-hostile-'));
    try {
      const proxy = { url: `${server.url}/items?api_key=SECRET-URL`, headers: { Authorization: 'Bearer SECRET-HEADER' }, extraParams: { token: 'SECRET-PARAM' } };
      const { Item, outbox } = await attached(server, { storage: new FileStorage({ path: join(dir, 'outbox.jsonl') }), proxy });
      server.inject({ type: 'reset-before', match: { method: 'POST' }, times: 1 });
      await proxyErrorOf(new Item({ uid: 'c', name: 'cid', rev: 0 }).save());
      server.respond('POST', '/items', { status: 412, body: {} }, { times: 1 });
      await outbox.flush();
      expect(requestsOf(server, 'POST').map((request) => request.headers['authorization'])).toEqual(['Bearer SECRET-HEADER', 'Bearer SECRET-HEADER']);
      const written = await Promise.all((await readdir(dir)).map((file) => readFile(join(dir, file), 'utf8')));
      expect(written.join('')).toContain('"cid"');
      expect(written.join('')).not.toMatch(/SECRET|api_key|Bearer/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
