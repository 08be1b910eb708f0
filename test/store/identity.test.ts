/**
 * One record object per id in a store, where a load and an unconfirmed create meet: a create
 * whose answer was lost exists on the server; a load lists its row before the record knows its
 * id; when the create is confirmed (replayed under its idempotency key), the store must not list
 * the same id twice.
 */
import { describe, expect, it } from 'vitest';
import { MemoryProxy, Model, RestProxy, Store } from '../../src/index.js';
import { recordingFetch, type Answer, type RecordedCall } from '../helpers/recordingFetch.js';

interface ItemData {
  id: number;
  name: string;
}

class Item extends Model<ItemData> {
  static override fields = [{ name: 'id', type: 'int' }, 'name'];
}

/** A server that applies every POST, replays a POST whose Idempotency-Key it has seen, and can lose answers. */
function keyedServer() {
  const rows: ItemData[] = [];
  const byKey = new Map<string, ItemData>();
  let loseNextAnswer = false;
  const respond = (call: RecordedCall): Answer => {
    if (call.method === 'GET') return { body: rows };
    if (call.method !== 'POST') return { status: 200, body: call.json ?? {} };
    const key = call.headers['idempotency-key'] ?? '';
    let row = byKey.get(key);
    if (row === undefined) {
      const body: unknown = call.json;
      const name = typeof body === 'object' && body !== null && 'name' in body && typeof body.name === 'string' ? body.name : '';
      row = { id: 100 + rows.length, name };
      rows.push(row);
      byKey.set(key, row);
    }
    if (loseNextAnswer) {
      loseNextAnswer = false;
      return new TypeError('fetch failed: the connection was reset after the server applied the request');
    }
    return { status: 201, body: row };
  };
  return { rows, respond, loseNextAnswer: () => (loseNextAnswer = true) };
}

describe('a load that lists the row of an unconfirmed create', () => {
  it('then the create is confirmed: the store lists that id once, as the user\'s record', async () => {
    const server = keyedServer();
    const fetch = recordingFetch(server.respond);
    const store = new Store({ model: Item, pageSize: 0, proxy: new RestProxy({ url: 'http://api.test/items', fetch, idempotencyKey: true, retry: 0 }) });
    const [mine] = store.add({ name: 'Mine' });
    server.loseNextAnswer();
    await expect(store.sync()).rejects.toThrow(/network error/);
    expect(mine?.phantom).toBe(true);

    await store.load(); // lists row 100, made by the create whose answer was lost
    await store.sync(); // the create again, same key: the server answers for row 100

    expect(server.rows).toHaveLength(1);
    expect(mine?.phantom).toBe(false);
    expect(mine?.getId()).toBe(100);
    expect(store.getRange().map((item) => item.getId())).toEqual([100]);
    expect(store.getById(100)).toBe(mine);
  });
});

describe('an answer that lists an id twice', () => {
  const rows = (ids: readonly (number | string)[]): Answer => ({ body: ids.map((id, index) => ({ id, name: `row ${index}` })) });

  it.each([
    ['in id order', [1, 2, 2, 3], [1, 2, 3]],
    ['out of order', [3, 1, 3, 2, 1], [3, 1, 2]],
    ['as a number and as its text', [1, '1', 2], [1, 2]],
  ])('%s: the store lists each id once, the first time it comes', async (_, ids, expected) => {
    class Row extends Model<{ id: number | string; name: string }> {
      static override fields = ['id', 'name'];
    }
    const store = new Store({ model: Row, pageSize: 0, proxy: new RestProxy({ url: 'http://api.test/rows', fetch: recordingFetch(() => rows(ids)) }) });
    await store.load();
    expect(store.getRange().map((row) => Number(row.getId()))).toEqual(expected);
    await store.load(); // again, with every id now held
    expect(store.getRange().map((row) => Number(row.getId()))).toEqual(expected);
    expect(store.getById('2')).toBe(store.getById(2));
  });
});

describe('composite and Date ids', () => {
  it('rows whose ids are objects or Dates are told apart (not by their text)', async () => {
    class Thing extends Model<{ id: unknown; name: string }> {
      static override fields = ['id', 'name'];
    }
    const things = new Store({
      model: Thing,
      proxy: new MemoryProxy({ data: [{ id: { org: 1, n: 1 }, name: 'a' }, { id: { org: 1, n: 2 }, name: 'b' }, { id: { org: 1, n: 1 }, name: 'a again' }] }),
    });
    expect((await things.load()).map((thing) => thing.get('name'))).toEqual(['a', 'b']);

    class Tick extends Model<{ at: Date; v: number }> {
      static override idProperty = 'at';
      static override fields = [{ name: 'at', type: 'date' }, { name: 'v', type: 'int' }];
    }
    const ticks = new Store({ model: Tick, proxy: new MemoryProxy({ data: [{ at: '2024-01-01T00:00:00.000Z', v: 1 }, { at: '2024-01-01T00:00:00.500Z', v: 2 }] }) });
    await ticks.load();
    expect(ticks.getCount()).toBe(2);
    expect(ticks.getById(new Date('2024-01-01T00:00:00.500Z'))?.get('v')).toBe(2);
  });
});
