/**
 * A BufferedStore of a model attached to an outbox (API.md 10 and 11), after a reload: the records
 * the outbox restored (unsent creates, edits, destroys) are shown as a Store shows them, whether
 * the first page arrived before or after `outbox.open()`, and a restored record no page shows is
 * let go once its write settled. Against the test server on 127.0.0.1; a reload is a new model
 * class and a new outbox over the same storage; "offline" is every write reset before it arrives.
 */
import { expect, it } from 'vitest';
import { collected } from '../helpers/gc.js';
import { settle } from './helpers.js';
import { grid, names, offline, page, ReopenableStorage, server, useRestoredServer, writeOffline } from './restoredHarness.js';

useRestoredServer();

it('a page that arrived before outbox.open() shows the restored writes once it opened, as a page that arrives after', async () => {
  const storage = new ReopenableStorage();
  await writeOffline(storage, [1], [2]);
  offline(); // reloaded: reads work, writes still fail (nothing is replayed meanwhile)
  const { Item, outbox } = page(storage);
  const early = grid(Item);
  await early.loadRange(0, 9);
  expect(names(early)).toEqual(['Server 1', 'Server 2', 'Server 3', 'Server 4', 'Server 5', 'Server 6', 'Server 7', 'Server 8', 'Server 9', 'Server 10']);
  let heard = 0;
  early.subscribe(() => heard++);
  heard = 0;
  await outbox.open();
  for (let turn = 0; turn < 5; turn++) await settle();
  const late = grid(Item);
  await late.loadRange(0, 9);
  const expected = ['Made offline', 'Edited 1', 'Server 3', 'Server 4', 'Server 5', 'Server 6', 'Server 7', 'Server 8', 'Server 9', 'Server 10'];
  expect(names(late)).toEqual(expected);
  expect(names(early)).toEqual(expected);
  expect(heard).toBeGreaterThan(0);
  expect([early.getCount(), early.getTotalCount()]).toEqual([late.getCount(), late.getTotalCount()]);
  expect(early.getCount()).toBe(20); // grow mode (no total): a page past the one read, one added, one removed
  expect(early.getNewRecords().map((record) => record.get('name'))).toEqual(['Made offline']);
  expect(early.getUpdatedRecords().map((record) => record.get('id'))).toEqual([1]);
  expect(early.getRemovedRecords().map((record) => record.get('id'))).toEqual([2]);
  // One record per row: both grids show the record the outbox writes.
  expect(early.getById(1)).toBe(late.getById(1));
  server.reset();
  await outbox.flush();
  expect(server.requests.filter((req) => req.method !== 'GET').map((req) => `${req.method} ${req.path}`).sort()).toEqual(['DELETE /items/2', 'POST /items', 'PUT /items/1']);
  expect(names(early).slice(0, 2)).toEqual(['Made offline', 'Edited 1']);
  expect(early.getRemovedRecords()).toEqual([]);
});

it('a restored record no page shows is let go once its write is done', async () => {
  const storage = new ReopenableStorage();
  await writeOffline(storage, [25], [26]);
  offline();
  const { Item, outbox } = page(storage);
  await outbox.open();
  const store = grid(Item);
  await store.loadRange(0, 9);
  const refs: WeakRef<object>[] = [];
  (() => {
    const edited = store.getById(25);
    expect(edited?.get('name')).toBe('Edited 25');
    expect(store.getUpdatedRecords()).toEqual([edited]);
    expect(store.getRemovedRecords().map((record) => record.get('id'))).toEqual([26]);
    refs.push(new WeakRef(edited!), new WeakRef(store.getRemovedRecords()[0]!));
  })();
  server.reset();
  await outbox.flush();
  expect(outbox.getSnapshot()).toMatchObject({ pending: 0, failed: 0 });
  expect(store.getById(25)).toBeUndefined();
  expect(store.getUpdatedRecords()).toEqual([]);
  expect(store.getRemovedRecords()).toEqual([]);
  expect(await collected(refs)).toBe(0);
});

it('a restored record no page shows is let go once its failed write is discarded; a discarded destroy is not sent by a sync', async () => {
  const storage = new ReopenableStorage();
  await writeOffline(storage, [25], [26]);
  // Reloaded: the server refuses the update and the destroy (not applied: nothing left unsure).
  server.inject({ type: 'status', status: 422, match: { method: ['PUT', 'DELETE'] }, times: 10 });
  const { Item, outbox } = page(storage);
  await outbox.open();
  await outbox.flush();
  expect(outbox.getSnapshot()).toMatchObject({ failed: 2 });
  const store = grid(Item);
  await store.loadRange(0, 9);
  expect(store.getById(25)?.get('name')).toBe('Edited 25');
  expect(store.getRemovedRecords().map((record) => record.get('id'))).toEqual([26]);
  expect(store.getCount()).toBe(19); // grow mode: a page past the one read, row 26 out
  for (const failed of outbox.failed) await failed.discard();
  expect(store.getById(25)).toBeUndefined();
  expect(store.getUpdatedRecords()).toEqual([]);
  expect(store.getRemovedRecords()).toEqual([]);
  expect(store.getCount()).toBe(20); // row 26 back
  await store.sync();
  expect(server.requests.filter((req) => req.method === 'DELETE')).toHaveLength(1); // the failed one only
});
