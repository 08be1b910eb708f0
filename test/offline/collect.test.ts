/**
 * A record is held by the outbox only while it has entries (API.md 10): once its writes are done
 * it can be collected like any record, whether it was written in this page or made again from
 * stored entries after a reload. Collection is observed with WeakRefs and a real garbage collector.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Store } from '../../src/index.js';
import { collected } from '../helpers/gc.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { attached, closeAll, ReopenableStorage } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [] } });
});

afterEach(async () => {
  await closeAll();
  await server.close();
});

it('lets go of the records whose writes are done: created, updated, destroyed, through a store sync too', async () => {
  const { Item, outbox } = await attached(server);
  const refs: WeakRef<object>[] = [];
  await (async () => {
    for (let i = 0; i < 20; i++) {
      const record = new Item({ uid: `u${i}`, name: `item ${i}`, rev: 0 });
      refs.push(new WeakRef(record));
      await record.save();
      record.set('name', `renamed ${i}`);
      await record.save();
      if (i % 2 === 0) await record.destroy();
    }
    const store = new Store({ model: Item, pageSize: 0 });
    store.add(Array.from({ length: 20 }, (_, i) => ({ uid: `s${i}`, name: `synced ${i}`, rev: 0 })));
    for (const record of store.getRange()) refs.push(new WeakRef(record));
    await store.sync();
    store.destroy();
  })();
  await outbox.flush();
  expect(outbox.getSnapshot()).toMatchObject({ pending: 0, sending: 0, failed: 0 });
  expect(await collected(refs)).toBe(0);
});

it('lets go of records made again from stored entries once they are sent', async () => {
  const storage = new ReopenableStorage();
  const first = await attached(server, { storage });
  server.inject({ type: 'reset-before', match: { method: 'POST' }, times: 100 });
  // Not awaited: a write not yet attempted while offline settles on its own answer (API.md 10), never on the probe's.
  for (let i = 0; i < 10; i++) new first.Item({ uid: `r${i}`, name: `item ${i}`, rev: 0 }).save().catch(() => undefined);
  await first.outbox.flush(); // paused ('offline'): the head probed, all ten stored
  expect(first.outbox.getSnapshot()).toMatchObject({ pending: 10, paused: 'offline' });
  await first.outbox.close();
  server.reset();
  const refs: WeakRef<object>[] = [];
  const second = await attached(server, { storage });
  await second.outbox.flush();
  await (async () => {
    const store = new Store({ model: second.Item, pageSize: 0 });
    await store.load();
    for (const record of store.getRange()) refs.push(new WeakRef(record));
    store.destroy();
  })();
  expect(refs).toHaveLength(10);
  expect(await collected(refs)).toBe(0);
});
