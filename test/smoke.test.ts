import { test, expect } from 'vitest';
import { Model, RestProxy, Store, Operation } from '../src/index.js';
import { recordingFetch } from './helpers/recordingFetch.js';

test('smoke', async () => {
  const rec = recordingFetch((call) => {
    if (call.method === 'POST') return { status: 201, body: { ...(call.json as object), id: 7 } };
    if (call.method === 'GET' && call.url.includes('/users/7')) return { body: { id: 7, name: 'Ed', age: '30' } };
    if (call.method === 'GET') return { body: [{ id: 1, name: 'A', age: 3 }, { id: 2, name: 'B', age: 4 }], headers: { 'X-Total-Count': '50' } };
    if (call.method === 'PUT') return { body: call.json };
    return { status: 204 };
  });
  class User extends Model<{ id: number; name: string; age: number }> {
    static override fields = ['id', 'name', { name: 'age', type: 'int' as const }];
    static override proxy = new RestProxy({ url: 'http://api.test/users', fetch: rec, reader: { totalHeader: 'X-Total-Count' } });
  }
  const u = new User({ name: 'Ed' });
  expect(u.phantom).toBe(true);
  await u.save();
  expect(rec.last().method).toBe('POST');
  expect(rec.last().json).toEqual({ name: 'Ed' });
  expect(u.phantom).toBe(false);
  expect(u.getId()).toBe(7);
  u.set('name', 'Eddie');
  await u.save();
  expect(rec.last().method + ' ' + rec.last().url).toBe('PUT http://api.test/users/7');
  expect(u.dirty).toBe(false);
  const l = await User.load(7);
  expect(l.get('age')).toBe(30);
  expect(rec.last().url).toMatch(/^http:\/\/api.test\/users\/7\?_dc=\d+$/);
  const store = new Store({ model: User, pageSize: 2 });
  const recs = await store.loadPage(2);
  expect(recs.length).toBe(2);
  expect(rec.last().url).toMatch(/page=2&start=2&limit=2/);
  expect(store.getTotalCount()).toBe(50);
  store.getAt(0)!.set('name', 'Z');
  store.add({ name: 'New' });
  store.remove(store.getAt(1)!);
  const b = await store.sync();
  expect(b.operations.map((o) => o.action)).toEqual(['create', 'update', 'destroy']);
  expect(rec.calls.slice(-3).map((c) => c.method + ' ' + c.url)).toEqual(['POST http://api.test/users', 'PUT http://api.test/users/1', 'DELETE http://api.test/users/2']);
  await u.destroy();
  expect(rec.last().method).toBe('DELETE');
  void Operation;
});
