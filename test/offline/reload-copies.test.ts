/**
 * A create the server applied but never answered, replayed after a reload (a new Outbox over the
 * same storage): a store loaded before the replay is answered lists the restored record and the
 * loaded row, and the user may act on either; once the create is confirmed (same key, same row),
 * the store holds one record, no edit is lost, and nothing is sent twice (issue 23's offline soak).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Store } from '../../src/index.js';
import type { Item } from '../resilience/helpers.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { attached, closeAll, proxyErrorOf, ReopenableStorage, requestLines, rowsOf, sleep } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [{ id: 1, uid: 'a', name: 'ann', rev: 0 }] } });
});

afterEach(async () => {
  await closeAll();
  await server.close();
});

/** Bob created, answered by a reset after the server applied it; reloaded with the replay held `ms`; a store loaded meanwhile. */
async function reloadedWithCopies(ms: number) {
  const storage = new ReopenableStorage();
  const proxy = { actionMethods: { update: 'PATCH' } } as const;
  const first = await attached(server, { storage, proxy });
  server.inject({ type: 'reset-after', match: { method: 'POST' } });
  await proxyErrorOf(new first.Item({ uid: 'b', name: 'bob', rev: 0 }).save());
  await first.outbox.close();
  server.inject({ type: 'delay', ms, match: { method: 'POST' } });
  const second = await attached(server, { storage, proxy });
  const store = new Store({ model: second.Item, pageSize: 0 });
  await store.load();
  const bobs = store.getRange().filter((record) => record.get('uid') === 'b');
  expect(bobs.map((record) => record.phantom)).toEqual([true, false]);
  const [restored, loaded] = bobs as [(typeof bobs)[number], (typeof bobs)[number]];
  return { ...second, store, restored, loaded };
}

const bobsOf = (store: Store<Item>) => store.getRange().filter((record) => record.get('uid') === 'b');

it('once the replayed create is confirmed, the store holds one record for the row', async () => {
  const { outbox, store } = await reloadedWithCopies(200);
  await outbox.flush();
  expect(bobsOf(store)).toHaveLength(1);
  expect(bobsOf(store)[0]!.getId()).toBe(2);
});

it('an edit of the restored record after the loaded copy was destroyed: the row stays destroyed, nothing is sent for it', async () => {
  const { outbox, store, restored, loaded } = await reloadedWithCopies(300);
  await loaded.destroy(); // answered before the replay
  restored.set('name', 'BOB');
  const saved = restored.save().catch((error: unknown) => error);
  await outbox.flush();
  await saved;
  expect(outbox.failed.map((entry) => entry.error.status)).toEqual([]);
  expect(requestLines(server).filter((line) => !line.startsWith('GET'))).toEqual(['POST /items', 'POST /items', 'DELETE /items/2']);
  expect(rowsOf(server).map((row) => row['uid'])).toEqual(['a']);
  expect(bobsOf(store)).toEqual([]);
});

it('the loaded copy destroyed while the replay runs, the restored record edited: one DELETE, after the edit or none, never a 404', async () => {
  const { outbox, store, restored, loaded } = await reloadedWithCopies(150);
  server.inject({ type: 'delay', ms: 300, match: { method: 'DELETE' } });
  const destroyed = loaded.destroy().catch((error: unknown) => error);
  restored.set('name', 'BOB');
  const saved = restored.save().catch((error: unknown) => error);
  await outbox.flush();
  await Promise.all([destroyed, saved]);
  expect(outbox.failed.map((entry) => entry.error.status)).toEqual([]);
  expect(requestLines(server).filter((line) => line.startsWith('DELETE'))).toEqual(['DELETE /items/2']);
  expect(rowsOf(server).map((row) => row['uid'])).toEqual(['a']);
  expect(bobsOf(store)).toEqual([]);
});

it('the loaded copy edited before the confirmation, the restored record after: one record with both edits, each sent once', async () => {
  const { outbox, store, restored, loaded } = await reloadedWithCopies(300);
  server.inject({ type: 'delay', ms: 400, match: { method: 'PATCH' } });
  loaded.set('name', 'BOB');
  const first = loaded.save().catch((error: unknown) => error);
  restored.set('rev', 5);
  const second = restored.save().catch((error: unknown) => error);
  await outbox.flush();
  await Promise.all([first, second]);
  await outbox.flush();
  expect(outbox.failed).toEqual([]);
  expect(bobsOf(store)).toHaveLength(1);
  expect(bobsOf(store)[0]!.getData()).toMatchObject({ id: 2, name: 'BOB', rev: 5 });
  expect(bobsOf(store)[0]!.dirty).toBe(false);
  expect(rowsOf(server).filter((row) => row['uid'] === 'b')).toMatchObject([{ id: 2, name: 'BOB', rev: 5 }]);
  const patches = server.requests.filter((request) => request.method === 'PATCH').map((request) => request.json);
  expect(patches.filter((body) => JSON.stringify(body).includes('BOB'))).toHaveLength(1);
});

it('the loaded copy edited, its PATCH backing off when the create is confirmed, the restored record destroyed: no PATCH answered 404', async () => {
  const { outbox, store, restored, loaded } = await reloadedWithCopies(200);
  server.inject({ type: 'status', status: 503, match: { method: 'PATCH' } });
  loaded.set('name', 'BOB');
  const saved = loaded.save().catch((error: unknown) => error);
  const destroyed = restored.destroy().catch((error: unknown) => error);
  await Promise.all([saved, destroyed]);
  for (let waited = 0; waited < 6_000 && outbox.getSnapshot().pending + outbox.getSnapshot().sending > 0; waited += 50) await sleep(50);
  await outbox.flush();
  expect(outbox.failed.map((entry) => `${entry.action} ${entry.error.status}`)).toEqual([]);
  expect(server.requests.filter((request) => request.method === 'PATCH').length).toBeLessThanOrEqual(2);
  expect(rowsOf(server).map((row) => row['uid'])).toEqual(['a']);
  expect(bobsOf(store)).toEqual([]);
}, 10_000);
