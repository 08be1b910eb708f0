/**
 * Review of: A BufferedStore of a model attached to an outbox (API.md 10 and 11), after a reload: the records
 * the outbox restored (unsent creates, edits, destroys) are shown as a Store shows them, whether
 * the first page arrived before or after `outbox.open()`, and a restored record no page shows is
 * let go once its write settled. Against the test server on 127.0.0.1; a reload is a new model
 * class and a new outbox over the same storage; "offline" is every write reset before it arrives.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BufferedStore } from '../../src/buffered.js';
import { Store } from '../../src/index.js';
import { Outbox } from '../../src/offline.js';
import { collected } from '../helpers/gc.js';
import { defineItem } from '../resilience/helpers.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { outboxProxy, ReopenableStorage } from '../offline/helpers.js';
import { settle } from '../buffered/helpers.js';

type Item = InstanceType<ReturnType<typeof defineItem>>;

let server: TestServer;
const outboxes: Outbox[] = [];
const grids: BufferedStore<Item>[] = [];

beforeEach(async () => {
  const items = Array.from({ length: 30 }, (_, index) => ({ id: index + 1, uid: `u${index + 1}`, name: `Server ${index + 1}`, rev: 0 }));
  server = await startTestServer({ resources: { items } });
});

afterEach(async () => {
  for (const grid of grids.splice(0)) grid.destroy();
  for (const outbox of outboxes.splice(0)) await outbox.close();
  await server.close();
});

const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'];
const offline = (): void => {
  server.inject({ type: 'reset-before', match: { method: WRITES }, times: 1000 });
};

/** A page: a fresh Item class and an outbox over `storage`, not opened. */
function page(storage: ReopenableStorage) {
  const Item = defineItem(outboxProxy(server));
  const outbox = new Outbox({ name: 'buffered', storage, models: [Item] });
  outboxes.push(outbox);
  return { Item, outbox };
}

/** The page before the reload, online for its load, then offline: a create, an update of each id of `edit`, a destroy of each of `destroy`, all queued. */
async function writeOffline(storage: ReopenableStorage, edit: number[], destroy: number[]): Promise<void> {
  const { Item, outbox } = page(storage);
  await outbox.open();
  const store = new Store({ model: Item, pageSize: 0 });
  await store.load();
  offline();
  const writes: Promise<unknown>[] = [];
  const [created] = store.add({ uid: 'new', name: 'Made offline', rev: 0 });
  writes.push(created!.save());
  for (const id of edit) writes.push(store.getById(id)!.set('name', `Edited ${id}`) && store.getById(id)!.save());
  for (const id of destroy) writes.push(store.getById(id)!.destroy());
  await Promise.allSettled(writes);
  expect(outbox.getSnapshot().pending).toBe(1 + edit.length + destroy.length);
  await outbox.close();
  outboxes.splice(outboxes.indexOf(outbox), 1);
  server.reset();
}

function grid(Item: ReturnType<typeof defineItem>): BufferedStore<Item> {
  const made = new BufferedStore<Item>({ model: Item, pageSize: 10, leadingBufferZone: 0, trailingBufferZone: 0 });
  grids.push(made);
  made.setVisibleRange(0, 9);
  return made;
}

const names = (store: BufferedStore<Item>) => store.getSnapshot().rows.map((row) => ('get' in row ? row.get('name') : null));


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
