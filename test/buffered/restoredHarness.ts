/**
 * What the tests of a BufferedStore over restored outbox writes share (test/buffered/restored.test.ts,
 * test/review/restoredRaces.review.test.ts): the test server on 127.0.0.1 with 30 items, a page
 * (a fresh model class and outbox over one storage), writes queued offline before a reload, grids.
 */
import { afterEach, beforeEach, expect } from 'vitest';
import { BufferedStore } from '../../src/buffered.js';
import { Store } from '../../src/index.js';
import { Outbox } from '../../src/offline.js';
import { defineItem } from '../resilience/helpers.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { outboxProxy, ReopenableStorage } from '../offline/helpers.js';

export { ReopenableStorage };

export type Item = InstanceType<ReturnType<typeof defineItem>>;

export let server: TestServer;
const outboxes: Outbox[] = [];
const grids: BufferedStore<Item>[] = [];

/** The test server with 30 items, and the grids and outboxes closed after each test (call at a test file's top level). */
export function useRestoredServer(): void {
  beforeEach(async () => {
    const items = Array.from({ length: 30 }, (_, index) => ({ id: index + 1, uid: `u${index + 1}`, name: `Server ${index + 1}`, rev: 0 }));
    server = await startTestServer({ resources: { items } });
  });

  afterEach(async () => {
    for (const grid of grids.splice(0)) grid.destroy();
    for (const outbox of outboxes.splice(0)) await outbox.close();
    await server.close();
  });
}

const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'];
export const offline = (): void => {
  server.inject({ type: 'reset-before', match: { method: WRITES }, times: 1000 });
};

/** A page: a fresh Item class and an outbox over `storage`, not opened. */
export function page(storage: ReopenableStorage) {
  const Item = defineItem(outboxProxy(server));
  const outbox = new Outbox({ name: 'buffered', storage, models: [Item] });
  outboxes.push(outbox);
  return { Item, outbox };
}

/** The page before the reload, online for its load, then offline: a create, an update of each id of `edit`, a destroy of each of `destroy`, all queued. */
export async function writeOffline(storage: ReopenableStorage, edit: number[], destroy: number[]): Promise<void> {
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

export function grid(Item: ReturnType<typeof defineItem>): BufferedStore<Item> {
  const made = new BufferedStore<Item>({ model: Item, pageSize: 10, leadingBufferZone: 0, trailingBufferZone: 0 });
  grids.push(made);
  made.setVisibleRange(0, 9);
  return made;
}

export const names = (store: BufferedStore<Item>) => store.getSnapshot().rows.map((row) => ('get' in row ? row.get('name') : null));

