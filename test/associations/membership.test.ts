/**
 * Membership follows the foreign keys (API.md 9.3, STYLE.md "A graph kept in foreign keys"): an
 * edit, a reject or a load that changes a key moves the record between the owners' stores; `add`
 * sets the key, `remove` clears it (an owned child is destroyed at the next sync instead), and
 * neither marks anything else for destroy.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/index.js';
import { Session } from '../../src/associations.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { Comment, Post, Profile, serve, User } from './models.js';

let server: TestServer;
let session: Session;
let users: Store<User>;
let posts: Store<Post>;

beforeEach(async () => {
  server = await startTestServer({
    resources: {
      users: [{ id: 42, name: 'Ann' }, { id: 7, name: 'Bob' }],
      posts: [{ id: 1, title: 'one', userId: 42 }, { id: 2, title: 'two', userId: 42 }, { id: 3, title: 'three', userId: 7 }],
      comments: [{ id: 100, body: 'first', postId: 1 }],
      profiles: [{ id: 5, bio: 'hi', userId: 42 }],
    },
  });
  serve(server.url);
  session = new Session();
  users = new Store({ model: User, session, pageSize: 0 });
  posts = new Store({ model: Post, session, pageSize: 0 });
  await Promise.all([users.load(), posts.load()]);
});

afterEach(async () => {
  await server.close();
});

function user(id: number): User {
  const found = users.getById(id);
  if (found === undefined) throw new Error(`no user ${id}`);
  return found;
}

const ids = (store: Store<Post>): unknown[] => store.getRange().map((post) => post.getId()).sort();

describe('a key change moves the record', () => {
  it('a load that changes a post key moves it from one user to the other', async () => {
    const [ann, bob] = [user(42), user(7)];
    expect(ids(ann.posts())).toEqual([1, 2]);
    expect(ids(bob.posts())).toEqual([3]);
    const row = server.db['posts']?.find((post) => post['id'] === 1);
    if (row) row['userId'] = 7;
    await posts.load();
    expect(ids(ann.posts())).toEqual([2]);
    expect(ids(bob.posts())).toEqual([1, 3]);
    expect(posts.getById(1)?.dirty).toBe(false);
  });

  it('setUser moves the post; reject() moves it back in both stores', () => {
    const [ann, bob] = [user(42), user(7)];
    const post = posts.getById(1);
    post?.setUser(bob);
    expect(post?.getUser()).toBe(bob);
    expect(ids(ann.posts())).toEqual([2]);
    expect(ids(bob.posts())).toEqual([1, 3]);
    posts.rejectChanges();
    expect(ids(ann.posts())).toEqual([1, 2]);
    expect(ids(bob.posts())).toEqual([3]);
  });
});

describe.each([['no key', undefined], ['a null key', null]] as const)('a saved post with %s moved to a new user (a reference)', (_, key) => {
  it('is moved back by reject(): out of the new user\'s store, referencing nothing, not dirty', async () => {
    server.db['posts']?.push({ id: 9, title: 'orphan', ...(key === null ? { userId: null } : {}) });
    await posts.load();
    const post = posts.getById(9);
    if (post === undefined) throw new Error('no post 9');
    const [made] = users.add({ name: 'New' });
    if (made === undefined) throw new Error('no user');
    post.setUser(made);
    expect(made.posts().getRange()).toEqual([post]);
    expect(post.getUser()).toBe(made);
    expect(post.dirty).toBe(true);
    post.reject();
    expect(made.posts().getRange()).toEqual([]);
    expect(post.getUser()).toBeUndefined();
    // A declared field given no value reads as null (API.md 5).
    expect(post.get('userId')).toBeNull();
    expect(post.dirty).toBe(false);
    // The user's create no longer gives the post a key.
    await users.sync();
    expect(post.get('userId')).toBeNull();
    expect(post.dirty).toBe(false);
  });
});

describe('a destroyed association store', () => {
  it('is not handed out again: the next user.posts() is a new store that lists the posts (also once the users\' store is destroyed)', async () => {
    const ann = user(42);
    const first = ann.posts();
    expect(ids(first)).toEqual([1, 2]);
    users.destroy();
    expect(ann.posts()).toBe(first);
    first.destroy();
    const next = ann.posts();
    expect(next).not.toBe(first);
    expect(ann.posts()).toBe(next);
    expect(ids(next)).toEqual([1, 2]);
    await next.load();
    expect(ids(next)).toEqual([1, 2]);
    const [made] = next.add({ title: 'made' });
    expect(made?.get('userId')).toBe(42);
    posts.getById(1)?.set('userId', 7);
    expect(ids(next)).toEqual([2, undefined]);
  });
});

describe('add and remove', () => {
  it('add sets the key (a new record, or a plain object); the next sync creates it with the key', async () => {
    const ann = user(42);
    const [made] = ann.posts().add({ title: 'made' });
    expect(made?.get('userId')).toBe(42);
    expect(ids(ann.posts())).toEqual([1, 2, undefined]);
    await ann.posts().sync();
    expect(server.db['posts']?.find((row) => row['title'] === 'made')?.['userId']).toBe(42);
    expect(posts.getById(made?.getId())).toBeUndefined(); // the grid store lists what it loaded or was given
  });

  it('remove clears the key and marks nothing for destroy', async () => {
    const ann = user(42);
    const post = posts.getById(2);
    if (post === undefined) throw new Error('no post 2');
    expect(ann.posts().remove(post)).toEqual([post]);
    expect(post.get('userId')).toBeNull();
    expect(ids(ann.posts())).toEqual([1]);
    expect(ann.posts().getRemovedRecords()).toEqual([]);
    expect(posts.getRemovedRecords()).toEqual([]);
    await posts.sync();
    const sent = server.requests.filter((request) => request.method !== 'GET');
    expect(sent.map((request) => `${request.method} ${request.path}`)).toEqual(['PUT /posts/2']);
    expect(server.db['posts']?.find((row) => row['id'] === 2)).toMatchObject({ userId: null });
  });

  it('an owned child removed is destroyed at the next sync', async () => {
    const first = posts.getById(1);
    if (first === undefined) throw new Error('no post 1');
    const comments = first.comments();
    await comments.load();
    const comment = comments.getAt(0);
    if (comment === undefined) throw new Error('no comment');
    comments.remove(comment);
    expect(comments.getCount()).toBe(0);
    await comments.sync();
    expect(server.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/comments/100' });
    expect(comment.erased).toBe(true);
  });

  it('add of a record of another model is a TypeError, nothing changes', () => {
    const ann = user(42);
    expect(() => ann.posts().add(new Comment({ body: 'x' }) as never)).toThrow(TypeError);
    expect(ids(ann.posts())).toEqual([1, 2]);
  });
});

describe('hasOne', () => {
  it('getProfile, loadProfile; setting a second clears the first one key', async () => {
    const ann = user(42);
    expect(ann.getProfile()).toBeUndefined();
    const profile = await ann.loadProfile();
    expect(profile?.get('bio')).toBe('hi');
    expect(ann.getProfile()).toBe(profile);
    const other = new Profile({ bio: 'other' });
    ann.setProfile(other);
    expect(ann.getProfile()).toBe(other);
    expect(other.get('userId')).toBe(42);
    expect(profile?.get('userId')).toBeNull();
    ann.setProfile(null);
    expect(ann.getProfile()).toBeUndefined();
  });
});
