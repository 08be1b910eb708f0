/**
 * A create whose answer was lost is sent again as the same request: the same records in the same
 * order, the same body, the same Idempotency-Key, whoever sends it next (`sync()`, `save()`,
 * `destroy()`). The test server replays its first answer to a key and refuses (422) a key reused
 * with another body, as Stripe and the IETF draft do; answers to a batch are matched by position,
 * so a re-sent batch in another order would give each record another's row.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Operation, ProxyError, Store } from '../../src/index.js';
import { startTestServer, type RecordedRequest, type TestServer } from '../server/index.js';
import { defineItem, itemProxy, proxyErrorOf, rejectionOf, requestLines, requestsOf, rowsOf } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [] } });
});

afterEach(async () => {
  await server.close();
});

function keyedStore(batchActions: boolean) {
  const proxy = itemProxy(server, { idempotencyKey: true, batchActions });
  const Item = defineItem(proxy);
  return { Item, store: new Store({ model: Item, pageSize: 0 }) };
}

/** The next POST is applied and every answer to it lost (the first try and its 3 retries). */
function loseNextPost(): void {
  server.inject({ type: 'reset-after', times: 4, match: { method: 'POST' } });
}

/** The server's rows as `uid: name`, and how many rows each uid has. */
function rowsByUid(): Record<string, string[]> {
  const rows: Record<string, string[]> = {};
  for (const row of rowsOf(server)) (rows[String(row['uid'])] ??= []).push(String(row['name']));
  return rows;
}

/** Key and body of each POST. */
function posts(): { key: string | undefined; body: string }[] {
  return requestsOf(server, 'POST').map((request: RecordedRequest) => ({ key: request.headers['idempotency-key'], body: request.body }));
}

/** The id of the server's row with this uid. */
function idOf(uid: string): unknown {
  return rowsOf(server).find((row) => row['uid'] === uid)?.['id'];
}

async function lostBatch(names: string[]) {
  const env = keyedStore(true);
  const records = env.store.add(names.map((name) => ({ uid: name, name, rev: 0 })));
  loseNextPost();
  expect(await rejectionOf(env.store.sync())).toBeInstanceOf(BatchError);
  const [first] = posts();
  if (first === undefined) throw new Error('no POST');
  server.reset();
  return { ...env, records, first };
}

function pair<T>(items: readonly T[]): [T, T] {
  const [a, b] = items;
  if (a === undefined || b === undefined) throw new Error('expected two');
  return [a, b];
}

describe('a lost batched create is sent again in its own order', () => {
  it('Ann removed before the next sync: the batch is replayed as [Ann, Bob], each takes its own row, and Ann\'s row is the one deleted', async () => {
    const { store, records, first } = await lostBatch(['ann', 'bob']);
    const [ann, bob] = pair(records);
    store.remove(ann);
    await store.sync();

    expect(posts()).toEqual([first]);
    expect(requestLines(server)).toEqual(['POST /items', `DELETE /items/${String(ann.getId())}`]);
    expect(rowsByUid()).toEqual({ bob: ['bob'] });
    expect({ id: bob.getId(), name: bob.get('name'), phantom: bob.phantom }).toEqual({ id: idOf('bob'), name: 'bob', phantom: false });
    expect(ann.erased).toBe(true);
    expect(store.hasChanges()).toBe(false);
  });

  it('a lost POST [Ann] under her key, then Cid added: Ann is re-sent alone under her key, Cid in a request of his own', async () => {
    const { Item, store, first } = await lostBatch(['ann']);
    store.add(new Item({ uid: 'cid', name: 'cid', rev: 0 }));
    await store.sync();

    const [again, cid] = pair(posts());
    expect(again).toEqual(first);
    expect(cid.key).not.toBe(first.key);
    expect(JSON.parse(cid.body)).toMatchObject({ uid: 'cid' });
    expect(rowsByUid()).toEqual({ ann: ['ann'], cid: ['cid'] });
    expect(store.getRange().map((record) => [record.get('uid'), record.getId()])).toEqual([
      ['ann', idOf('ann')],
      ['cid', idOf('cid')],
    ]);
  });
});

describe('whoever sends it next sends the same request', () => {
  it('eve.save() after an edit: POST [Eve, Bob] again (same body, same key), both confirmed, then the edit as an update', async () => {
    const { store, records, first } = await lostBatch(['eve', 'bob']);
    const [eve, bob] = pair(records);
    eve.set('name', 'Eve 2');
    await eve.save();

    expect(posts()).toEqual([first]);
    expect(requestLines(server)).toEqual(['POST /items', `PUT /items/${String(idOf('eve'))}`]);
    expect(rowsByUid()).toEqual({ eve: ['Eve 2'], bob: ['bob'] });
    expect([eve.getId(), eve.dirty, bob.getId(), bob.phantom]).toEqual([idOf('eve'), false, idOf('bob'), false]);
    expect(store.hasChanges()).toBe(false);
  });

  it('bob.destroy(): the batch replayed first, then Bob\'s row deleted; Eve keeps hers', async () => {
    const { store, records, first } = await lostBatch(['eve', 'bob']);
    const [eve, bob] = pair(records);
    const bobId = idOf('bob');
    await bob.destroy();

    expect(posts()).toEqual([first]);
    expect(requestLines(server)).toEqual(['POST /items', `DELETE /items/${String(bobId)}`]);
    expect(rowsByUid()).toEqual({ eve: ['eve'] });
    expect([eve.getId(), eve.phantom, bob.erased]).toEqual([idOf('eve'), false, true]);
    expect(store.getRange()).toEqual([eve]);
  });

  it('eve.save() and bob.save() at once: one replay, not two', async () => {
    const { records, first } = await lostBatch(['eve', 'bob']);
    const [eve, bob] = pair(records);
    await Promise.all([eve.save(), bob.save()]);

    expect(posts()).toEqual([first]);
    expect([eve.getId(), bob.getId()]).toEqual([idOf('eve'), idOf('bob')]);
  });

  it('unbatched: a record edited after its lost create is re-sent with the body first sent, then updated', async () => {
    const { store } = keyedStore(false);
    const [ann] = store.add({ uid: 'ann', name: 'before', rev: 0 });
    loseNextPost();
    await rejectionOf(store.sync());
    const [first] = posts();
    server.reset();
    ann?.set({ name: 'after', rev: 1 });
    await store.sync();

    expect(posts()).toEqual([first]);
    expect(requestLines(server)).toEqual(['POST /items', `PUT /items/${String(idOf('ann'))}`]);
    expect(rowsOf(server)).toEqual([{ id: idOf('ann'), uid: 'ann', name: 'after', rev: 1 }]);
    expect(ann?.dirty).toBe(false);
  });
});

describe('a create that certainly failed is no request to send again', () => {
  it('a batch refused (422) is not sent again: Ann, edited and left alone, goes with her values then under a new key (a server may keep the refusal under the old one)', async () => {
    const { store } = keyedStore(true);
    const [ann, bob] = pair(store.add([{ uid: 'ann', name: 'ann', rev: 0 }, { uid: 'bob', name: 'bob', rev: 0 }]));
    server.inject({ type: 'status', status: 422, body: { errors: { name: ['is taken'] } }, match: { method: 'POST' } });
    await rejectionOf(store.sync());
    ann.set('name', 'Ann 2');
    store.remove(bob);
    await store.sync();

    const [refused, created] = pair(posts());
    expect(created.key).not.toBe(refused.key);
    expect(JSON.parse(created.body)).toEqual({ uid: 'ann', name: 'Ann 2', rev: 0 });
    expect(rowsByUid()).toEqual({ ann: ['Ann 2'] });
  });
});

describe('a create operation made by hand', () => {
  it('of one record of a lost batch sends the whole batch again; with a record of another request it is refused, nothing sent', async () => {
    const { Item, records, first } = await lostBatch(['eve', 'bob']);
    const [eve, bob] = pair(records);
    const proxy = Item.getProxy();
    const mixed = new Operation({ action: 'create', records: [eve, new Item({ uid: 'new', name: 'new', rev: 0 })] });
    const error = await proxyErrorOf(proxy.create(mixed));
    expect(error).toBeInstanceOf(ProxyError);
    expect(error.kind).toBe('config');
    expect(server.requests).toEqual([]);
    expect(eve.phantom).toBe(true);

    const operation = await proxy.create(new Operation({ action: 'create', records: [bob] }));
    expect(operation.records).toEqual([eve, bob]);
    expect(posts()).toEqual([first]);
    expect([eve.getId(), bob.getId()]).toEqual([idOf('eve'), idOf('bob')]);
  });

  it('without idempotency keys nothing is pinned: a record of a lost batch is sent again alone, with its values now', async () => {
    const proxy = itemProxy(server, { batchActions: true, retry: 0 });
    const store = new Store({ model: defineItem(proxy), pageSize: 0 });
    const [ann, bob] = pair(store.add([{ uid: 'ann', name: 'ann', rev: 0 }, { uid: 'bob', name: 'bob', rev: 0 }]));
    server.inject({ type: 'reset-after', match: { method: 'POST' } });
    await rejectionOf(store.sync());
    server.reset();
    store.remove(ann);
    bob.set('name', 'Bob 2');
    await store.sync();

    expect(requestsOf(server, 'POST').map((request) => request.json)).toEqual([[{ uid: 'bob', name: 'Bob 2', rev: 0 }, { uid: 'ann', name: 'ann', rev: 0 }]]);
    expect(bob.get('name')).toBe('Bob 2');
    expect(bob.dirty).toBe(false);
  });
});
