/**
 * Optimistic concurrency with `etag: true`: the ETag of a record's last response goes out as
 * If-Match with its PUT, PATCH and DELETE; a 412 or 409 rejects with kind 'conflict', the
 * record keeps its edits, and `error.current` holds the server's version.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { defineItem, itemProxy, proxyErrorOf, rejectionOf, requestsOf, rowsOf, type ItemData } from './helpers.js';

const SEED: ItemData[] = [
  { id: 1, uid: 'u1', name: 'one', rev: 0 },
  { id: 2, uid: 'u2', name: 'two', rev: 0 },
];

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: SEED.map((row) => ({ ...row })) } });
});

afterEach(async () => {
  await server.close();
});

function etagModel(overrides: Parameters<typeof itemProxy>[1] = {}) {
  return defineItem(itemProxy(server, { etag: true, ...overrides }));
}

/** Another client changes row `id` through the API (so its version, and ETag, moves on). */
async function changeElsewhere(id: number, values: Partial<ItemData>): Promise<void> {
  const Other = defineItem(itemProxy(server));
  const other = await Other.load(id);
  other.set(values);
  await other.save();
}

function row(id: number): Record<string, unknown> | undefined {
  return server.db['items']?.find((candidate) => candidate['id'] === id);
}

describe('If-Match', () => {
  it('a loaded record keeps its ETag and sends it with its PUT; the answer gives the next one', async () => {
    const Item = etagModel();
    const item = await Item.load(1);
    expect(item.etag).toBe('"1-1"');

    item.set('name', 'ONE');
    await item.save();
    expect(requestsOf(server, 'PUT')[0]?.headers['if-match']).toBe('"1-1"');
    expect(item.etag).toBe('"1-2"');

    item.set('name', 'ONE!');
    await item.save();
    expect(requestsOf(server, 'PUT')[1]?.headers['if-match']).toBe('"1-2"');
    expect(item.etag).toBe('"1-3"');
    expect(row(1)?.['name']).toBe('ONE!');
  });

  it('a created record takes the ETag of the POST answer and sends it with its first PUT', async () => {
    const Item = etagModel();
    const item = new Item({ uid: 'n', name: 'new', rev: 0 });
    await item.save();
    expect(item.etag).toBe(`"${String(item.getId())}-1"`);
    expect(requestsOf(server, 'POST')[0]?.headers['if-match']).toBeUndefined();

    item.set('rev', 1);
    await item.save();
    expect(requestsOf(server, 'PUT')[0]?.headers['if-match']).toBe(`"${String(item.getId())}-1"`);
  });

  it('a PATCH and a DELETE send it too', async () => {
    const Item = etagModel({ actionMethods: { update: 'PATCH' } });
    const item = await Item.load(2);
    item.set('name', 'TWO');
    await item.save();
    expect(requestsOf(server, 'PATCH')[0]?.headers['if-match']).toBe('"2-1"');
    expect(requestsOf(server, 'PATCH')[0]?.json).toEqual({ id: 2, name: 'TWO' });

    await item.destroy();
    expect(requestsOf(server, 'DELETE')[0]?.headers['if-match']).toBe('"2-2"');
    expect(row(2)).toBeUndefined();
  });

  it('etag: false (the default) sends no If-Match', async () => {
    const Item = defineItem(itemProxy(server));
    const item = await Item.load(1);
    item.set('name', 'ONE');
    await item.save();
    await item.destroy();
    for (const request of server.requests) expect(request.headers['if-match']).toBeUndefined();
  });

  it('a record without an ETag (loaded in a list) sends no If-Match', async () => {
    const Item = etagModel();
    const store = new Store({ model: Item, pageSize: 0 });
    await store.load();
    store.getById(1)?.set('name', 'ONE');
    await store.sync();
    expect(requestsOf(server, 'PUT')[0]?.headers['if-match']).toBeUndefined();
    expect(store.getById(1)?.etag).toBe('"1-2"');
  });
});

describe('conflicts', () => {
  it('a PUT on a record changed elsewhere: 412, kind "conflict", edits kept, server version on error.current', async () => {
    const Item = etagModel();
    const item = await Item.load(1);
    await changeElsewhere(1, { name: 'theirs' });
    item.set({ name: 'mine', rev: 5 });
    server.reset();

    const error = await proxyErrorOf(item.save());

    expect(error.kind).toBe('conflict');
    expect(error.status).toBe(412);
    expect(error.message).toContain(`PUT ${server.url}/items/1 failed: 412 Precondition Failed`);
    expect(error.message).toContain('error.current');
    expect(error.current).toEqual({ id: 1, uid: 'u1', name: 'theirs', rev: 0 });
    expect(server.requests).toHaveLength(1); // a conflict is never retried
    expect(item.dirty).toBe(true);
    expect(item.getChanges()).toEqual({ name: 'mine', rev: 5 });
    expect(item.modified).toEqual({ name: 'one', rev: 0 });
    expect(item.etag).toBe('"1-1"');
    expect(row(1)).toEqual({ id: 1, uid: 'u1', name: 'theirs', rev: 0 });
  });

  it('after a conflict, reload() keeps the edits on top of the server version and the save then succeeds', async () => {
    const Item = etagModel();
    const item = await Item.load(1);
    await changeElsewhere(1, { uid: 'changed' });
    item.set('name', 'mine');
    await proxyErrorOf(item.save());

    await item.reload();
    expect(item.get('uid')).toBe('changed');
    expect(item.get('name')).toBe('mine');
    expect(item.dirty).toBe(true);
    expect(item.etag).toBe('"1-2"');
    await item.save();

    expect(row(1)).toEqual({ id: 1, uid: 'changed', name: 'mine', rev: 0 });
    expect(item.dirty).toBe(false);
  });

  it('a DELETE of a record changed elsewhere: conflict, the record is not erased and the row stays', async () => {
    const Item = etagModel();
    const item = await Item.load(2);
    await changeElsewhere(2, { name: 'theirs' });

    const error = await proxyErrorOf(item.destroy());

    expect(error.kind).toBe('conflict');
    expect(error.current).toMatchObject({ id: 2, name: 'theirs' });
    expect(item.erased).toBe(false);
    expect(row(2)).toMatchObject({ name: 'theirs' });
  });

  it('a 409 with a body is a conflict too, its body on error.current', async () => {
    const Item = etagModel();
    const item = await Item.load(1);
    item.set('name', 'mine');
    server.respond('PUT', '/items/1', { status: 409, body: { id: 1, name: 'server side', message: 'version mismatch' } }, { times: 1 });

    const error = await proxyErrorOf(item.save());

    expect(error.kind).toBe('conflict');
    expect(error.status).toBe(409);
    expect(error.message).toContain('409 Conflict');
    expect(error.current).toEqual({ id: 1, name: 'server side', message: 'version mismatch' });
    expect(item.get('name')).toBe('mine');
    expect(item.dirty).toBe(true);
  });

  it('a sync with one conflict commits the rest and keeps the conflicting record dirty and removed ones pending', async () => {
    const Item = etagModel();
    const store = new Store({ model: Item, pageSize: 0 });
    await store.load();
    const one = store.getById(1);
    const two = store.getById(2);
    if (!one || !two) throw new Error('seed missing');
    await one.reload();
    await two.reload();
    await changeElsewhere(1, { name: 'theirs' });
    await changeElsewhere(2, { name: 'theirs too' });
    one.set('name', 'mine');
    store.remove(two);
    store.add({ uid: 'n', name: 'new', rev: 0 });

    const error = await rejectionOf(store.sync());

    expect(error).toBeInstanceOf(BatchError);
    const errors = error instanceof BatchError ? error.errors : [];
    expect(errors.map((e) => [e.kind, e.status, e.request?.method])).toEqual([['conflict', 412, 'PUT'], ['conflict', 412, 'DELETE']]);
    expect(store.getNewRecords()).toEqual([]);
    expect(store.getUpdatedRecords()).toEqual([one]);
    expect(store.getRemovedRecords()).toEqual([two]);
    expect(one.get('name')).toBe('mine');
    expect(rowsOf(server).map((r) => r['name'])).toEqual(['theirs', 'theirs too', 'new']);
  });
});

describe('retries and ETags', () => {
  // BUG: the first PUT is applied (the server's version moves on) but its answer is lost; the
  // retry goes out with the old If-Match and ends as a 412 "conflict" whose error.current is
  // exactly what this client sent. A retry the library made itself turns a success into a
  // conflict the user must resolve.
  it('a PUT whose answer was lost is retried without ending in a conflict with itself', async () => {
    const Item = etagModel();
    const item = await Item.load(1);
    item.set('name', 'mine');
    server.inject({ type: 'reset-after', match: { method: 'PUT' } });

    const outcome = await item.save().then(
      () => 'saved',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );

    expect(row(1)?.['name']).toBe('mine');
    expect(requestsOf(server, 'PUT')).toHaveLength(2);
    expect(outcome).toBe('saved');
    expect(item.dirty).toBe(false);
  });
});

describe('an edit made after an unanswered PUT', () => {
  it('is not a conflict with the record itself: the 412 of its own applied write gives the new ETag, and the edit is sent again', async () => {
    const Item = etagModel({ retry: 0 });
    const item = await Item.load(1);
    item.set('name', 'first');
    server.inject({ type: 'reset-after', match: { method: 'PUT' } });
    const lost = await proxyErrorOf(item.save());
    expect(lost.kind).toBe('network');
    expect(row(1)?.['name']).toBe('first'); // applied, though no answer came back

    item.set('name', 'second');
    await item.save();
    const puts = requestsOf(server, 'PUT');
    expect(puts.map((request) => request.headers['if-match'])).toEqual(['"1-1"', '"1-1"', '"1-2"']);
    expect(row(1)?.['name']).toBe('second');
    expect(item.dirty).toBe(false);
    expect(item.etag).toBe('"1-3"');
  });

  it('nor is removing the record: its DELETE takes the ETag of its own applied write and is sent again', async () => {
    const Item = etagModel({ retry: 0 });
    const item = await Item.load(1);
    item.set('name', 'first');
    server.inject({ type: 'reset-after', match: { method: 'PUT' } });
    expect((await proxyErrorOf(item.save())).kind).toBe('network');
    expect(row(1)?.['name']).toBe('first'); // applied, though no answer came back

    await item.destroy();
    const deletes = requestsOf(server, 'DELETE');
    expect(deletes.map((request) => request.headers['if-match'])).toEqual(['"1-1"', '"1-2"']);
    expect(row(1)).toBeUndefined();
  });

  it('is still a conflict when someone else changed the record meanwhile', async () => {
    const Item = etagModel({ retry: 0 });
    const item = await Item.load(1);
    item.set('name', 'first');
    server.inject({ type: 'reset-after', match: { method: 'PUT' } });
    await proxyErrorOf(item.save());
    await changeElsewhere(1, { name: 'theirs' });

    item.set('name', 'second');
    const conflict = await proxyErrorOf(item.save());
    expect(conflict.kind).toBe('conflict');
    expect(row(1)?.['name']).toBe('theirs');
    expect(item.get('name')).toBe('second');
    expect(item.dirty).toBe(true);
  });
});

describe('only a single strong entity-tag is copied into If-Match', () => {
  it.each([
    ['a list', '"a", "b"'],
    ['an unquoted value', 'abc123'],
    ['a value with a quote missing', '"abc'],
    ['a malformed weak one', 'W/abc'],
  ])('%s (%s): the update fails with kind "config" naming it; nothing is sent', async (_, etag) => {
    server.respond('GET', '/items/1', { status: 200, headers: { ETag: etag }, body: { ...SEED[0] } }, { times: 1 });
    const item = await etagModel().load(1);
    item.set('name', 'changed');
    const error = await proxyErrorOf(item.save());
    expect(error.kind).toBe('config');
    expect(error.message).toContain(etag);
    expect(error.message).toContain('If-Match');
    expect(requestsOf(server, 'PUT')).toHaveLength(0);
    expect(item.dirty).toBe(true);
  });
});

// Issue 29 item 6: OWS around an ETag (RFC 9110 section 5.5) is not part of it; later saves work
// (an untrimmed value failed every later save with 'config' before).
describe('an ETag header with white space around it', () => {
  it.each([['a trailing space', '"1-1" '], ['a leading tab and a trailing space', '\t"1-1" ']])('an ETag with %s is trimmed, and later saves work', async (_, header) => {
    server.respond('GET', '/items/1', { status: 200, headers: { ETag: header }, body: { ...SEED[0], rev: 0 } }, { times: 1 });
    const Item = defineItem(itemProxy(server, { etag: true }));
    const item = await Item.load(1);
    expect(item.etag).toBe('"1-1"');
    item.set('name', 'ONE');
    await item.save();
    item.set('name', 'ONE!');
    await item.save();
    expect(requestsOf(server, 'PUT').map((request) => request.headers['if-match'])).toEqual(['"1-1"', '"1-2"']);
    expect(server.db['items']?.[0]?.['name']).toBe('ONE!');
  });

  it('a PUT answer with a padded ETag gives the next If-Match trimmed', async () => {
    const Item = defineItem(itemProxy(server, { etag: true }));
    const item = await Item.load(1);
    server.respond('PUT', '/items/1', { status: 200, headers: { ETag: '"1-2"  ' }, body: { ...SEED[0], name: 'ONE' } }, { times: 1 });
    item.set('name', 'ONE');
    await item.save();
    expect(item.etag).toBe('"1-2"');
  });
});
