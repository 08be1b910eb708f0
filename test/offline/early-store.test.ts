/**
 * A store made (or loaded) before its outbox's open() resolved, as an app that builds its stores
 * at module load does (API.md 10: stores of attached models show restored new records after
 * their first load, hide pending destroys and keep pending updates on top; 13: the page a
 * ReadCache restores is shown as a load). The outbox restores its records on open(): a store that
 * loaded before then must still get them. Against the test server on 127.0.0.1; a reload is new
 * model classes and a new outbox over the same storage. (s5-review's offline.review.test.ts found it.)
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Store } from '../../src/index.js';
import { MemoryStorage, Outbox, ReadCache } from '../../src/offline.js';
import { defineItem } from '../resilience/helpers.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { outboxProxy, ReopenableStorage } from './helpers.js';

let server: TestServer;
const outboxes: Outbox[] = [];

beforeEach(async () => {
  server = await startTestServer({
    resources: {
      items: [
        { id: 1, uid: 'one', name: 'Server name', rev: 0 },
        { id: 2, uid: 'two', name: 'Deleted offline', rev: 0 },
      ],
    },
  });
});

afterEach(async () => {
  for (const outbox of outboxes.splice(0)) await outbox.close();
  await server.close();
});

/** A page: fresh Item class, an outbox over `storage` (not opened yet). */
function page(storage: MemoryStorage) {
  const Item = defineItem(outboxProxy(server));
  const outbox = new Outbox({ name: 'early', storage, models: [Item] });
  outboxes.push(outbox);
  return { Item, outbox };
}

const cut = (methods: string[]) => {
  for (const method of methods) server.inject({ type: 'reset-before', match: { method }, times: 1000 });
};

/** The first page, online for its load, then offline: a create, an update of row 1, a destroy of row 2, all queued. */
async function writeOffline(storage: MemoryStorage, cache?: ReadCache): Promise<void> {
  const { Item, outbox } = page(storage);
  await outbox.open();
  const store = new Store({ model: Item, pageSize: 0, ...(cache === undefined ? {} : { persist: { cache, key: 'items' } }) });
  await store.load();
  await cache?.flush();
  cut(['POST', 'PUT', 'PATCH', 'DELETE']);
  const [created] = store.add({ uid: 'new', name: 'Made offline', rev: 0 });
  await Promise.allSettled([created!.save(), store.getById(1)!.set('name', 'Edited offline') && store.getById(1)!.save(), store.getById(2)!.destroy()]);
  expect(outbox.getSnapshot().pending).toBe(3);
  await outbox.close();
  outboxes.splice(outboxes.indexOf(outbox), 1);
  server.reset();
}

const names = (store: Store<InstanceType<ReturnType<typeof defineItem>>>) => store.getRange().map((record) => record.get('name'));

it('a store restored from a ReadCache before outbox.open() resolved shows the restored writes: the new record, the edit, not the destroyed row', async () => {
  const storage = new ReopenableStorage();
  const cacheStorage = new ReopenableStorage();
  await writeOffline(storage, new ReadCache({ storage: cacheStorage, scope: 'u1' }));
  // Reloaded offline: the store is made before open() was called.
  cut(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
  const { Item, outbox } = page(storage);
  const store = new Store({ model: Item, pageSize: 0, persist: { cache: new ReadCache({ storage: cacheStorage, scope: 'u1' }), key: 'items' } });
  await outbox.open();
  expect(await store.restored).toBe(true);
  await store.load().catch(() => undefined); // offline: the restored page stays
  expect(names(store).sort()).toEqual(['Edited offline', 'Made offline']);
});

it('a store loaded before outbox.open() was called lists the restored new record at its next load, and hides the destroyed row', async () => {
  const storage = new ReopenableStorage();
  await writeOffline(storage);
  cut(['POST', 'PUT', 'PATCH', 'DELETE']);
  const { Item, outbox } = page(storage);
  const store = new Store({ model: Item, pageSize: 0 });
  await store.load();
  await outbox.open();
  await store.load();
  // (Row 1 stays the copy loaded before open(): its pending edit is sent, not shown on it.)
  expect(names(store).sort()).toEqual(['Made offline', 'Server name']);
});
