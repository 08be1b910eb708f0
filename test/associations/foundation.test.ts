/**
 * Associations and sessions (issue 22, API.md 9.3): one record per (model, id), stores as views
 * over the foreign keys, children of phantom parents holding references.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Model, Store } from '../../src/index.js';
import { belongsTo, hasMany, Session } from '../../src/associations.js';
import { extensions } from '../../src/model/extensions.js';
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
  await server.close();
});

describe('one record per (model, id)', () => {
  it('the grid row, loadUser() and the store of posts are one object', async () => {
    const session = new Session();
    const users = new Store({ model: User, session, pageSize: 0 });
    await users.load();
    const posts = new Store({ model: Post, session, pageSize: 0 });
    await posts.load();
    const post = posts.getById(1);
    const ann = users.getById(42);
    expect(ann).toBeDefined();
    expect(post?.getUser()).toBe(ann);
    expect(await post?.loadUser()).toBe(ann);
    expect(ann?.session).toBe(session);
    ann?.set('name', 'Annie');
    expect(post?.getUser()?.get('name')).toBe('Annie');
  });

  it('two sessions share nothing', async () => {
    const [one, two] = [new Session(), new Session()];
    const a = new Store({ model: User, session: one, pageSize: 0 });
    const b = new Store({ model: User, session: two, pageSize: 0 });
    const postsOfA = new Store({ model: Post, session: one, pageSize: 0 });
    await Promise.all([a.load(), b.load(), postsOfA.load()]);
    expect(a.getById(42)).not.toBe(b.getById(42));
    expect(a.getById(42)?.posts().getCount()).toBe(2);
    const bob = b.getById(7);
    const post = postsOfA.getById(1);
    if (bob === undefined || post === undefined) throw new Error('rows missing');
    expect(bob.posts().getCount()).toBe(0);
    expect(() => bob.posts().add(post)).toThrow(/another session/);
    expect(() => post.setUser(bob)).toThrow(/another session/);
    expect(post.get('userId')).toBe(42);
    expect(bob.posts().getCount()).toBe(0);
  });

  it('a store of a model with associations uses Session.default', () => {
    const store = new Store({ model: User });
    expect(store.session).toBe(Session.default);
  });
});

describe('membership follows the keys', () => {
  it('user.posts() is the same store each call and lists the posts with the user id', async () => {
    const session = new Session();
    const posts = new Store({ model: Post, session, pageSize: 0 });
    const users = new Store({ model: User, session, pageSize: 0 });
    await Promise.all([posts.load(), users.load()]);
    const ann = users.getById(42);
    const bob = users.getById(7);
    if (ann === undefined || bob === undefined) throw new Error('users missing');
    expect(ann.posts()).toBe(ann.posts());
    expect(ann.posts().getRange().map((post) => post.getId())).toEqual([1, 2]);
    const two = posts.getById(2);
    two?.set('userId', 7);
    expect(ann.posts().getRange().map((post) => post.getId())).toEqual([1]);
    expect(bob.posts().getRange().map((post) => post.getId()).sort()).toEqual([2, 3]);
    two?.reject();
    expect(ann.posts().getRange().map((post) => post.getId())).toEqual([1, 2]);
    expect(bob.posts().getRange().map((post) => post.getId())).toEqual([3]);
  });
});

describe('a child of a phantom parent', () => {
  it('holds a reference: no key until the parent is created, then the key; waitsFor names the parent', async () => {
    const session = new Session();
    const users = new Store({ model: User, session });
    const [user] = users.add({ name: 'New' });
    if (user === undefined) throw new Error('no user');
    const clientId = user.clientId;
    const [post] = user.posts().add({ title: 'draft' });
    if (post === undefined) throw new Error('no post');
    expect(post.get('userId')).toBeUndefined();
    expect(post.getUser()).toBe(user);
    expect(extensions.waitsFor?.(post)).toEqual([user]);
    await user.save();
    expect(user.clientId).toBe(clientId);
    expect(post.get('userId')).toBe(user.getId());
    expect(extensions.waitsFor?.(post)).toEqual([]);
    expect(user.posts().getRange()).toEqual([post]);
    await post.save();
    expect(server.db['posts']?.find((row) => row['title'] === 'draft')?.['userId']).toBe(user.getId());
  });
});

describe('the session follows ids', () => {
  it('a setId re-keys the record; another record with that id is refused', async () => {
    const session = new Session();
    const users = new Store({ model: User, session, pageSize: 0 });
    await users.load();
    const bob = users.getById(7);
    bob?.setId(8);
    expect(session.get(User, 8)).toBe(bob);
    expect(session.get(User, 7)).toBeUndefined();
    expect(() => bob?.setId(42)).toThrow(TypeError);
    expect(() => new Store({ model: User, session, data: [{ id: 42, name: 'twin' }] })).toThrow(/holds another User with id 42/);
  });
});

describe('a load of a session store', () => {
  it('maps the loaded rows to the session records: server values taken, unsaved edits kept on top', async () => {
    const session = new Session();
    const grid = new Store({ model: Post, session, pageSize: 0 });
    await grid.load();
    const one = grid.getById(1);
    one?.set('title', 'my edit');
    const row = server.db['posts']?.find((post) => post['id'] === 1);
    if (row) row['userId'] = 7;
    const other = new Store({ model: Post, session, pageSize: 0 });
    await other.load();
    expect(other.getById(1)).toBe(one);
    expect(one?.get('title')).toBe('my edit');
    expect(one?.get('userId')).toBe(7);
    expect(one?.dirty).toBe(true);
    expect(one?.getChanges()).toEqual({ title: 'my edit' });
  });
});

describe('models without associations keep per-store identity', () => {
  it('no session for their stores and loads; two loads give two objects', async () => {
    class Plain extends Model.define({ entityName: 'Plain', fields: { id: 'int', title: 'string' }, proxy: { type: 'rest', url: `${server.url}/posts` } }) {}
    const [a, b] = [await Plain.load(1), await Plain.load(1)];
    expect(a).not.toBe(b);
    expect(a.session).toBeUndefined();
    expect(new Store({ model: Plain }).session).toBeUndefined();
    const session = new Session();
    expect(await Plain.load(1, { session })).toBe(await Plain.load(1, { session }));
  });
});

describe('which stores use Session.default (docs/associations.md)', () => {
  it('a model that is only a target: once a model aiming at it was used; declaring the inverse makes it independent of that order', () => {
    class Leaf extends Model.define({ entityName: 'Leaf', fields: { id: 'int', treeId: 'int' } }) {}
    class Tree extends Model.define({ entityName: 'Tree', fields: { id: 'int' } }) {
      static associations = { leaves: hasMany(() => Leaf, { foreignKey: 'treeId' }) };
    }
    expect(new Store({ model: Leaf }).session).toBeUndefined();
    expect(new Tree({}).session).toBeUndefined();
    expect(new Store({ model: Leaf }).session).toBe(Session.default);

    class Twig extends Model.define({ entityName: 'Twig', fields: { id: 'int', branchId: 'int' } }) {
      static associations = { branch: belongsTo(() => Branch, { foreignKey: 'branchId', inverse: 'twigs' }) };
    }
    class Branch extends Model.define({ entityName: 'Branch', fields: { id: 'int' } }) {
      static associations = { twigs: hasMany(() => Twig, { foreignKey: 'branchId', inverse: 'branch' }) };
    }
    expect(new Store({ model: Twig }).session).toBe(Session.default);
    expect(new Store({ model: Branch }).session).toBe(Session.default);
  });
});
