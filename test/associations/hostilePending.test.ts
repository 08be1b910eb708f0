/**
 * A hostile review of the session's pending records and collection now that a store's records are
 * found through the store (issue 22): a store collected or destroyed before session.sync(), a
 * dropped store's records collectable. Uses a real garbage collector (test/helpers/gc.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/index.js';
import { Session } from '../../src/associations.js';
import { collected } from '../helpers/gc.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { Post, serve, User } from './models.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({
    resources: {
      users: [{ id: 42, name: 'Ann' }, { id: 7, name: 'Bob' }, { id: 9, name: 'Cy' }],
      posts: [{ id: 1, title: 'one', userId: 42 }],
      comments: [],
      profiles: [],
    },
  });
  serve(server.url);
});

afterEach(async () => {
  await server.close();
});

const writes = (): string[] => server.requests.filter((request) => request.method !== 'GET').map((request) => `${request.method} ${new URL(request.url, 'http://x').pathname}`);

/** A store of `session` with its rows loaded, one edited, one removed, one added; the store dropped (collected), or destroyed. */
async function pendingThenDrop(session: Session, destroy: boolean): Promise<WeakRef<object>> {
  const store = new Store({ model: User, session, pageSize: 0 });
  await store.load();
  store.getById(42)?.set('name', 'Annie');
  store.remove(store.getById(7)!);
  store.add({ name: 'Dee' });
  if (destroy) store.destroy();
  return new WeakRef(store);
}

describe("a store's pending records and session.sync()", () => {
  it('the store collected before session.sync(): its edit, its removal and its new record are all sent', async () => {
    const session = new Session();
    const ref = await pendingThenDrop(session, false);
    expect(await collected([ref])).toBe(0);
    await session.sync();
    const names = (server.db.users ?? []).map((user) => user['name']).sort();
    expect(names).toEqual(['Annie', 'Cy', 'Dee']);
  });

  it('the store collected: its removed row (still referenced nowhere) is not collected before session.sync() sends its DELETE', async () => {
    const session = new Session();
    const ref = await pendingThenDrop(session, false);
    expect(await collected([ref])).toBe(0);
    // More rounds of collection: a removed row the session held only weakly would go now.
    await collected([new WeakRef({})]);
    await session.sync();
    expect(writes()).toContain('DELETE /users/7');
  });

  it('a store of the session with a pending edit, then a second store reloads that row: the edit is kept and sent once', async () => {
    const session = new Session();
    const a = new Store({ model: User, session, pageSize: 0 });
    await a.load();
    a.getById(42)?.set('name', 'Annie');
    const b = new Store({ model: User, session, pageSize: 0 });
    await b.load();
    expect(b.getById(42)?.get('name')).toBe('Annie');
    await session.sync();
    expect(writes()).toEqual(['PUT /users/42']);
  });
});

describe('a store collected with pending records', () => {
  it('an edited row kept off its page by another page load: its PUT is sent by session.sync()', async () => {
    const session = new Session();
    const ref = await (async () => {
      const store = new Store({ model: User, session, pageSize: 1 });
      await store.load();
      store.getAt(0)?.set('name', 'edited');
      await store.loadPage(2);
      return new WeakRef(store);
    })();
    expect(await collected([ref])).toBe(0);
    await session.sync();
    expect(writes()).toEqual(['PUT /users/42']);
  });

  it('its removed row added to another store of the session before session.sync(): not destroyed', async () => {
    const session = new Session();
    const { ref, bob } = await (async () => {
      const store = new Store({ model: User, session, pageSize: 0 });
      await store.load();
      const row = store.getById(7)!;
      store.remove(row);
      return { ref: new WeakRef(store), bob: row };
    })();
    expect(await collected([ref])).toBe(0);
    const other = new Store({ model: User, session, pageSize: 0 });
    other.add(bob);
    await session.sync();
    expect(writes()).toEqual([]);
    expect(server.db.users).toHaveLength(3);
  });

  it('its new record: listed once by session.records, created once by two session.sync() calls', async () => {
    const session = new Session();
    const ref = await pendingThenDrop(session, false);
    expect(await collected([ref])).toBe(0);
    expect(session.records(User).filter((user) => user.phantom)).toHaveLength(1);
    await Promise.all([session.sync(), session.sync()]);
    await session.sync();
    expect(writes().filter((line) => line === 'POST /users')).toHaveLength(1);
  });
});

describe('collection', () => {
  it("a dropped store's clean rows are collectable even once an association store of theirs was made", async () => {
    const session = new Session();
    const refs = await (async () => {
      const users = new Store({ model: User, session, pageSize: 0 });
      await users.load();
      const posts = new Store({ model: Post, session, pageSize: 0 });
      await posts.load();
      users.getById(42)?.posts();
      posts.getById(1)?.getUser();
      return [users, posts, ...users.getRange(), ...posts.getRange()].map((record) => new WeakRef<object>(record));
    })();
    expect(await collected(refs)).toBe(0);
    expect(session.records(User)).toEqual([]);
  });

  it('a destroyed store: its rows collectable, the session forgets them', async () => {
    const session = new Session();
    const refs = await (async () => {
      const users = new Store({ model: User, session, pageSize: 0 });
      await users.load();
      const rows = users.getRange().map((record) => new WeakRef<object>(record));
      users.destroy();
      return rows;
    })();
    expect(await collected(refs)).toBe(0);
    expect(session.get(User, 42)).toBeUndefined();
  });
});
