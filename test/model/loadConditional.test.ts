/**
 * `Model.load(id)` of a record a session holds (API.md section 13, per record) against the test
 * server on 127.0.0.1: it sends that record's ETag as If-None-Match, and the server's 304
 * resolves with the held record unchanged, telling no one. Counts and headers, never timings.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Model, RestProxy } from '../../src/index.js';
import { hasMany, Session } from '../../src/associations.js';
import { startTestServer, type TestServer } from '../server/index.js';

interface UserData {
  id: number;
  name: string;
}

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { users: [{ id: 1, name: 'Ann' }, { id: 2, name: 'Ben' }] } });
});

afterEach(async () => {
  await server.close();
});

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
const lastGet = (): Record<string, string | string[] | undefined> | undefined => server.requests.filter((request) => request.method === 'GET').at(-1)?.headers;

/** A model of its own per test, on this test's server. */
function userModel(): typeof Model<UserData> {
  class User extends Model<UserData> {
    static override entityName = 'User';
    static override fields = [{ name: 'id', type: 'int' }, 'name'];
  }
  User.setProxy(new RestProxy({ url: `${server.url}/users` }));
  return User;
}

describe('Model.load(id) of a record a session holds', () => {
  it('sends its ETag as If-None-Match; the 304 resolves with the held record, its snapshot kept, telling no one', async () => {
    const User = userModel();
    const session = new Session();
    const held = await User.load(1, { session });
    expect(held.etag).toBe('"1-1"');
    expect(lastGet()?.['if-none-match']).toBeUndefined();
    const snapshot = held.getSnapshot();
    const told = vi.fn();
    const stop = held.subscribe(told);

    const again = await User.load(1, { session });
    await settle();
    expect(lastGet()?.['if-none-match']).toBe('"1-1"');
    expect(again).toBe(held);
    expect(held.getSnapshot()).toBe(snapshot);
    expect(held.get('name')).toBe('Ann');
    expect(told).toHaveBeenCalledTimes(1); // the call at subscribe only
    stop();
  });

  it('a changed record answers 200: the held record takes the new values (one object per id)', async () => {
    const User = userModel();
    const session = new Session();
    const held = await User.load(2, { session });
    await fetch(`${server.url}/users/2`, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Benedict' }) });
    const again = await User.load(2, { session });
    expect(lastGet()?.['if-none-match']).toBe('"2-1"');
    expect(again).toBe(held);
    expect(held.get('name')).toBe('Benedict');
    expect(held.etag).toBe('"2-2"');
  });

  it('the default session of a model with associations is asked too', async () => {
    class Author extends Model<UserData & { friendOf: number | null }> {
      static override entityName = 'Author';
      static override fields = [{ name: 'id', type: 'int' }, 'name', { name: 'friendOf', type: 'int' }];
      static associations = { friends: hasMany(() => Author, { foreignKey: 'friendOf' }) };
    }
    Author.setProxy(new RestProxy({ url: `${server.url}/users` }));
    const held = await Author.load(1);
    const again = await Author.load(1);
    expect(lastGet()?.['if-none-match']).toBe(held.etag);
    expect(again).toBe(held);
  });

  it('another session, or none, holds nothing: no If-None-Match', async () => {
    const User = userModel();
    await User.load(1, { session: new Session() });
    await User.load(1, { session: new Session() });
    expect(lastGet()?.['if-none-match']).toBeUndefined();
    await User.load(1);
    expect(lastGet()?.['if-none-match']).toBeUndefined();
  });
});
