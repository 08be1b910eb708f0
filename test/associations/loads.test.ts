/**
 * An association store's load against real servers on 127.0.0.1 (API.md 9.3): the target's url
 * template `{userId}` filled (`/users/42/posts`), else the target's collection filtered by the key
 * in the proxy's filter encoding (the plain test server's `filter` JSON, json-server's
 * `?userId=42`, in servers.e2e.test.ts); a phantom owner sends nothing. Nested read: posts under `posts` in a user's
 * answer become the session's records.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../src/presets.js';
import { Model, ProxyError, Store } from '../../src/index.js';
import { hasMany, Session, type Accessor } from '../../src/associations.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { Post, serve, User } from './models.js';

const POSTS = [{ id: 1, title: 'one', userId: 42 }, { id: 2, title: 'two', userId: 42 }, { id: 3, title: 'three', userId: 7 }];

describe('against the test server', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({ resources: { users: [{ id: 42, name: 'Ann' }, { id: 7, name: 'Bob' }], posts: POSTS.map((post) => ({ ...post })), comments: [], profiles: [] } });
    serve(server.url);
  });
  afterEach(async () => {
    await server.close();
  });

  it('load() reads the collection filtered by the key, and lists what it read', async () => {
    const session = new Session();
    const ann = await User.load(42, { session });
    const posts = await ann.posts().load();
    expect(posts.map((post) => post.get('title'))).toEqual(['one', 'two']);
    const read = server.requests.at(-1);
    expect(read?.path).toBe('/posts');
    expect(JSON.parse(read?.query.get('filter') ?? '[]')).toEqual([{ property: 'userId', value: 42 }]);
    expect(ann.posts().loaded).toBe(true);
    // The session's records: the post's user is the user loaded.
    expect(posts[0]?.getUser()).toBe(ann);
  });

  it('load() fills the {userId} template of the target url: /users/42/posts', async () => {
    class Nested extends Model.define({ entityName: 'Nested', fields: { id: 'int', title: 'string', userId: 'int' }, proxy: { type: 'rest', url: `${server.url}/users/{userId}/posts` } }) {}
    class Owner extends Model.define({ entityName: 'Owner', fields: { id: 'int', name: 'string' }, proxy: { type: 'rest', url: `${server.url}/users` } }) {
      static associations = { posts: hasMany(() => Nested, { foreignKey: 'userId' }) };
      declare posts: Accessor<typeof Owner.associations.posts>;
    }
    const owner = await Owner.load(42, { session: new Session() });
    const posts = await owner.posts().load();
    expect(server.requests.at(-1)?.path).toBe('/users/42/posts');
    expect(server.requests.at(-1)?.query.get('filter')).toBeNull();
    expect(posts.map((post) => post.getId())).toEqual([1, 2]);
  });

  it('a phantom owner sends nothing', async () => {
    const user = new User({ name: 'New' });
    const before = server.requests.length;
    expect(await user.posts().load()).toEqual([]);
    expect(server.requests.length).toBe(before);
  });

  it('nested read: posts under "posts" in a user answer are the session records, keys filled, the store loaded', async () => {
    server.respond('GET', '/users/9', { status: 200, body: { id: 9, name: 'Nest', posts: [{ id: 11, title: 'a' }, { id: 12, title: 'b' }] } });
    const session = new Session();
    const posts = new Store({ model: Post, session, pageSize: 0 });
    const user = await User.load(9, { session });
    expect(user.posts().loaded).toBe(true);
    expect(user.posts().getRange().map((post) => [post.getId(), post.get('userId'), post.dirty])).toEqual([[11, 9, false], [12, 9, false]]);
    expect(user.getData()).not.toHaveProperty('posts');
    server.respond('GET', '/posts', { status: 200, body: [{ id: 11, title: 'a, read again', userId: 9 }] });
    await posts.load();
    expect(posts.getAt(0)).toBe(user.posts().getAt(0));
    expect(user.posts().getAt(0)?.get('title')).toBe('a, read again');
  });

  it('nested read: an author nested in a post is the grid row', async () => {
    const session = new Session();
    const users = new Store({ model: User, session, pageSize: 0 });
    await users.load();
    server.respond('GET', '/posts', { status: 200, body: [{ id: 5, title: 'x', user: { id: 42, name: 'Ann' } }] });
    const posts = new Store({ model: Post, session, pageSize: 0 });
    const [post] = await posts.load();
    expect(post?.get('userId')).toBe(42);
    expect(post?.getUser()).toBe(users.getById(42));
    expect(await post?.loadUser()).toBe(users.getById(42));
  });

  it.each([
    ['an object where an array is expected', { id: 9, posts: { id: 1 } }, /nested \.posts: expected an array/],
    ['a string among the posts', { id: 9, posts: [{ id: 1 }, 'x'] }, /nested \.posts: expected an array of objects/],
    ['an array where one user is expected', [{ id: 5, user: [{ id: 1 }] }], /nested \.user: expected an object or null/],
  ])('nested read refuses %s: kind parse naming the key, nothing applied', async (_what, body, message) => {
    const session = new Session();
    const users = new Store({ model: User, session, pageSize: 0 });
    await users.load();
    const ann = users.getById(42);
    server.respond('GET', Array.isArray(body) ? '/posts' : '/users', { status: 200, body: Array.isArray(body) ? body : [{ ...body }, { id: 42, name: 'changed' }] });
    const store = Array.isArray(body) ? new Store({ model: Post, session, pageSize: 0 }) : users;
    const failure = await store.load().then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(ProxyError);
    expect(failure).toMatchObject({ kind: 'parse', message: expect.stringMatching(message) as unknown });
    expect(ann?.get('name')).toBe('Ann');
    expect(session.get(User, 9)).toBeUndefined();
    expect(session.get(Post, 1)).toBeUndefined();
  });

  it('nested read refuses "__proto__" in nested data, and deeper than 32 levels', async () => {
    const session = new Session();
    server.respond('GET', '/users/9', { status: 200, body: '{"id":9,"posts":[{"id":1,"__proto__":{"polluted":true}}]}', headers: { 'Content-Type': 'application/json' } });
    await expect(User.load(9, { session })).rejects.toMatchObject({ kind: 'parse', message: expect.stringMatching(/nested \.posts: "__proto__" is not a field/) as unknown });
    expect(session.get(User, 9)).toBeUndefined();
    expect(Reflect.get({}, 'polluted')).toBeUndefined();
    let deep: Record<string, unknown> = { id: 1 };
    for (let level = 0; level < 40; level++) deep = { id: level + 2, posts: [{ id: 1000 + level, user: deep }] };
    server.respond('GET', '/users/8', { status: 200, body: deep });
    await expect(User.load(8, { session })).rejects.toMatchObject({ kind: 'parse', message: expect.stringMatching(/deeper than 32 levels/) as unknown });
  });
});

describe('nested read in a save answer', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({ resources: { users: [], posts: [], comments: [], profiles: [] } });
    serve(server.url);
  });
  afterEach(async () => {
    await server.close();
  });

  it('posts in the answer to a create become the session records, their keys the new id', async () => {
    server.respond('POST', '/users', { status: 201, body: { id: 77, name: 'Cy', posts: [{ id: 5, title: 'welcome' }] } });
    const session = new Session();
    const store = new Store({ model: User, session });
    const [user] = store.add({ name: 'Cy' });
    await user?.save();
    expect(user?.getId()).toBe(77);
    const post = session.get(Post, 5);
    expect(post?.get('userId')).toBe(77);
    expect(post?.getUser()).toBe(user);
    expect(user?.posts().getRange()).toEqual([post]);
    expect(user?.posts().loaded).toBe(true);
  });

  it('a wrong shape refuses the answer: kind parse, the record stays as it was', async () => {
    server.respond('POST', '/users', { status: 201, body: { id: 78, name: 'Di', posts: 'none' } });
    const session = new Session();
    const store = new Store({ model: User, session });
    const [user] = store.add({ name: 'Di' });
    await expect(user?.save()).rejects.toMatchObject({ kind: 'parse', message: expect.stringMatching(/nested \.posts: expected an array/) as unknown });
    expect(user?.getId()).toBeUndefined();
    expect(user?.phantom).toBe(true);
  });
});
