/**
 * Review of: A BufferedStore of a model attached to an outbox (API.md 10 and 11), after a reload: the records
 * the outbox restored (unsent creates, edits, destroys) are shown as a Store shows them, whether
 * the first page arrived before or after `outbox.open()`, and a restored record no page shows is
 * let go once its write settled. Against the test server on 127.0.0.1; a reload is a new model
 * class and a new outbox over the same storage; "offline" is every write reset before it arrives.
 */
import { expect, it } from 'vitest';
import { type BufferedStore } from '../../src/buffered.js';
import { settle } from '../buffered/helpers.js';
import { grid, names, offline, page, ReopenableStorage, server, useRestoredServer, writeOffline, type Item } from '../buffered/restoredHarness.js';

useRestoredServer();

const ids = (store: BufferedStore<Item>) => store.getSnapshot().rows.map((row) => ('get' in row ? row.get('id') : null));

it('outbox.open() after the store that read before it was destroyed: nothing thrown, another store shows the writes', async () => {
  const storage = new ReopenableStorage();
  await writeOffline(storage, [1], [2]);
  offline();
  const { Item, outbox } = page(storage);
  const early = grid(Item);
  await early.loadRange(0, 9);
  early.destroy();
  const errors: unknown[] = [];
  const onError = (error: unknown) => errors.push(error);
  process.on('unhandledRejection', onError);
  try {
    await outbox.open();
    for (let turn = 0; turn < 5; turn++) await settle();
  } finally {
    process.off('unhandledRejection', onError);
  }
  expect(errors).toEqual([]);
  expect(() => early.getCount()).not.toThrow();
  const late = grid(Item);
  await late.loadRange(0, 9);
  expect(names(late).slice(0, 3)).toEqual(['Made offline', 'Edited 1', 'Server 3']);
});

it('two stores of one model read before open(): both show the restored writes once it opened, and the same records', async () => {
  const storage = new ReopenableStorage();
  await writeOffline(storage, [1], [2]);
  offline();
  const { Item, outbox } = page(storage);
  const one = grid(Item);
  const two = grid(Item);
  await Promise.all([one.loadRange(0, 9), two.loadRange(0, 9)]);
  await outbox.open();
  for (let turn = 0; turn < 5; turn++) await settle();
  const expected = ['Made offline', 'Edited 1', 'Server 3', 'Server 4', 'Server 5', 'Server 6', 'Server 7', 'Server 8', 'Server 9', 'Server 10'];
  expect(names(one)).toEqual(expected);
  expect(names(two)).toEqual(expected);
  expect(one.getById(1)).toBe(two.getById(1));
  expect(one.getNewRecords()).toEqual(two.getNewRecords());
  expect([one.getCount(), two.getCount()]).toEqual([20, 20]);
  server.reset();
  await outbox.flush();
  expect(server.requests.filter((req) => req.method !== 'GET').map((req) => `${req.method} ${req.path}`).sort()).toEqual(['DELETE /items/2', 'POST /items', 'PUT /items/1']);
  expect(one.getRemovedRecords()).toEqual([]);
  expect(two.getRemovedRecords()).toEqual([]);
  expect(names(one).slice(0, 3)).toEqual(['Made offline', 'Edited 1', 'Server 3']);
  expect(names(two).slice(0, 3)).toEqual(['Made offline', 'Edited 1', 'Server 3']);
});

it('a sort while a restored write of a row no page shows is in flight: the record is let go once it settles, and its page then shows the saved row', async () => {
  const storage = new ReopenableStorage();
  await writeOffline(storage, [25], [26]);
  offline();
  const { Item, outbox } = page(storage);
  await outbox.open();
  const store = grid(Item);
  await store.loadRange(0, 9);
  expect(store.getById(25)?.get('name')).toBe('Edited 25');
  server.reset();
  server.inject({ type: 'delay', ms: 150, match: { method: ['PUT', 'DELETE', 'POST'] }, times: 10 });
  const flushed = outbox.flush();
  await settle();
  const sorted = store.sort('id', 'DESC');
  await Promise.all([sorted, flushed]);
  for (let turn = 0; turn < 5; turn++) await settle();
  expect(store.getUpdatedRecords()).toEqual([]);
  expect(store.getRemovedRecords()).toEqual([]);
  await store.loadRange(0, 29);
  expect(store.getById(25)?.get('name')).toBe('Edited 25');
  expect(store.getById(26)).toBeUndefined();
  expect(store.getTotalCount() ?? store.getCount()).toBeGreaterThan(0);
  expect(ids(store).slice(0, 4)).toEqual([31, 30, 29, 28]);
  expect(new Set(ids(store)).size).toBe(10); // one row per record
});

it('a failed restored destroy of a row on a page shown, discarded: the row is back on its page', async () => {
  const storage = new ReopenableStorage();
  await writeOffline(storage, [], [2]);
  server.inject({ type: 'status', status: 422, match: { method: ['DELETE'] }, times: 10 });
  const { Item, outbox } = page(storage);
  await outbox.open();
  await outbox.flush();
  expect(outbox.getSnapshot()).toMatchObject({ failed: 1 });
  const store = grid(Item);
  await store.loadRange(0, 9);
  expect(store.getRemovedRecords().map((record) => record.get('id'))).toEqual([2]);
  expect(ids(store).includes(2)).toBe(false);
  for (const failed of outbox.failed) await failed.discard();
  for (let turn = 0; turn < 5; turn++) await settle();
  await store.loadRange(0, 9);
  expect(store.getRemovedRecords()).toEqual([]);
  expect(store.getCount()).toBe(30); // grow mode: pages 1 and 2 read (row 2 out, the visible rows reached page 2), one page past
  expect(ids(store).filter((id) => id !== null && id <= 10)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
});
