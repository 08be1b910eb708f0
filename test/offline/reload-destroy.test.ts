/**
 * After a reload, a row the app destroys through a loaded copy is not left listed by the record
 * the outbox restored for it (issue 28, case 9): a pending create the server applied, or a
 * pending update of a saved row.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Operation, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { attached, closeAll, opened, proxyErrorOf, ReopenableStorage, requestLines, rowsOf } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [{ id: 1, uid: 'a', name: 'ann', rev: 0 }] } });
});

afterEach(async () => {
  await closeAll();
  await server.close();
});

it('a create the server applied, replayed after a reload: the loaded copy destroyed, the store lists neither', async () => {
  const storage = new ReopenableStorage();
  const first = await attached(server, { storage });
  server.inject({ type: 'reset-after', match: { method: 'POST' } });
  await proxyErrorOf(new first.Item({ uid: 'b', name: 'bob', rev: 0 }).save());
  await first.outbox.close();
  opened.splice(opened.indexOf(first.outbox), 1);
  server.inject({ type: 'delay', ms: 200, match: { method: 'POST' } });
  const second = await attached(server, { storage });
  const store = new Store({ model: second.Item, pageSize: 0 });
  await store.load();
  const loaded = store.getRange().find((record) => record.get('uid') === 'b' && !record.phantom)!;
  await loaded.destroy();
  await second.outbox.flush();
  expect(rowsOf(server).map((row) => row['uid'])).toEqual(['a']);
  expect(store.getRange().map((record) => record.get('uid'))).toEqual(['a']);
  expect(second.outbox.getSnapshot()).toMatchObject({ pending: 0, failed: 0 });
});

it('a pending update restored after a reload: a loaded copy of its row destroyed, the restored record leaves the store', async () => {
  const storage = new ReopenableStorage();
  const first = await attached(server, { storage });
  const before = new Store({ model: first.Item, pageSize: 0 });
  await before.load();
  server.respond('PUT', '/items/1', { status: 401, body: {} }, { times: 1 });
  before.getById(1)!.set('name', 'ANN');
  await proxyErrorOf(before.getById(1)!.save());
  await first.outbox.close();
  opened.splice(opened.indexOf(first.outbox), 1);
  server.respond('PUT', '/items/1', { status: 401, body: {} }, { times: 1 });
  const second = await attached(server, { storage });
  await second.outbox.flush(); // paused ('auth') again
  const store = new Store({ model: second.Item, pageSize: 0 });
  await store.load();
  expect(store.getRange().map((record) => record.get('name'))).toEqual(['ANN']);
  // Another copy of the row (read by the model's proxy), destroyed through the outbox.
  const read = new Operation({ action: 'read' });
  await second.Item.getProxy().read(read);
  const copy = read.resultSet!.records[0];
  if (!(copy instanceof second.Item)) throw new Error('expected a record');
  const destroyed = copy.destroy();
  second.outbox.resume();
  await second.outbox.flush();
  await destroyed;
  expect(rowsOf(server)).toEqual([]);
  expect(requestLines(server).filter((line) => line.startsWith('DELETE'))).toEqual(['DELETE /items/1']);
  expect(store.getRange()).toEqual([]);
  expect(second.outbox.getSnapshot()).toMatchObject({ pending: 0, failed: 0 });
});
