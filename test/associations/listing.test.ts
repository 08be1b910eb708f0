/**
 * A session finds the records its stores list through those stores (issue 22: a store's load
 * costs the session nothing per record). What that must not break (API.md 9.3): one record per
 * (model, id) when a store lets a record go (destroyed, another page loaded, removed), when two
 * stores list one row, and `record.session` of a store's row. Collection: collect.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Store } from '../../src/index.js';
import { Session } from '../../src/associations.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { Post, serve, User } from './models.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({
    resources: {
      users: [{ id: 42, name: 'Ann' }, { id: 7, name: 'Bob' }],
      posts: [{ id: 1, title: 'one', userId: 42 }, { id: 2, title: 'two', userId: 42 }, { id: 3, title: 'three', userId: 7 }],
      comments: [],
      profiles: [],
    },
  });
  serve(server.url);
});

afterEach(async () => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  await server.close();
});

async function usersOf(session: Session, pageSize = 0): Promise<Store<User>> {
  const store = new Store({ model: User, session, pageSize });
  await store.load();
  return store;
}

function row<M extends User | Post>(store: Store<M>, id: number): M {
  const record = store.getById(id);
  if (record === undefined) throw new Error(`no row ${id}`);
  return record;
}

describe('a record a store lets go stays the session\'s while it is referenced', () => {
  it('its store destroyed: Model.load, session.get and a nested author give the same object', async () => {
    const session = new Session();
    const users = await usersOf(session);
    const ann = row(users, 42);
    users.destroy();
    expect(ann.session).toBe(session);
    expect(session.get(User, 42)).toBe(ann);
    expect(await User.load(42, { session })).toBe(ann);
    const posts = new Store({ model: Post, session, pageSize: 0 });
    await posts.load();
    expect(row(posts, 1).getUser()).toBe(ann);
    expect(ann.posts().getCount()).toBe(2);
  });

  it('another page loaded: the row of the page before is the one a later load gives', async () => {
    const session = new Session();
    const users = await usersOf(session, 1);
    const ann = row(users, 42);
    await users.loadPage(2);
    expect(users.getById(42)).toBeUndefined();
    expect(ann.session).toBe(session);
    expect(await User.load(42, { session })).toBe(ann);
    await users.loadPage(1);
    expect(users.getById(42)).toBe(ann);
  });

  it('removed from its only store (to be destroyed by the next sync): still the one record of its id', async () => {
    const session = new Session();
    const users = await usersOf(session);
    const ann = row(users, 42);
    users.remove(ann);
    expect(session.get(User, 42)).toBe(ann);
    expect(await User.load(42, { session })).toBe(ann);
    // Another store's load of the row finds it too.
    const other = await usersOf(session);
    expect(other.getById(42)).toBe(ann);
    expect(users.getRemovedRecords()).toEqual([ann]);
  });

  it('removed and forgotten (commitChanges): held by the session itself', async () => {
    const session = new Session();
    const users = await usersOf(session);
    const bob = row(users, 7);
    users.remove(bob);
    users.commitChanges();
    expect(bob.session).toBe(session);
    expect(await User.load(7, { session })).toBe(bob);
  });
});

describe('the stores of one session', () => {
  it('two stores list one row as one object; one destroyed, the row goes on through the other, its edit sent once', async () => {
    const session = new Session();
    const [a, b] = [await usersOf(session), await usersOf(session)];
    const ann = row(a, 42);
    expect(row(b, 42)).toBe(ann);
    expect(session.records(User)).toHaveLength(2);
    a.destroy();
    expect(session.records(User)).toHaveLength(2);
    ann.set('name', 'Annie');
    expect(b.getUpdatedRecords()).toEqual([ann]);
    server.requests.length = 0;
    await session.sync();
    expect(server.requests.filter((request) => request.method === 'PUT' || request.method === 'PATCH')).toHaveLength(1);
    expect(server.db.users?.find((user) => user.id === 42)?.name).toBe('Annie');
    expect(ann.dirty).toBe(false);
  });

  it('record.session of a row is its store\'s session; session.records lists each row once', async () => {
    const [one, two] = [new Session(), new Session()];
    const [a, b] = [await usersOf(one), await usersOf(two)];
    expect(row(a, 42).session).toBe(one);
    expect(row(b, 42).session).toBe(two);
    // Held by the session itself too (an accessor was called): still listed once.
    row(a, 42).posts();
    const ids = one.records(User).map((user) => user.getId());
    expect(ids).toHaveLength(2);
    expect(ids).toEqual(expect.arrayContaining([7, 42]));
  });

  it('a row\'s edit reaches the session: a post moved by its key leaves one user\'s posts for the other\'s, reject() moves it back', async () => {
    const session = new Session();
    const users = await usersOf(session);
    const posts = new Store({ model: Post, session, pageSize: 0 });
    await posts.load();
    const [ann, bob] = [row(users, 42), row(users, 7)];
    const post = row(posts, 1);
    expect(ann.posts().getRange()).toContain(post);
    post.set('userId', 7);
    expect(ann.posts().getRange()).not.toContain(post);
    expect(bob.posts().getRange()).toContain(post);
    post.reject();
    expect(ann.posts().getRange()).toContain(post);
  });

  it('a store\'s update listener sees the record already moved by its key, as before the session held it itself', async () => {
    const session = new Session();
    const users = await usersOf(session);
    const posts = new Store({ model: Post, session, pageSize: 0 });
    await posts.load();
    const [ann, bob, post] = [row(users, 42), row(users, 7), row(posts, 1)];
    // The association stores are made after the grid listed the post: the session holds it itself from then on.
    expect(ann.posts().getRange()).toContain(post);
    expect(bob.posts().getCount()).toBe(1);
    const seen: boolean[] = [];
    posts.on('update', () => seen.push(bob.posts().getRange().includes(post)));
    post.set('userId', 7);
    expect(seen).toEqual([true]);
  });

  it('setId to the id of another store\'s row is refused', async () => {
    const session = new Session();
    await usersOf(session);
    const drafts = new Store({ model: User, session, pageSize: 0 });
    const [draft] = drafts.add({ name: 'new' });
    expect(() => draft?.setId(42)).toThrow(TypeError);
    expect(draft?.getId()).toBeUndefined();
  });
});

describe('a store\'s load costs the session nothing per record', () => {
  it('1,000 rows: no WeakRef made and nothing registered for collection per row', async () => {
    server.db.users?.push(...Array.from({ length: 1000 }, (_, index) => ({ id: 1000 + index, name: `user ${index}` })));
    const session = new Session();
    const store = new Store({ model: User, session, pageSize: 0 });
    let refs = 0;
    const Original = WeakRef;
    vi.stubGlobal('WeakRef', class<T extends WeakKey> extends Original<T> {
      constructor(target: T) {
        super(target);
        refs++;
      }
    });
    const register = vi.spyOn(FinalizationRegistry.prototype, 'register');
    await store.load();
    expect(store.getCount()).toBe(1002);
    expect(refs).toBeLessThan(10);
    expect(register.mock.calls.length).toBeLessThan(10);
    expect(store.getAt(500)?.session).toBe(session);
  });
});
