/**
 * Creates in dependency order (API.md 9.3), against the test server: a user -> post -> comment
 * graph of new records in three stores, saved by one sync (syncGraph, what session.sync() calls),
 * by one store's sync, and by a child's save(). The references and the key filling are the
 * stand-in's (./standIn.ts: the core's hooks alone; graph.real.test.ts has the real module).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Model, presence, ProxyError, RestProxy, Store, userMessage } from '../../src/index.js';
import { syncGraph } from '../../src/associations.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { expectLinked, expectNoClientIds } from './graphChecks.js';
import { FAST_RETRY, proxyErrorOf, rejectionOf, requestLines, rowsOf } from '../resilience/helpers.js';
import { forgetReferences, ownedBy, refer } from './standIn.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { users: [], posts: [], comments: [] } });
});

afterEach(async () => {
  forgetReferences();
  await server.close();
});

interface UserData { id: number; name: string }
interface PostData { id: number; userId: number; title: string }
interface CommentData { id: number; postId: number; text: string }

function models(batchActions = false, idempotencyKey = false) {
  const proxy = (name: string) => new RestProxy({ url: `${server.url}/${name}`, batchActions, idempotencyKey, retry: { ...FAST_RETRY }, timeout: 2_000 });
  class User extends Model<UserData> {
    static override entityName = 'users';
    static override fields = [{ name: 'id', type: 'int' }, 'name'];
    static override proxy = proxy('users');
  }
  class Post extends Model<PostData> {
    static override entityName = 'posts';
    static override fields = [{ name: 'id', type: 'int' }, { name: 'userId', type: 'int' }, 'title'];
    static override proxy = proxy('posts');
  }
  class Comment extends Model<CommentData> {
    static override entityName = 'comments';
    static override fields = [{ name: 'id', type: 'int' }, { name: 'postId', type: 'int' }, 'text'];
    static override proxy = proxy('comments');
  }
  return { User, Post, Comment };
}

/** Three stores, one new user with two new posts, each with a new comment. */
function graph(batchActions = false) {
  const { User, Post, Comment } = models(batchActions);
  const users = new Store({ model: User, pageSize: 0 });
  const posts = new Store({ model: Post, pageSize: 0 });
  const comments = new Store({ model: Comment, pageSize: 0 });
  const [user] = users.add({ name: 'Ann' });
  const [p1, p2] = posts.add([{ title: 'one' }, { title: 'two' }]);
  const [c1, c2] = comments.add([{ text: 'first' }, { text: 'second' }]);
  if (!user || !p1 || !p2 || !c1 || !c2) throw new Error('records not added');
  refer(p1, 'userId', user);
  refer(p2, 'userId', user);
  refer(c1, 'postId', p1);
  refer(c2, 'postId', p2);
  return { User, Post, Comment, users, posts, comments, user, p1, p2, c1, c2 };
}

interface Pending {
  getNewRecords(): Model<object>[];
  getUpdatedRecords(): Model<object>[];
  getRemovedRecords(): Model<object>[];
}

function pendingOf(...stores: Pending[]) {
  return { create: stores.flatMap((store) => store.getNewRecords()), update: stores.flatMap((store) => store.getUpdatedRecords()), destroy: stores.flatMap((store) => store.getRemovedRecords()) };
}

describe.each([false, true])('a three-level graph in three stores, batchActions %s', (batchActions) => {
  it('one syncGraph creates parents first, with the keys filled and no client id on the wire', async () => {
    const g = graph(batchActions);
    const batch = await syncGraph(pendingOf(g.users, g.posts, g.comments));
    expect(batch.hasException()).toBe(false);
    const lines = requestLines(server);
    expect(lines).toEqual(batchActions ? ['POST /users', 'POST /posts', 'POST /comments'] : ['POST /users', 'POST /posts', 'POST /posts', 'POST /comments', 'POST /comments']);
    expectNoClientIds(server);
    expectLinked(server);
    expect(g.p1.get('userId')).toBe(g.user.getId());
    expect(g.c2.get('postId')).toBe(g.p2.getId());
    for (const record of [g.user, g.p1, g.p2, g.c1, g.c2]) expect(record.dirty).toBe(false);
  });

  it("one store's sync creates the parents it needs from the other stores first, at any depth", async () => {
    const g = graph(batchActions);
    await g.comments.sync();
    expect(requestLines(server).slice(0, 2)).toEqual(['POST /users', 'POST /posts']);
    expectNoClientIds(server);
    expectLinked(server);
    expect(g.users.getNewRecords()).toEqual([]);
    expect(g.posts.getNewRecords()).toEqual([]);
    // Nothing left: the next syncs send nothing.
    const before = server.requests.length;
    await Promise.all([g.users.sync(), g.posts.sync(), g.comments.sync()]);
    expect(server.requests.length).toBe(before);
  });

  it("the parent's create failing leaves every dependant pending with kind 'dependency'; the next sync completes with no duplicates", async () => {
    const g = graph(batchActions);
    server.inject({ type: 'status', status: 400, body: { message: 'refused' }, match: { method: 'POST', path: '/users' } });
    const error = await rejectionOf(syncGraph(pendingOf(g.users, g.posts, g.comments)));
    if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
    expect(requestLines(server)).toEqual(['POST /users']);
    const byRecord = new Map(error.batch.exceptions.map((operation) => [operation.records[0], operation.error]));
    const userError = byRecord.get(g.user);
    expect(userError?.kind).toBe('http');
    for (const post of [g.p1, g.p2]) {
      const postError = byRecord.get(post);
      expect(postError?.kind).toBe('dependency');
      expect(postError?.cause).toBe(userError);
      expect(postError?.message).toContain(g.user.clientId);
    }
    const commentError = byRecord.get(g.c1);
    expect(commentError?.kind).toBe('dependency');
    expect(commentError?.cause).toBe(byRecord.get(g.p1));
    expect(userMessage(commentError)).toBe(userMessage(userError));
    // Unchanged and pending.
    for (const record of [g.user, g.p1, g.p2, g.c1, g.c2]) {
      expect(record.phantom).toBe(true);
      expect(record.saving).toBe(false);
    }
    expect(g.p1.get('userId')).toBeUndefined();
    expect(g.comments.getNewRecords()).toEqual([g.c1, g.c2]);

    await syncGraph(pendingOf(g.users, g.posts, g.comments));
    expectLinked(server);
    expectNoClientIds(server);
  });

  it('a cycle of keys among new records is refused with kind config, before any request', async () => {
    const g = graph(batchActions);
    refer(g.user, 'name', g.c1); // user -> comment -> post -> user
    const error = await rejectionOf(syncGraph(pendingOf(g.users, g.posts, g.comments)));
    if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
    expect(server.requests).toEqual([]);
    const cycle = error.errors[0];
    expect(cycle?.kind).toBe('config');
    expect(cycle?.message).toMatch(/a cycle of keys among new records: (\w+-\d+) -> \w+-\d+ -> \w+-\d+ -> \1/);
    expect(cycle?.message).toContain(`${g.user.clientId} -> ${g.c1.clientId} -> ${g.p1.clientId} -> ${g.user.clientId}`);
    // The records of the cycle fail; the others (the second post and its comment) are not sent.
    expect(error.batch.exceptions.map((operation) => operation.records[0])).toEqual([g.user, g.c1, g.p1]);
    expect(error.batch.unsent.map((operation) => operation.records[0])).toEqual([g.p2, g.c2]);
    expect(error.message).toContain('2 not sent');
    // A store's sync and a save refuse it the same way.
    const storeError = await rejectionOf(g.posts.sync());
    expect(storeError).toBeInstanceOf(BatchError);
    expect((await proxyErrorOf(g.c1.save())).kind).toBe('config');
    expect(server.requests).toEqual([]);
    expect(g.user.phantom && g.p1.phantom && g.c1.phantom).toBe(true);
  });
});

describe("a child's save()", () => {
  it('saves its new parents first (at any depth), then sends with the key filled', async () => {
    const g = graph();
    await g.c1.save();
    expect(requestLines(server)).toEqual(['POST /users', 'POST /posts', 'POST /comments']);
    expect(g.c1.get('postId')).toBe(g.p1.getId());
    expect(rowsOf(server, 'comments')[0]?.['postId']).toBe(g.p1.getId());
    expectNoClientIds(server);
    // The sibling's branch is left for its own sync.
    expect(g.p2.phantom).toBe(true);
  });

  it("rejects with kind 'dependency' when its parent's create fails, and is sent by a later save", async () => {
    const g = graph();
    server.inject({ type: 'status', status: 400, body: { message: 'refused' }, match: { method: 'POST', path: '/users' } });
    const error = await proxyErrorOf(g.c1.save());
    expect(error.kind).toBe('dependency');
    expect(error.cause).toBeInstanceOf(ProxyError);
    const cause = error.cause instanceof ProxyError ? error.cause : undefined;
    expect(cause?.kind).toBe('dependency');
    expect(cause?.cause).toBeInstanceOf(ProxyError);
    expect(requestLines(server)).toEqual(['POST /users']);
    expect(g.c1.phantom).toBe(true);
    await g.c1.save();
    expect(requestLines(server).slice(1)).toEqual(['POST /users', 'POST /posts', 'POST /comments']);
    expect(rowsOf(server, 'users')).toHaveLength(1);
  });

  it('waits for its parent’s save in flight: one POST per record', async () => {
    const g = graph();
    server.inject({ type: 'delay', ms: 50, match: { method: 'POST', path: '/users' } });
    const parent = g.user.save();
    await Promise.all([g.c1.save(), g.p1.save(), parent]);
    expect(requestLines(server)).toEqual(['POST /users', 'POST /posts', 'POST /comments']);
  });
});

describe('a parent that cannot be sent', () => {
  it("one store's sync: the parent's create failing in another store fails the store's records with 'dependency'; both stay pending", async () => {
    const g = graph();
    server.inject({ type: 'status', status: 400, match: { method: 'POST', path: '/users' } });
    const error = await rejectionOf(g.comments.sync());
    if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
    expect(requestLines(server)).toEqual(['POST /users']);
    expect(error.errors.map((each) => each.kind)).toEqual(['http', 'dependency', 'dependency', 'dependency', 'dependency']);
    expect(g.users.getNewRecords()).toEqual([g.user]);
    expect(g.comments.getNewRecords()).toEqual([g.c1, g.c2]);
    await g.comments.sync();
    expectLinked(server);
  });

  it('no answer from the server (retries spent): the sync stops, what waits is not sent (not failed), and the next sync sends it', async () => {
    const g = graph(true);
    server.inject({ type: 'reset-before', match: { method: 'POST', path: '/users' } }); // a POST without an idempotency key is not retried
    const error = await rejectionOf(syncGraph(pendingOf(g.users, g.posts, g.comments)));
    if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
    expect(error.errors.map((each) => each.kind)).toEqual(['network']);
    expect(error.batch.isPaused).toBe(true);
    expect(error.batch.unsent.flatMap((operation) => operation.records)).toEqual([g.p1, g.p2, g.c1, g.c2]);
    expect(new Set(requestLines(server))).toEqual(new Set(['POST /users']));
    await syncGraph(pendingOf(g.users, g.posts, g.comments));
    expectLinked(server);
  });

  it("an invalid new parent outside the store is not sent; its children fail with 'dependency' whose cause is the validation error", async () => {
    const { User, Post } = models();
    class CheckedUser extends User {
      static override validators = { name: presence() };
    }
    const posts = new Store({ model: Post, pageSize: 0 });
    const user = new CheckedUser({ name: '' });
    const [post] = posts.add({ title: 'one' });
    if (!post) throw new Error('not added');
    refer(post, 'userId', user);
    const error = await rejectionOf(posts.sync());
    if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
    expect(server.requests).toEqual([]);
    expect(error.errors.map((each) => each.kind)).toEqual(['dependency']);
    const cause = error.errors[0]?.cause;
    expect(cause instanceof ProxyError && cause.kind).toBe('validation');
    expect(user.errors).toHaveProperty('name');
    user.set('name', 'Ann');
    await posts.sync();
    expect(requestLines(server)).toEqual(['POST /users', 'POST /posts']);
  });

  it('a parent in a store of its own, held back there as invalid, is not sent by its own store either', async () => {
    const { User, Post } = models();
    class CheckedUser extends User {
      static override validators = { name: presence() };
    }
    const users = new Store({ model: CheckedUser, pageSize: 0 });
    const posts = new Store({ model: Post, pageSize: 0 });
    const [user] = users.add({ name: '' });
    const [post] = posts.add({ title: 'one' });
    if (!user || !post) throw new Error('not added');
    refer(post, 'userId', user);
    const error = await rejectionOf(syncGraph(pendingOf(users, posts)));
    if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
    expect(server.requests).toEqual([]);
    expect(error.errors.map((each) => each.kind).sort()).toEqual(['dependency', 'validation']);
  });
});

describe('parent and child in one store (a tree of one model)', () => {
  it('the store sends the parent first; an invalid parent it holds back fails its child with dependency, and nothing hangs', async () => {
    const { Post } = models(true);
    class Checked extends Post {
      static override validators = { title: presence() };
    }
    const posts = new Store({ model: Checked, pageSize: 0 });
    const [root, leaf] = posts.add([{ title: '' }, { title: 'leaf' }]);
    if (!root || !leaf) throw new Error('not added');
    refer(leaf, 'userId', root);
    const error = await rejectionOf(posts.sync());
    if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
    expect(server.requests).toEqual([]);
    expect(error.errors.map((each) => each.kind).sort()).toEqual(['dependency', 'validation']);
    root.set('title', 'root');
    await posts.sync();
    expect(requestLines(server)).toEqual(['POST /posts', 'POST /posts']);
    expect(rowsOf(server, 'posts')[1]?.['userId']).toBe(root.getId());
  });
});

describe('races', () => {
  it.each([false, true])('two syncs at once and saves during them create each record once (batchActions %s)', async (batchActions) => {
    const g = graph(batchActions);
    server.inject({ type: 'delay', ms: 30, match: { method: 'POST' }, times: 5 });
    const all = pendingOf(g.users, g.posts, g.comments);
    const results = await Promise.allSettled([syncGraph(all), g.comments.sync(), g.posts.sync(), g.c2.save(), syncGraph(all), g.user.save()]);
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expectLinked(server);
    expectNoClientIds(server);
    expect(requestLines(server).filter((line) => line === 'POST /users')).toHaveLength(1);
  });

  it('a sync while a child save waits for its parent sends nothing twice', async () => {
    const g = graph();
    server.inject({ type: 'delay', ms: 40, match: { method: 'POST', path: '/users' } });
    const save = g.c1.save();
    const sync = g.posts.sync();
    await Promise.all([save, sync]);
    expect(rowsOf(server, 'posts')).toHaveLength(2);
    expect(rowsOf(server, 'users')).toHaveLength(1);
    expect(rowsOf(server, 'comments')).toHaveLength(1);
  });
});

describe('two stores that each need a new record of the other', () => {
  it('their syncs at once both complete: a sync takes the parents it needs when it takes its own records, never one after the other', async () => {
    const { User, Post } = models();
    server.db['posts']?.push({ id: 9, userId: 0, title: 'old' });
    const users = new Store({ model: User, pageSize: 0 });
    const posts = new Store({ model: Post, pageSize: 0 });
    await posts.load();
    const [ann, bo] = users.add([{ name: 'Ann' }, { name: 'Bo' }]);
    const [post] = posts.add({ title: 'by Ann' });
    const old = posts.getById(9);
    if (!ann || !bo || !post || !old) throw new Error('not added');
    refer(post, 'userId', ann); // the posts' store needs Ann
    refer(bo, 'name', post); // the users' store needs the new post (for Bo)
    // A save in flight holds the posts' sync while the users' sync starts.
    server.inject({ type: 'delay', ms: 50, match: { method: 'PUT' } });
    old.set('title', 'new');
    const saving = old.save();
    const both = Promise.all([posts.sync(), users.sync(), saving]);
    const stuck = new Promise((resolve) => setTimeout(() => resolve('stuck'), 3_000));
    expect(await Promise.race([both.then(() => 'done'), stuck])).toBe('done');
    expect(rowsOf(server, 'users')).toHaveLength(2);
    expect(rowsOf(server, 'posts')).toHaveLength(2);
    expect(rowsOf(server, 'posts')[1]?.['userId']).toBe(ann.getId());
  });
});

describe('updates and destroys in order', () => {
  it('an update that needs a created record follows it', async () => {
    const { User, Post } = models();
    server.db['posts']?.push({ id: 5, userId: 0, title: 'old' });
    const posts = new Store({ model: Post, pageSize: 0 });
    await posts.load();
    const post = posts.getById(5);
    const user = new User({ name: 'Bo' });
    if (!post) throw new Error('not loaded');
    refer(post, 'userId', user); // moved to a new user (the stand-in sets the key once it is created)
    post.set('title', 'moved');
    await posts.sync();
    expect(requestLines(server).slice(1)).toEqual(['POST /users', 'PUT /posts/5']);
    expect(rowsOf(server, 'posts')[0]?.['userId']).toBe(user.getId());
  });

  it('owned children are destroyed before their parent; when one fails the parent stays removed', async () => {
    const { User, Post } = models();
    server.db['users']?.push({ id: 1, name: 'Ann' });
    server.db['posts']?.push({ id: 1, userId: 1, title: 'a' }, { id: 2, userId: 1, title: 'b' });
    const users = new Store({ model: User, pageSize: 0 });
    const posts = new Store({ model: Post, pageSize: 0 });
    await Promise.all([users.load(), posts.load()]);
    const user = users.getById(1);
    const children = posts.getRange();
    if (!user) throw new Error('not loaded');
    ownedBy(user, children);
    users.remove(user);
    posts.remove(children);
    server.reset();
    server.inject({ type: 'status', status: 400, match: { method: 'DELETE', path: '/posts/2' } });
    const error = await rejectionOf(syncGraph(pendingOf(users, posts)));
    if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
    // the two owned children go side by side, so either may reach the server first; the parent waits for both
    expect(requestLines(server).slice().sort()).toEqual(['DELETE /posts/1', 'DELETE /posts/2']);
    expect(error.errors.map((each) => each.kind)).toEqual(['http', 'dependency']);
    expect(users.getRemovedRecords()).toEqual([user]);
    await syncGraph(pendingOf(users, posts));
    expect(requestLines(server).slice(2)).toEqual(['DELETE /posts/2', 'DELETE /users/1']);
    expect(rowsOf(server, 'users')).toEqual([]);
  });
});

describe('syncGraph and a replayed create', () => {
  it('edits made after a create that may have been applied are sent after its replay: a syncGraph that resolves has sent them (found by the graph soak, seed 101)', async () => {
    const { User, Post } = models(false, true);
    const user = new User({ name: 'Ann' });
    const post = new Post({ title: 'one' });
    refer(post, 'userId', user);
    // Applied, then no answer; every retry fails before the server: the create stays unconfirmed.
    server.inject({ type: 'reset-after', match: { method: 'POST', path: '/users' } });
    server.inject({ type: 'reset-before', match: { method: 'POST', path: '/users' }, times: FAST_RETRY.limit });
    await rejectionOf(syncGraph({ create: [user, post] }));
    expect(rowsOf(server, 'users')).toHaveLength(1);
    expect(user.phantom).toBe(true);
    user.set('name', 'Ann B');
    await syncGraph({ create: [user, post] });
    expect(rowsOf(server, 'users')).toEqual([expect.objectContaining({ name: 'Ann B' })]);
    expect(user.dirty).toBe(false);
    expect(rowsOf(server, 'posts')).toEqual([expect.objectContaining({ userId: user.getId() })]);
  });
});

describe('syncGraph and a removed record whose create may have been applied', () => {
  it('confirms the create, then destroys it: the row does not stay (found by the graph soak, seed 212)', async () => {
    const { User } = models(false, true);
    const users = new Store({ model: User, pageSize: 0 });
    const [user] = users.add({ name: 'Ann' });
    if (!user) throw new Error('not added');
    server.inject({ type: 'reset-after', match: { method: 'POST', path: '/users' } });
    server.inject({ type: 'reset-before', match: { method: 'POST', path: '/users' }, times: FAST_RETRY.limit });
    await rejectionOf(syncGraph(pendingOf(users)));
    expect(rowsOf(server, 'users')).toHaveLength(1);
    users.remove(user);
    await syncGraph(pendingOf(users));
    expect(rowsOf(server, 'users')).toEqual([]);
    expect(user.erased).toBe(true);
  });
});

describe('syncGraph: bad input', () => {
  it('is a TypeError that says what it expects, before any request', async () => {
    const { User } = models();
    const message = 'syncGraph: expected { create?, update?, destroy? } arrays of records';
    for (const bad of [null, 'users', { create: new Set([new User({ name: 'a' })]) }, { create: [{ name: 'a' }] }, { destroy: [undefined] }]) {
      // @ts-expect-error: what a caller without types may pass
      await expect(syncGraph(bad)).rejects.toThrow(new TypeError(message));
    }
    expect(server.requests).toEqual([]);
  });
});

describe('a cycle among owned records being destroyed', () => {
  it('is refused with kind config naming it, before any request', async () => {
    const { User } = models();
    server.db['users']?.push({ id: 1, name: 'Ann' }, { id: 2, name: 'Bo' });
    const users = new Store({ model: User, pageSize: 0 });
    await users.load();
    const [ann, bo] = [users.getById(1), users.getById(2)];
    if (!ann || !bo) throw new Error('not loaded');
    ownedBy(ann, [bo]);
    ownedBy(bo, [ann]);
    users.remove([ann, bo]);
    server.reset();
    const error = await rejectionOf(syncGraph(pendingOf(users)));
    if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
    expect(server.requests).toEqual([]);
    expect(error.errors[0]?.kind).toBe('config');
    expect(error.errors[0]?.message).toMatch(/a cycle of owned records destroyed: users-\d+ -> users-\d+ -> users-\d+/);
    expect(users.getRemovedRecords()).toEqual([ann, bo]);
  });
});
