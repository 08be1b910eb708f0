/**
 * `discard()` of a failed entry of a record a store holds, against a real server on 127.0.0.1:
 * the store sees its local edits rejected (a removed record listed again, a new one gone, an
 * edited one back to the server's values) and its next sync sends nothing for them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { attached, closeAll, rejectionOf, ReopenableStorage, requestLines, rowsOf } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [{ id: 1, uid: 'a', name: 'ann', rev: 0 }, { id: 2, uid: 'b', name: 'bob', rev: 0 }] } });
});

afterEach(async () => {
  await closeAll();
  await server.close();
});

async function loaded(options: { maxAttempts?: number; etag?: boolean } = {}) {
  const { Item, outbox } = await attached(server, { maxAttempts: options.maxAttempts ?? 5, proxy: { etag: options.etag ?? false } });
  const store = new Store({ model: Item, pageSize: 0 });
  await store.load();
  return { Item, outbox, store };
}

const names = (store: Store<InstanceType<Awaited<ReturnType<typeof loaded>>['Item']>>): unknown[] => store.getRange().map((record) => record.get('name'));

describe('discard() of a store-made destroy', () => {
  it.each([
    ['403, failed at once', 403, 5],
    ['500 at maxAttempts', 500, 1],
  ])('%s: the removed record is listed again where it stood, and the next sync sends no DELETE', async (_name, status, maxAttempts) => {
    const { outbox, store } = await loaded({ maxAttempts });
    const ann = store.getAt(0)!;
    server.respond('DELETE', '/items/1', { status, body: { message: 'no' } }, { times: 1 });
    store.remove(ann);
    await rejectionOf(store.sync());
    expect(outbox.failed.map((entry) => [entry.action, entry.record])).toEqual([['destroy', ann]]);
    const added: unknown[] = [];
    store.on('add', ({ records }) => added.push(...records));
    await outbox.failed[0]!.discard();
    expect(names(store)).toEqual(['ann', 'bob']);
    expect(store.getRemovedRecords()).toEqual([]);
    expect(added).toEqual([ann]);
    expect(ann.erased).toBe(false);
    await store.sync();
    await outbox.flush();
    expect(requestLines(server).filter((line) => line.startsWith('DELETE'))).toEqual(['DELETE /items/1']);
    expect(rowsOf(server).map((row) => row['name'])).toEqual(['ann', 'bob']);
    expect(outbox.getSnapshot()).toMatchObject({ pending: 0, failed: 0 });
  });

  it('412 (failed with the server\'s current version): the record comes back, no DELETE sent again', async () => {
    const { outbox, store } = await loaded({ etag: true });
    const bob = store.getAt(1)!;
    bob.etag = '"stale"';
    store.remove(bob);
    await rejectionOf(store.sync());
    expect(outbox.failed[0]?.error.status).toBe(412);
    await outbox.failed[0]!.discard();
    expect(names(store)).toEqual(['ann', 'bob']);
    await store.sync();
    await outbox.flush();
    expect(requestLines(server).filter((line) => line.startsWith('DELETE'))).toHaveLength(1);
    expect(rowsOf(server)).toHaveLength(2);
  });

  it('an edited record removed (update + destroy = one DELETE): it comes back with the server\'s values', async () => {
    const { outbox, store } = await loaded();
    const ann = store.getAt(0)!;
    server.respond('DELETE', '/items/1', { status: 403, body: {} }, { times: 1 });
    ann.set('name', 'ANN');
    store.remove(ann);
    await rejectionOf(store.sync());
    await outbox.failed[0]!.discard();
    expect(names(store)).toEqual(['ann', 'bob']);
    expect(ann.dirty).toBe(false);
    await store.sync();
    await outbox.flush();
    expect(requestLines(server).filter((line) => !line.startsWith('GET'))).toEqual(['DELETE /items/1']);
    expect(outbox.getSnapshot()).toMatchObject({ pending: 0, failed: 0 });
  });

  it('after a reload: the stored failed destroy hides the record from a load; discard() lists it again', async () => {
    const storage = new ReopenableStorage();
    const before = await attached(server, { storage });
    const first = new Store({ model: before.Item, pageSize: 0 });
    await first.load();
    server.respond('DELETE', '/items/1', { status: 403, body: {} }, { times: 1 });
    first.remove(first.getAt(0)!);
    await rejectionOf(first.sync());
    await before.outbox.close();

    const after = await attached(server, { storage });
    const store = new Store({ model: after.Item, pageSize: 0 });
    await store.load();
    expect(names(store)).toEqual(['bob']);
    expect(after.outbox.failed.map((entry) => entry.action)).toEqual(['destroy']);
    await after.outbox.failed[0]!.discard();
    // Listed again (restored from its entry, it has only its id until a load brings its values).
    expect(store.getRange().map((record) => record.getId())).toEqual([1, 2]);
    await store.load();
    expect(names(store)).toEqual(['ann', 'bob']);
    await store.sync();
    await after.outbox.flush();
    expect(requestLines(server).filter((line) => line.startsWith('DELETE'))).toHaveLength(1);
  });

  it('record.destroy() discarded: the record stays listed (it never left)', async () => {
    const { outbox, store } = await loaded();
    const ann = store.getAt(0)!;
    server.respond('DELETE', '/items/1', { status: 403, body: {} }, { times: 1 });
    await rejectionOf(ann.destroy());
    await outbox.failed[0]!.discard();
    expect(names(store)).toEqual(['ann', 'bob']);
    expect(store.getRemovedRecords()).toEqual([]);
  });
});

describe('discard() of a create or an update a store holds', () => {
  it('a failed create of a record added to the store: it leaves the store, the next sync sends nothing', async () => {
    const { outbox, store } = await loaded();
    server.respond('POST', '/items', { status: 403, body: {} }, { times: 1 });
    const [cid] = store.add({ uid: 'c', name: 'cid', rev: 0 });
    await rejectionOf(store.sync());
    await outbox.failed[0]!.discard();
    expect(cid!.erased).toBe(true);
    expect(names(store)).toEqual(['ann', 'bob']);
    expect(store.getNewRecords()).toEqual([]);
    await store.sync();
    await outbox.flush();
    expect(requestLines(server).filter((line) => !line.startsWith('GET'))).toEqual(['POST /items']);
    expect(rowsOf(server)).toHaveLength(2);
  });

  it('a failed update: the values the server last confirmed, still listed, the next sync sends nothing', async () => {
    const { outbox, store } = await loaded();
    server.respond('PUT', '/items/2', { status: 403, body: {} }, { times: 1 });
    const bob = store.getAt(1)!;
    bob.set('name', 'BOB');
    await rejectionOf(store.sync());
    await outbox.failed[0]!.discard();
    expect(names(store)).toEqual(['ann', 'bob']);
    expect(store.getUpdatedRecords()).toEqual([]);
    await store.sync();
    await outbox.flush();
    expect(requestLines(server).filter((line) => !line.startsWith('GET'))).toEqual(['PUT /items/2']);
  });
});
