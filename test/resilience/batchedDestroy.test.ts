/**
 * A batched DELETE answered 404 or 410 says that some record of the batch is missing, not which:
 * a server that deletes all or nothing (the test server, most batch endpoints) deleted none of
 * them, and json-server answers 404 to any DELETE on the collection. Only a DELETE of one record
 * answered so means that record is gone. A record whose last destroy may have been applied is
 * sent alone, where a 404 says it is gone; a batch answered 404 fails, and its records are then
 * sent one by one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { defineItem, itemProxy, rejectionOf, requestLines, rowsOf } from './helpers.js';

let server: TestServer;

const ROWS = ['ann', 'bob', 'cid', 'dan'].map((name, i) => ({ id: i + 1, uid: name, name, rev: 0 }));

beforeEach(async () => {
  server = await startTestServer({ resources: { items: ROWS } });
});

afterEach(async () => {
  await server.close();
});

async function loadedStore() {
  const Item = defineItem(itemProxy(server, { batchActions: true }));
  const store = new Store({ model: Item, pageSize: 0 });
  await store.load();
  const byName = (name: string) => {
    const record = store.getRange().find((item) => item.get('name') === name);
    if (record === undefined) throw new Error(`no ${name}`);
    return record;
  };
  return { store, byName };
}

/** Someone else deletes the row. */
function dropRow(uid: string): void {
  const rows = server.db['items'] ?? [];
  rows.splice(rows.findIndex((row) => row['uid'] === uid), 1);
}

const deletes = (): string[] => requestLines(server).filter((line) => line.startsWith('DELETE'));

const uids = (): string[] => rowsOf(server).map((row) => String(row['uid']));

describe('a batched DELETE answered 404', () => {
  it('Ann\'s DELETE applied but every answer lost, then Bob removed: Ann is sent alone (404: gone), Bob deleted, nothing comes back', async () => {
    const { store, byName } = await loadedStore();
    store.remove(byName('ann'));
    // Applied, answer lost; each retry finds her gone (404) and loses that answer too.
    server.inject({ type: 'reset-after', times: 4, match: { method: 'DELETE' } });
    expect(await rejectionOf(store.sync())).toBeInstanceOf(BatchError);
    expect(uids()).toEqual(['bob', 'cid', 'dan']);
    server.reset();

    store.remove([byName('bob'), byName('cid')]);
    await store.sync();

    expect(uids()).toEqual(['dan']);
    // Ann alone and the batch [Bob, Cid] are in flight at once: the order they arrive in is theirs.
    expect(deletes().sort()).toEqual(['DELETE /items', 'DELETE /items/1']);
    expect(store.hasChanges()).toBe(false);
    expect(store.getRange().map((record) => record.get('name'))).toEqual(['dan']);
  });

  it('Ann deleted by someone else meanwhile: the batch [Ann, Bob] fails and Bob stays removed; the next sync sends each alone', async () => {
    const { store, byName } = await loadedStore();
    const [ann, bob] = [byName('ann'), byName('bob')];
    dropRow('ann');
    store.remove([ann, bob]);

    const error = await rejectionOf(store.sync());
    expect(error).toBeInstanceOf(BatchError);
    expect(uids()).toEqual(['bob', 'cid', 'dan']);
    expect([ann.erased, bob.erased, store.getRemovedRecords().length]).toEqual([false, false, 2]);

    server.reset();
    await store.sync();
    expect(uids()).toEqual(['cid', 'dan']);
    expect(deletes().sort()).toEqual(['DELETE /items/1', 'DELETE /items/2']);
    expect([ann.erased, bob.erased, store.hasChanges()]).toEqual([true, true, false]);
  });

  it('a server without a batch route (json-server answers 404 {} to DELETE /items): nothing counts as deleted, then one by one', async () => {
    const { store, byName } = await loadedStore();
    server.respond('DELETE', '/items', { status: 404, body: {} }, { times: 1 });
    store.remove([byName('ann'), byName('bob')]);

    expect(await rejectionOf(store.sync())).toBeInstanceOf(BatchError);
    expect(store.getRemovedRecords()).toHaveLength(2);
    await store.sync();

    expect(uids()).toEqual(['cid', 'dan']);
    expect(store.hasChanges()).toBe(false);
  });

  it('410 to a batch is no more an answer about each record than 404', async () => {
    const { store, byName } = await loadedStore();
    server.inject({ type: 'status', status: 410, match: { method: 'DELETE', path: /^\/items$/ } });
    store.remove([byName('ann'), byName('bob')]);

    expect(await rejectionOf(store.sync())).toBeInstanceOf(BatchError);
    await store.sync();
    expect(uids()).toEqual(['cid', 'dan']);
  });

  it('a DELETE of one record answered 404 is still done at once', async () => {
    const { store, byName } = await loadedStore();
    const ann = byName('ann');
    dropRow('ann');
    store.remove(ann);
    await store.sync();

    expect(ann.erased).toBe(true);
    expect(deletes()).toEqual(['DELETE /items/1']);
  });

  it('rejectChanges() after a DELETE whose answers were lost keeps the record removed (its row may be gone): the next sync confirms it alone, and an edited batch is not held by it', async () => {
    const { store, byName } = await loadedStore();
    const ann = byName('ann');
    store.remove(ann);
    server.inject({ type: 'reset-after', times: 4, match: { method: 'DELETE' } });
    expect(await rejectionOf(store.sync())).toBeInstanceOf(BatchError);
    server.reset();

    store.rejectChanges();
    expect(store.getRange().map((record) => record.get('name'))).toEqual(['bob', 'cid', 'dan']);
    for (const record of store.getRange()) record.set('rev', 1);
    await store.sync();

    expect(deletes()).toEqual(['DELETE /items/1']);
    expect(rowsOf(server).map((row) => [row['uid'], row['rev']])).toEqual([['bob', 1], ['cid', 1], ['dan', 1]]);
    expect([ann.erased, store.hasChanges()]).toEqual([true, false]);
  });

  it('rejectChanges() after a DELETE that certainly failed brings the record back', async () => {
    const { store, byName } = await loadedStore();
    store.remove(byName('ann'));
    server.inject({ type: 'status', status: 403, match: { method: 'DELETE' } });
    expect(await rejectionOf(store.sync())).toBeInstanceOf(BatchError);

    store.rejectChanges();
    expect(store.getRange().map((record) => record.get('name'))).toEqual(['ann', 'bob', 'cid', 'dan']);
    expect(store.hasChanges()).toBe(false);
  });
});
