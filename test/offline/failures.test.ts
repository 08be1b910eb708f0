/**
 * Every row of the outbox's failure table, against a real server on 127.0.0.1 answering it
 * (scripted routes and injected faults), with what the app sees: the save's rejection, the
 * snapshot, the events and `outbox.failed`.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { extensions } from '../../src/model/extensions.js';
import { MemoryStorage, OutboxError, type FailedEntry, type StorageCommit, type StoredObject } from '../../src/offline.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { attached, closeAll, proxyErrorOf, rejectionOf, ReopenableStorage, requestLines, requestsOf, rowsOf } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [{ id: 1, uid: 'a', name: 'ann', rev: 0 }] } });
});

afterEach(async () => {
  vi.useRealTimers();
  extensions.waitsFor = undefined;
  await closeAll();
  await server.close();
});

const bob = { uid: 'b', name: 'bob', rev: 0 };

describe('network failure, timeout, offline', () => {
  it('pauses the outbox (offline), counts nothing, and probes only its head; flush() probes at once', async () => {
    const { Item, outbox } = await attached(server);
    const paused: string[] = [];
    outbox.on('paused', ({ reason }) => paused.push(reason));
    outbox.on('resumed', () => paused.push('resumed'));
    server.inject({ type: 'reset-before', match: { method: 'POST' }, times: 2 });
    const one = new Item(bob);
    const two = new Item({ uid: 'c', name: 'cid', rev: 0 });
    const errors = await Promise.all([proxyErrorOf(one.save()), proxyErrorOf(two.save())]);
    expect(errors.map((error) => [error.kind, error.queued])).toEqual([['network', true], ['network', true]]);
    expect(outbox.getSnapshot()).toMatchObject({ paused: 'offline', pending: 2, failed: 0 });
    // Saved while offline: kept, not attempted, settled by its own answer once online.
    const three = new Item({ uid: 'd', name: 'dan', rev: 0 });
    const saved = three.save();
    server.reset();
    await outbox.flush();
    expect((await saved).wasSuccessful()).toBe(true);
    expect(paused).toEqual(['offline', 'resumed']);
    expect(outbox.getSnapshot()).toMatchObject({ paused: false, pending: 0 });
    expect(rowsOf(server).map((row) => row['uid'])).toEqual(['a', 'b', 'c', 'd']);
    expect(requestsOf(server, 'POST')).toHaveLength(3);
  });

  it('a save waiting behind the attempt that paused the outbox is not told its error: it settles on its own answer', async () => {
    const { Item, outbox } = await attached(server, { concurrency: 1 });
    server.inject({ type: 'reset-before', match: { method: 'POST' } });
    const saves = [new Item(bob).save(), new Item({ uid: 'c', name: 'cid', rev: 0 }).save()];
    expect(await proxyErrorOf(saves[0]!)).toMatchObject({ kind: 'network', queued: true });
    expect(requestsOf(server, 'POST')).toHaveLength(1);
    await outbox.flush();
    expect((await saves[1]!).wasSuccessful()).toBe(true);
  });

  it('writes failing together start one backoff: the first probe still comes near 1 s after', async () => {
    const { Item, outbox } = await attached(server);
    server.inject({ type: 'reset-before', match: { method: 'POST' }, times: 4 });
    const saves = ['b', 'c', 'd', 'e'].map((uid) => proxyErrorOf(new Item({ uid, name: uid, rev: 0 }).save()));
    await Promise.all(saves);
    expect(requestsOf(server, 'POST')).toHaveLength(4);
    await vi.waitFor(() => expect(outbox.getSnapshot().paused).toBe(false), { timeout: 1600 });
    await outbox.flush();
    expect(rowsOf(server)).toHaveLength(5);
  });

  it('a probe answered by the server, even with a failure, ends the offline pause; entries backing off then go', async () => {
    const { Item, outbox } = await attached(server);
    server.respond('POST', '/items', { status: 500, body: {} }, { times: 1 });
    const waiting = new Item(bob);
    await proxyErrorOf(waiting.save());
    expect(outbox.statusOf(waiting)).toBe('waiting');
    server.inject({ type: 'reset-before', match: { method: 'POST' } });
    const probe = new Item({ uid: 'c', name: 'cid', rev: 0 });
    await proxyErrorOf(probe.save());
    expect(outbox.getSnapshot().paused).toBe('offline');
    server.respond('POST', '/items', { status: 400, body: {} }, { times: 1 });
    await outbox.flush();
    expect(outbox.failed.map((entry) => entry.record)).toEqual([probe]);
    expect(outbox.getSnapshot().paused).toBe(false);
    await vi.waitFor(() => expect(waiting.phantom).toBe(false), { timeout: 2500 });
  });

  it('the online event (or the page becoming visible) probes at once', async () => {
    const target = new EventTarget();
    vi.stubGlobal('addEventListener', target.addEventListener.bind(target));
    vi.stubGlobal('removeEventListener', target.removeEventListener.bind(target));
    const { Item, outbox } = await attached(server);
    server.inject({ type: 'reset-before', match: { method: 'POST' } });
    await proxyErrorOf(new Item(bob).save());
    expect(outbox.getSnapshot().paused).toBe('offline');
    target.dispatchEvent(new Event('online'));
    await vi.waitFor(() => expect(outbox.getSnapshot().paused).toBe(false), { timeout: 500 });
    vi.unstubAllGlobals();
  });

  it('a timeout pauses it too', async () => {
    const { Item, outbox } = await attached(server, { proxy: { timeout: 100 } });
    server.inject({ type: 'stall', ms: 400, match: { method: 'POST' } });
    expect(await proxyErrorOf(new Item(bob).save())).toMatchObject({ kind: 'timeout', queued: true });
    expect(outbox.getSnapshot().paused).toBe('offline');
  });

  it('probes with backoff while offline (no request before the delay)', async () => {
    const { Item, outbox } = await attached(server);
    server.inject({ type: 'reset-before', match: { method: 'POST' } });
    await proxyErrorOf(new Item(bob).save());
    expect(requestsOf(server, 'POST')).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(requestsOf(server, 'POST')).toHaveLength(1); // the first probe is near 1 s away
    await vi.waitFor(() => expect(outbox.getSnapshot().paused).toBe(false), { timeout: 3000 });
    expect(rowsOf(server)).toHaveLength(2);
  });
});

describe('5xx, 408, an unreadable answer, 409 to a resent entry', () => {
  it.each([
    ['500', { type: 'status', status: 500 }],
    ['408', { type: 'status', status: 408 }],
    ['an unreadable answer', { type: 'html' }],
  ] as const)('%s: the entry backs off and counts an attempt; at maxAttempts it is failed', async (_name, fault) => {
    const { Item, outbox } = await attached(server, { maxAttempts: 2 });
    const failed: FailedEntry[] = [];
    outbox.on('failed', (entry) => failed.push(entry));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    server.inject({ ...fault, match: { method: 'POST' }, times: 2 });
    const record = new Item(bob);
    const first = await proxyErrorOf(record.save());
    expect(first.queued).toBe(true);
    expect(outbox.statusOf(record)).toBe('waiting');
    expect(outbox.getSnapshot()).toMatchObject({ pending: 1, paused: false });
    await vi.advanceTimersByTimeAsync(700); // not yet: near 1 s
    expect(requestsOf(server, 'POST')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(600);
    await vi.waitFor(() => expect(failed).toHaveLength(1));
    expect(requestsOf(server, 'POST')).toHaveLength(2);
    expect(outbox.getSnapshot()).toMatchObject({ pending: 0, failed: 1 });
    expect(failed[0]).toMatchObject({ record, action: 'create' });
    // Retried by the app: sent again, now answered.
    vi.useRealTimers();
    await failed[0]!.retry();
    await outbox.flush();
    expect(outbox.getSnapshot()).toMatchObject({ pending: 0, failed: 0 });
    expect(record.phantom).toBe(false);
  });

  it('a 409 to a create sent again under its key backs off (our own earlier try), then replays its answer', async () => {
    const { Item, outbox } = await attached(server);
    server.inject({ type: 'reset-after', match: { method: 'POST' } });
    const record = new Item(bob);
    await proxyErrorOf(record.save());
    server.respond('POST', '/items', { status: 409, body: { message: 'in progress' } }, { times: 1 });
    await outbox.flush();
    expect(outbox.statusOf(record)).toBe('waiting');
    expect(outbox.getSnapshot().failed).toBe(0);
  });
});

describe('429, or 503 with Retry-After', () => {
  it.each([429, 503])('%s pauses the whole outbox (rate-limit) until then', async (status) => {
    const { Item, outbox } = await attached(server);
    server.respond('POST', '/items', { status, headers: { 'Retry-After': '1' }, body: {} }, { times: 1 });
    const error = await proxyErrorOf(new Item(bob).save());
    expect(error).toMatchObject({ status, queued: true });
    expect(outbox.getSnapshot().paused).toBe('rate-limit');
    const resumed = new Promise((resolve) => outbox.on('resumed', resolve));
    const started = Date.now();
    await resumed;
    expect(Date.now() - started).toBeGreaterThan(700);
    await outbox.flush();
    expect(rowsOf(server)).toHaveLength(2);
  });
});

describe('401', () => {
  it('pauses the outbox (auth) until resume(), counting nothing', async () => {
    const { Item, outbox } = await attached(server, { maxAttempts: 1 });
    server.respond('POST', '/items', { status: 401, body: {} }, { times: 1 });
    const record = new Item(bob);
    expect(await proxyErrorOf(record.save())).toMatchObject({ status: 401, queued: true });
    await outbox.flush();
    expect(outbox.getSnapshot()).toMatchObject({ paused: 'auth', pending: 1, failed: 0 });
    expect(requestsOf(server, 'POST')).toHaveLength(1);
    outbox.resume();
    await outbox.flush();
    expect(record.phantom).toBe(false);
    expect(outbox.getSnapshot()).toMatchObject({ paused: false, pending: 0, failed: 0 });
  });
});

describe('400, 403, 404 to a create or update, validation', () => {
  it.each([400, 403, 404])('%s fails the entry at once; it holds back only its record', async (status) => {
    const { Item, outbox } = await attached(server);
    server.respond('POST', '/items', { status, body: { message: 'no' } }, { times: 1 });
    const record = new Item(bob);
    const other = new Item({ uid: 'c', name: 'cid', rev: 0 });
    const error = await proxyErrorOf(record.save());
    expect(error.queued).toBeFalsy();
    await other.save();
    expect(outbox.failed.map((entry) => entry.action)).toEqual(['create']);
    expect(outbox.getSnapshot().failed).toBe(1);
    // Editing a failed record queues it again.
    record.set('rev', 5);
    await record.save();
    expect(outbox.getSnapshot().failed).toBe(0);
    expect(rowsOf(server).map((row) => row['uid'])).toEqual(['a', 'c', 'b']);
  });

  it('a 404 to an update fails; discard() takes back the confirmed values', async () => {
    const { Item, outbox } = await attached(server);
    const gone = new Item({ id: 9, uid: 'z', name: 'zed', rev: 0 });
    gone.set('name', 'ZED');
    await proxyErrorOf(gone.save());
    expect(outbox.failed).toHaveLength(1);
    await outbox.failed[0]!.discard();
    expect(gone.get('name')).toBe('zed');
    expect(gone.dirty).toBe(false);
    expect(outbox.getSnapshot().failed).toBe(0);
  });

  it('a validation answer fails at once and sets record.errors; discard() drops a new record', async () => {
    server = await restart({ required: { items: ['name'] } });
    const { Item, outbox } = await attached(server);
    const record = new Item({ uid: 'b', name: '', rev: 0 });
    const error = await proxyErrorOf(record.save({ validate: false }));
    expect(error.kind).toBe('validation');
    expect(record.errors['name']).toBeDefined();
    const [failed] = outbox.failed;
    expect(failed?.error.kind).toBe('validation');
    await failed!.discard();
    expect(record.erased).toBe(true);
  });
});

describe('other 409, 412', () => {
  it('412 fails with the server\'s current version; resolve("theirs") takes it, resolve("mine") sends again over it', async () => {
    const { Item, outbox } = await attached(server, { proxy: { etag: true } });
    const record = new Item({ id: 1, uid: 'a', name: 'ann', rev: 0 });
    record.etag = '"stale"';
    record.set('name', 'mine');
    const error = await proxyErrorOf(record.save());
    expect(error.status).toBe(412);
    const [failed] = outbox.failed;
    expect(failed?.error).toMatchObject({ status: 412, current: { id: 1, name: 'ann' } });
    await failed!.resolve('mine');
    await outbox.flush();
    expect(rowsOf(server)[0]).toMatchObject({ name: 'mine' });
    expect(outbox.getSnapshot().failed).toBe(0);

    record.etag = '"stale"';
    record.set('name', 'again');
    await proxyErrorOf(record.save());
    await outbox.failed[0]!.resolve('theirs');
    expect(record.get('name')).toBe('mine');
    expect(record.dirty).toBe(false);
  });

  it('a 409 to a first send fails with the answer as current', async () => {
    const { Item, outbox } = await attached(server);
    server.respond('POST', '/items', { status: 409, body: { id: 7, uid: 'b', name: 'theirs' } }, { times: 1 });
    await proxyErrorOf(new Item(bob).save());
    expect(outbox.failed[0]?.error).toMatchObject({ status: 409, current: { name: 'theirs' } });
  });
});

describe('DELETE answered 404 or 410', () => {
  it.each([404, 410])('%s: done (the record is gone)', async (status) => {
    const { Item, outbox } = await attached(server);
    server.respond('DELETE', '/items/1', { status, body: {} }, { times: 1 });
    const record = new Item({ id: 1, uid: 'a', name: 'ann', rev: 0 });
    const sent: string[] = [];
    outbox.on('sent', ({ action }) => sent.push(action));
    await record.destroy();
    expect(record.erased).toBe(true);
    expect(sent).toEqual(['destroy']);
    expect(outbox.getSnapshot()).toMatchObject({ pending: 0, failed: 0 });
  });
});

describe('dependants and the id map', () => {
  it('a child waits for its phantom parent; a failed parent holds back only it; a confirmed one gives it its id', async () => {
    const { Item, outbox, storage } = await attached(server);
    const parent = new Item({ uid: 'p', name: 'parent', rev: 0 });
    const child = new Item({ uid: 'c', name: parent.clientId, rev: 0 });
    const other = new Item({ uid: 'o', name: 'other', rev: 0 });
    extensions.waitsFor = (record) => (record === child && parent.phantom ? [parent] : []);
    server.respond('POST', '/items', { status: 400, body: {} }, { times: 1 });
    const mapped: unknown[] = [];
    outbox.on('idmapped', ({ clientId, id }) => mapped.push([clientId, id]));
    const parentSaved = proxyErrorOf(parent.save());
    const childSaved = proxyErrorOf(child.save());
    await other.save();
    await parentSaved;
    // Told, not left pending: held (not failed itself, not sent) until the parent is retried.
    expect(await childSaved).toMatchObject({ kind: 'dependency', queued: true });
    expect(outbox.statusOf(child)).toBe('queued');
    expect(requestLines(server)).toEqual(['POST /items', 'POST /items']);
    const stored = (await storage.load()).find((entry) => entry['clientId'] === child.clientId);
    expect(stored?.['parents']).toEqual([parent.clientId]);
    await outbox.failed[0]!.retry();
    await outbox.flush();
    const parentId = parent.getId();
    expect(mapped).toContainEqual([parent.clientId, parentId]);
    // The child's reference, stored as the parent's client id, was rewritten before it was sent.
    expect(rowsOf(server).find((row) => row['uid'] === 'c')).toMatchObject({ name: String(parentId) });
  });
});

describe('dependants across a reload', () => {
  it('a child stored waiting for its parent waits after a reload, and takes the id the replayed parent gets', async () => {
    const storage = new ReopenableStorage();
    const first = await attached(server, { storage });
    const parent = new first.Item({ uid: 'p', name: 'parent', rev: 0 });
    const child = new first.Item({ uid: 'c', name: parent.clientId, rev: 0 });
    extensions.waitsFor = (record) => (record === child && parent.phantom ? [parent] : []);
    server.inject({ type: 'reset-after', match: { method: 'POST' } });
    void child.save().catch(() => undefined); // not attempted: pending until its own answer
    await parent.save().catch((error: unknown) => error);
    expect(requestsOf(server, 'POST')).toHaveLength(1); // the child waited
    await first.outbox.close();
    extensions.waitsFor = undefined;
    const second = await attached(server, { storage });
    await second.outbox.flush();
    const rows = rowsOf(server);
    const parentRow = rows.find((row) => row['uid'] === 'p');
    expect(rows.filter((row) => row['uid'] === 'p')).toHaveLength(1);
    expect(rows.find((row) => row['uid'] === 'c')).toMatchObject({ name: String(parentRow?.['id']) });
    expect(await storage.load()).toEqual([]);
  });
});

describe('bounds and storage', () => {
  it('past maxEntries a write is refused (full) before any request, and the record keeps its edits', async () => {
    const { Item, outbox } = await attached(server, { maxEntries: 1 });
    server.respond('POST', '/items', { status: 401, body: {} }, { times: 1 });
    await proxyErrorOf(new Item(bob).save());
    const record = new Item({ uid: 'c', name: 'cid', rev: 0 });
    const error = await rejectionOf(record.save());
    expect(error).toBeInstanceOf(OutboxError);
    expect(error).toMatchObject({ kind: 'full' });
    expect(record.phantom && record.get('name') === 'cid').toBe(true);
    expect(outbox.getSnapshot().pending).toBe(1);
    expect(requestsOf(server, 'POST')).toHaveLength(1);
  });

  it('a quota error refuses the write before any request', async () => {
    class Full extends MemoryStorage {
      override commit(change: StorageCommit): Promise<void> {
        return change.put?.length ? Promise.reject(new OutboxError('quota', 'full disk')) : super.commit(change);
      }
    }
    const { Item, outbox } = await attached(server, { storage: new Full() });
    const record = new Item(bob);
    const saved = record.save();
    expect(outbox.getSnapshot().pending).toBe(1);
    expect(await rejectionOf(saved)).toMatchObject({ kind: 'quota' });
    expect(outbox.getSnapshot().pending).toBe(0);
    expect(server.requests).toEqual([]);
    expect(record.dirty).toBe(true);
  });

  it('storage that cannot be opened rejects open() (unavailable), unless fallback: memory', async () => {
    class Broken extends MemoryStorage {
      override load(): Promise<StoredObject[]> {
        return Promise.reject(new Error('SecurityError'));
      }
    }
    await expect(attached(server, { storage: new Broken() })).rejects.toMatchObject({ kind: 'unavailable' });
    await closeAll();
    const { Item, outbox } = await attached(server, { storage: new Broken(), fallback: 'memory' });
    expect(outbox.getSnapshot().durable).toBe(false);
    await new Item(bob).save();
    expect(rowsOf(server)).toHaveLength(2);
  });

  it('a stored entry of a model not attached, or of an unknown version, is failed (config): never sent, never dropped', async () => {
    const storage = new MemoryStorage();
    const foreign = { id: 'x1', v: 99, entity: 'items', clientId: 'items-x', action: 'create', seq: 1 };
    const orphan = { id: 'x2', v: 1, entity: 'gone', clientId: 'gone-1', action: 'create', rid: null, values: { name: 'n' }, before: {}, parents: [], key: 'k', etag: null, seq: 2, attempts: 0, next: 0, phase: 'queued', sent: false, error: null, at: 1 };
    await storage.commit({ put: [foreign, orphan] });
    const { outbox } = await attached(server, { storage });
    await outbox.flush();
    expect(outbox.failed.map((entry) => entry.error.kind)).toEqual(['config', 'config']);
    expect(outbox.getSnapshot().failed).toBe(2);
    expect(server.requests).toEqual([]);
    expect((await storage.load()).map((entry) => entry.id).sort()).toEqual(['x1', 'x2']);
  });

  it('migrate makes an older entry current', async () => {
    const storage = new MemoryStorage();
    const old = { id: 'x1', v: 0, entity: 'items', clientId: 'items-x', action: 'create', rid: null, values: { uid: 'm', name: 'moved', rev: 0 }, before: {}, parents: [], key: 'k-m', etag: null, seq: 1, attempts: 0, next: 0, phase: 'queued', sent: false, error: null, at: 1 };
    await storage.commit({ put: [old] });
    const { outbox } = await attached(server, { storage, migrate: (entry) => ({ ...entry, v: 1 }) });
    await outbox.flush();
    expect(rowsOf(server).map((row) => row['uid'])).toEqual(['a', 'm']);
    expect(requestsOf(server, 'POST')[0]?.headers['idempotency-key']).toBe('k-m');
  });
});

async function restart(options: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  await server.close();
  return startTestServer({ resources: { items: [{ id: 1, uid: 'a', name: 'ann', rev: 0 }] }, ...options });
}
