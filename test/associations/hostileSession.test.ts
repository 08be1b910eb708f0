/**
 * A hostile review of the session's identity now that it finds a store's records through the
 * store (issue 22): what a user hits across stores, pages, removals, id changes, sessions and ids.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Model, Store } from '../../src/index.js';
import { Session } from '../../src/associations.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { Post, serve, User } from './models.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({
    resources: {
      users: [{ id: 42, name: 'Ann' }, { id: 7, name: 'Bob' }, { id: 9, name: 'Cy' }],
      posts: [{ id: 1, title: 'one', userId: 42 }, { id: 2, title: 'two', userId: 42 }, { id: 3, title: 'three', userId: 7 }],
      comments: [],
      profiles: [],
    },
  });
  serve(server.url);
});

afterEach(async () => {
  await server.close();
});

async function usersOf(session: Session, config: { pageSize?: number } = {}): Promise<Store<User>> {
  const store = new Store({ model: User, session, pageSize: config.pageSize ?? 0 });
  await store.load();
  return store;
}

describe('identity across stores', () => {
  it('a store reloaded: the second store still lists the same object, one per id', async () => {
    const session = new Session();
    const [a, b] = [await usersOf(session), await usersOf(session)];
    await a.load();
    for (const id of [42, 7, 9]) expect(a.getById(id)).toBe(b.getById(id));
    expect(session.records(User)).toHaveLength(3);
  });

  it('a store filtered remotely then back: one object per id', async () => {
    const session = new Session();
    const a = await usersOf(session);
    const ann = a.getById(42);
    const b = new Store({ model: User, session, pageSize: 0, remoteFilter: true });
    await b.filter('name', 'Bob');
    expect(b.getById(42)).toBeUndefined();
    await b.clearFilter();
    expect(b.getById(42)).toBe(ann);
  });

  it('removed then re-added to its store: still the one record, no second object after a load elsewhere', async () => {
    const session = new Session();
    const a = await usersOf(session);
    const ann = a.getById(42)!;
    a.remove(ann);
    a.add(ann);
    expect(a.getRemovedRecords()).toEqual([]);
    const b = await usersOf(session);
    expect(b.getById(42)).toBe(ann);
    expect(await User.load(42, { session })).toBe(ann);
  });

  it('a record removed from one store and added to another store of the session', async () => {
    const session = new Session();
    const a = await usersOf(session);
    const b = new Store({ model: User, session, pageSize: 0 });
    const ann = a.getById(42)!;
    a.remove(ann);
    b.add(ann);
    expect(session.get(User, 42)).toBe(ann);
    const c = await usersOf(session);
    expect(c.getById(42)).toBe(ann);
  });

  it("a new record created while listed: found by its server id through session.get, Model.load and another store's load", async () => {
    const session = new Session();
    const a = await usersOf(session);
    const [draft] = a.add({ name: 'Dee' });
    await a.sync();
    const id = draft!.getId();
    expect(typeof id).toBe('number');
    expect(session.get(User, id)).toBe(draft);
    expect(await User.load(id, { session })).toBe(draft);
    const b = await usersOf(session);
    expect(b.getById(id as number)).toBe(draft);
    expect(a.getById(id as number)).toBe(draft);
  });

  it('Model.load of an id a store lists, and a nested read of it, give the row', async () => {
    const session = new Session();
    const a = await usersOf(session);
    const ann = a.getById(42)!;
    expect(await User.load(42, { session })).toBe(ann);
    const posts = new Store({ model: Post, session, pageSize: 0 });
    await posts.load();
    expect(posts.getById(1)!.getUser()).toBe(ann);
    expect(await posts.getById(1)!.loadUser()).toBe(ann);
  });

  it('a nested user in a post answer is the row a users store lists, taking its values', async () => {
    server.db.posts = [{ id: 5, title: 'n', userId: 42, user: { id: 42, name: 'Ann (nested)' } }];
    const session = new Session();
    const a = await usersOf(session);
    const ann = a.getById(42)!;
    const post = await Post.load(5, { session });
    expect(post.getUser()).toBe(ann);
  });

  it("a row's id changed by set('id') while listed: found by the new id, not the old one", async () => {
    const session = new Session();
    const a = await usersOf(session);
    const bob = a.getById(7)!;
    bob.set('id', 70);
    expect(session.get(User, 70)).toBe(bob);
    expect(session.get(User, 7)).toBeUndefined();
    bob.reject();
    expect(a.getById(7)).toBe(bob);
    expect(a.getById(70)).toBeUndefined();
    expect(session.get(User, 7)).toBe(bob);
    expect(session.get(User, 70)).toBeUndefined();
  });

  it("a record the session holds itself (Model.load): set('id') then reject() leaves no stale id behind", async () => {
    const session = new Session();
    const bob = await User.load(7, { session });
    bob.set('id', 70);
    bob.reject();
    expect(session.get(User, 7)).toBe(bob);
    expect(session.get(User, 70)).toBeUndefined();
    // A new record may take id 70 now.
    const drafts = new Store({ model: User, session, pageSize: 0 });
    expect(() => drafts.add({ id: 70, name: 'new' })).not.toThrow();
  });
});

describe('two sessions', () => {
  it('never share a row, across stores and Model.load', async () => {
    const [one, two] = [new Session(), new Session()];
    const [a, b] = [await usersOf(one), await usersOf(two)];
    expect(a.getById(42)).not.toBe(b.getById(42));
    expect(await User.load(42, { session: two })).toBe(b.getById(42));
    expect(await User.load(42, { session: one })).toBe(a.getById(42));
  });

  it("a row of session A added to a store of session B is a TypeError, and B's store is unchanged", async () => {
    const [one, two] = [new Session(), new Session()];
    const a = await usersOf(one);
    const b = new Store({ model: User, session: two, pageSize: 0 });
    const ann = a.getById(42)!;
    expect(() => b.add(ann)).toThrow(TypeError);
    expect(b.getCount()).toBe(0);
    expect(ann.session).toBe(one);
  });

  it("a row of A's destroyed store added to B's store is a TypeError", async () => {
    const [one, two] = [new Session(), new Session()];
    const a = await usersOf(one);
    const ann = a.getById(42)!;
    a.destroy();
    const b = new Store({ model: User, session: two, pageSize: 0 });
    expect(() => b.add(ann)).toThrow(TypeError);
    expect(b.getCount()).toBe(0);
  });

  it("a batch with one row of another session adds none of them, and the session holds none of them", async () => {
    const [one, two] = [new Session(), new Session()];
    const a = await usersOf(one);
    const b = new Store({ model: User, session: two, pageSize: 0 });
    const fresh = new User({ name: 'fresh' });
    expect(() => b.add([fresh, a.getById(42)!])).toThrow(TypeError);
    expect(b.getCount()).toBe(0);
    expect(fresh.session).toBeUndefined();
  });

  it("a row of B's store refused by A's paged load does not move", async () => {
    const [one, two] = [new Session(), new Session()];
    const a = await usersOf(one, { pageSize: 1 });
    const b = await usersOf(two, { pageSize: 1 });
    await a.loadPage(2);
    await b.loadPage(2);
    expect(a.getAt(0)).not.toBe(b.getAt(0));
    expect(a.getAt(0)?.session).toBe(one);
    expect(b.getAt(0)?.session).toBe(two);
  });
});

describe('two sessions and nested reads', () => {
  it("a nested author read in session B is not session A's row of that id", async () => {
    server.db.posts = [{ id: 5, title: 'n', userId: 42, user: { id: 42, name: 'Ann (nested)' } }];
    const [one, two] = [new Session(), new Session()];
    const a = await usersOf(one);
    const post = await Post.load(5, { session: two });
    expect(post.getUser()).not.toBe(a.getById(42));
    expect(post.getUser()?.session).toBe(two);
    expect(a.getById(42)?.get('name')).toBe('Ann');
  });

  it("a post of session B cannot be pointed at a row of session A's store", async () => {
    const [one, two] = [new Session(), new Session()];
    const a = await usersOf(one);
    const post = await Post.load(1, { session: two });
    expect(() => post.setUser(a.getById(7)!)).toThrow(TypeError);
    expect(post.get('userId')).toBe(42);
  });
});

describe('hostile ids', () => {
  class Tag extends Model.define({ entityName: 'Tag', fields: { id: 'string', name: 'string' }, proxy: { type: 'memory' } }) {}
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('id %s: held and found, one per id', async (id) => {
    const session = new Session();
    const a = new Store({ model: Tag, session, pageSize: 0 });
    const [tag] = a.add({ id, name: 'x' });
    expect(session.get(Tag, id)).toBe(tag);
    expect(session.get(Tag, 'other')).toBeUndefined();
    const b = new Store({ model: Tag, session, pageSize: 0 });
    expect(() => b.add({ id, name: 'y' })).toThrow(TypeError);
    expect(session.records(Tag)).toEqual([tag]);
  });

  it("'7' and 7 are one id", async () => {
    const session = new Session();
    const a = new Store({ model: Tag, session, pageSize: 0 });
    const [tag] = a.add({ id: '7', name: 'x' });
    expect(session.get(Tag, 7)).toBe(tag);
    const b = new Store({ model: Tag, session, pageSize: 0 });
    expect(() => b.add({ id: '7', name: 'y' })).toThrow(TypeError);
  });
});
