/**
 * session.sync() and its stores (issue 29 item 9; API.md 9.3): it fires `beforesync` on each store
 * it syncs, and a listener's false keeps that store's records out of it (pending, as store.sync()
 * leaves them); a store destroyed with new records or removals leaves them to the session, whose
 * next sync sends them (it holds them strongly until then), as for a store collected without
 * destroy(). Against the test server on 127.0.0.1.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Model, Store } from '../../src/index.js';
import { belongsTo, hasMany, Session, type Accessor } from '../../src/associations.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { FAST_RETRY, requestLines, rowsOf } from '../resilience/helpers.js';

class Shelf extends Model.define({ entityName: 'shelves', fields: { id: 'int', name: 'string' }, proxy: { type: 'rest', url: '/shelves' } }) {
  static associations = { items: hasMany(() => Item, { foreignKey: 'shelfId', inverse: 'shelf' }) };
  declare items: Accessor<typeof Shelf.associations.items>;
}

class Item extends Model.define({ entityName: 'items', fields: { id: 'int', name: 'string', shelfId: 'int' }, proxy: { type: 'rest', url: '/items' } }) {
  static associations = { shelf: belongsTo(() => Shelf, { foreignKey: 'shelfId', inverse: 'items' }) };
  declare getShelf: Accessor<typeof Item.associations.shelf>;
}

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { shelves: [{ id: 1, name: 'A' }, { id: 2, name: 'B' }], items: [] } });
  Shelf.setProxy({ type: 'rest', url: `${server.url}/shelves`, retry: { ...FAST_RETRY }, timeout: 2_000 });
  Item.setProxy({ type: 'rest', url: `${server.url}/items`, retry: { ...FAST_RETRY }, timeout: 2_000 });
});

afterEach(async () => {
  await server.close();
});

/** Two stores of a session: shelf 1 edited, a new item. */
async function editedShelfAndNewItem() {
  const session = new Session();
  const shelves = new Store({ model: Shelf, pageSize: 0, session });
  const items = new Store({ model: Item, pageSize: 0, session });
  await shelves.load();
  server.reset();
  shelves.getById(1)?.set('name', 'AA');
  const [item] = items.add({ name: 'pen' });
  return { session, shelves, items, item };
}

describe('beforesync', () => {
  it('session.sync() fires it on each store it syncs, with what it will send of that store', async () => {
    const { session, shelves, items, item } = await editedShelfAndNewItem();
    const heard: string[] = [];
    shelves.on('beforesync', ({ store, create, update, destroy }) => void heard.push(`${store.model.getEntityName()} ${create.length}/${update.length}/${destroy.length}`));
    items.on('beforesync', ({ store, create, update, destroy }) => void heard.push(`${store.model.getEntityName()} ${create.length}/${update.length}/${destroy.length}`));
    await session.sync();
    expect(heard.sort()).toEqual(['items 1/0/0', 'shelves 0/1/0']);
    expect(requestLines(server).sort()).toEqual(['POST /items', 'PUT /shelves/1']);
    expect(item?.phantom).toBe(false);
  });

  it("a listener's false keeps that store's records out of the sync, pending; the other stores' are sent", async () => {
    const { session, shelves, item } = await editedShelfAndNewItem();
    const stop = shelves.on('beforesync', () => false);
    await session.sync();
    expect(requestLines(server)).toEqual(['POST /items']);
    expect(shelves.getUpdatedRecords().map((record) => record.getId())).toEqual([1]);
    expect(shelves.isSyncing).toBe(false);
    expect(item?.phantom).toBe(false);
    stop();
    await session.sync();
    expect(requestLines(server)).toEqual(['POST /items', 'PUT /shelves/1']);
    expect(shelves.hasChanges()).toBe(false);
  });
});

describe('a store destroyed with pending records', () => {
  it('leaves its new records and its removals to the next session.sync(), which sends them once', async () => {
    const session = new Session();
    const shelves = new Store({ model: Shelf, pageSize: 0, session });
    await shelves.load();
    server.reset();
    const [made] = shelves.add({ name: 'C' });
    const second = shelves.getById(2);
    if (!made || !second) throw new Error('no records');
    shelves.remove(second);
    shelves.destroy();
    await session.sync();
    expect(requestLines(server).sort()).toEqual(['DELETE /shelves/2', 'POST /shelves']);
    expect(made.phantom).toBe(false);
    expect(session.get(Shelf, made.getId())).toBe(made);
    expect(rowsOf(server, 'shelves').map((row) => row['name'])).toEqual(['A', 'C']);
    await session.sync();
    expect(server.requests).toHaveLength(2);
  });
});
