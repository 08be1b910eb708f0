/**
 * The three parts of the associations working together (API.md 9.3), with the real declarations
 * (hasMany, belongsTo, Session) and no stand-in, against the test server: a user -> post ->
 * comment graph of new records in three stores, saved by one `session.sync()`, by a child's
 * save(), a failure of the parent's create, a cycle, and owned children destroyed first.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Model, Store } from '../../src/index.js';
import { belongsTo, hasMany, Session, type Accessor } from '../../src/associations.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { expectLinked, expectNoClientIds } from './graphChecks.js';
import { FAST_RETRY, proxyErrorOf, rejectionOf, requestLines, rowsOf } from '../resilience/helpers.js';

class User extends Model.define({ entityName: 'users', fields: { id: 'int', name: 'string', favouriteId: 'int' }, proxy: { type: 'rest', url: '/users' } }) {
  static associations = {
    posts: hasMany(() => Post, { foreignKey: 'userId', inverse: 'user' }),
    favourite: belongsTo(() => Post, { foreignKey: 'favouriteId' }),
  };
  declare posts: Accessor<typeof User.associations.posts>;
  declare setFavourite: Accessor<typeof User.associations.favourite, 'set'>;
}

class Post extends Model.define({ entityName: 'posts', fields: { id: 'int', title: 'string', userId: 'int' }, proxy: { type: 'rest', url: '/posts' } }) {
  static associations = {
    user: belongsTo(() => User, { foreignKey: 'userId', inverse: 'posts' }),
    comments: hasMany(() => Comment, { foreignKey: 'postId', inverse: 'post', owned: true }),
  };
  declare getUser: Accessor<typeof Post.associations.user>;
  declare setUser: Accessor<typeof Post.associations.user, 'set'>;
  declare comments: Accessor<typeof Post.associations.comments>;
}

class Comment extends Model.define({ entityName: 'comments', fields: { id: 'int', text: 'string', postId: 'int' }, proxy: { type: 'rest', url: '/comments' } }) {
  static associations = { post: belongsTo(() => Post, { foreignKey: 'postId', inverse: 'comments' }) };
  declare getPost: Accessor<typeof Comment.associations.post>;
  declare setPost: Accessor<typeof Comment.associations.post, 'set'>;
}

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { users: [], posts: [], comments: [] } });
});

afterEach(async () => {
  await server.close();
});

function serve(batchActions: boolean): void {
  for (const [model, name] of [[User, 'users'], [Post, 'posts'], [Comment, 'comments']] as const) {
    model.setProxy({ type: 'rest', url: `${server.url}/${name}`, batchActions, retry: { ...FAST_RETRY }, timeout: 2_000 });
  }
}

/** Three stores of one session: a new user with two new posts, each with a new comment. */
function graph(batchActions = false) {
  serve(batchActions);
  const session = new Session();
  const users = new Store({ model: User, pageSize: 0, session });
  const posts = new Store({ model: Post, pageSize: 0, session });
  const comments = new Store({ model: Comment, pageSize: 0, session });
  const [user] = users.add({ name: 'Ann' });
  const [p1, p2] = posts.add([{ title: 'one' }, { title: 'two' }]);
  const [c1, c2] = comments.add([{ text: 'first' }, { text: 'second' }]);
  if (!user || !p1 || !p2 || !c1 || !c2) throw new Error('records not added');
  p1.setUser(user);
  p2.setUser(user);
  c1.setPost(p1);
  c2.setPost(p2);
  return { session, users, posts, comments, user, p1, p2, c1, c2 };
}

describe.each([false, true])('session.sync() of a three-level graph in three stores, batchActions %s', (batchActions) => {
  it('creates parents first, fills the keys, sends no client id, and the stores follow', async () => {
    const g = graph(batchActions);
    expect(g.user.posts().getRange()).toEqual([g.p1, g.p2]);
    const syncing = g.session.sync();
    expect([g.users.isSyncing, g.posts.isSyncing, g.comments.isSyncing]).toEqual([true, true, true]);
    const written: string[] = [];
    g.comments.on('write', ({ operation }) => written.push(operation.action));
    const batch = await syncing;
    expect(batch.hasException()).toBe(false);
    expect(requestLines(server)).toEqual(batchActions ? ['POST /users', 'POST /posts', 'POST /comments'] : ['POST /users', 'POST /posts', 'POST /posts', 'POST /comments', 'POST /comments']);
    expectNoClientIds(server);
    expectLinked(server);
    expect(g.p1.get('userId')).toBe(g.user.getId());
    expect(g.c2.get('postId')).toBe(g.p2.getId());
    expect(g.c1.getPost()).toBe(g.p1);
    expect(written).toEqual(batchActions ? ['create'] : ['create', 'create']);
    for (const store of [g.users, g.posts, g.comments]) {
      expect(store.isSyncing).toBe(false);
      expect(store.hasChanges()).toBe(false);
    }
    // Nothing left: the next sync sends nothing.
    const before = server.requests.length;
    await g.session.sync();
    expect(server.requests.length).toBe(before);
  });

  it("the parent's create failing leaves every dependant pending with kind 'dependency'; the next sync completes with no duplicates", async () => {
    const g = graph(batchActions);
    server.inject({ type: 'status', status: 400, body: { message: 'refused' }, match: { method: 'POST', path: '/users' } });
    const error = await rejectionOf(g.session.sync());
    if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
    expect(requestLines(server)).toEqual(['POST /users']);
    const byRecord = new Map(error.batch.exceptions.map((operation) => [operation.records[0], operation.error]));
    const userError = byRecord.get(g.user);
    expect(userError?.kind).toBe('http');
    for (const [post, comment] of [[g.p1, g.c1], [g.p2, g.c2]] as const) {
      expect(byRecord.get(post)?.kind).toBe('dependency');
      expect(byRecord.get(post)?.cause).toBe(userError);
      expect(byRecord.get(comment)?.kind).toBe('dependency');
      expect(byRecord.get(comment)?.cause).toBe(byRecord.get(post));
    }
    for (const record of [g.user, g.p1, g.p2, g.c1, g.c2]) expect(record.phantom).toBe(true);
    expect(g.p1.get('userId')).toBeUndefined();
    expect(g.p1.getUser()).toBe(g.user);
    expect(g.comments.getNewRecords()).toEqual([g.c1, g.c2]);
    expect(g.comments.getSnapshot().error).toBe(error);
    expect(g.users.isSyncing).toBe(false);

    await g.session.sync();
    expectLinked(server);
    expectNoClientIds(server);
    expect(g.comments.getSnapshot().error).toBeUndefined();
  });
});

it("child.save() of a child of a phantom parent saves the parents first, at any depth", async () => {
  const g = graph();
  await g.c1.save();
  expect(requestLines(server)).toEqual(['POST /users', 'POST /posts', 'POST /comments']);
  expectNoClientIds(server);
  expect(rowsOf(server, 'comments')[0]?.['postId']).toBe(g.p1.getId());
  expect(rowsOf(server, 'posts')[0]?.['userId']).toBe(g.user.getId());
  // The rest goes with the session's sync, nothing twice.
  await g.session.sync();
  expectLinked(server);
});

it("a cycle of references among new records fails with kind 'config' before any request", async () => {
  const g = graph();
  g.user.setFavourite(g.p1); // user -> p1 -> user
  const error = await rejectionOf(g.session.sync());
  if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
  expect(server.requests).toEqual([]);
  expect(error.errors[0]?.kind).toBe('config');
  expect(error.errors[0]?.message).toContain('a cycle of keys among new records');
  expect(error.errors[0]?.message).toContain(g.user.clientId);
  expect((await proxyErrorOf(g.c1.save())).kind).toBe('config');
  expect(server.requests).toEqual([]);
  for (const record of [g.user, g.p1, g.p2, g.c1, g.c2]) expect(record.phantom).toBe(true);
});

describe.each([false, true])('owned children, batchActions %s', (batchActions) => {
  it('are destroyed before their parent by session.sync(); the removed lists settle', async () => {
    serve(batchActions);
    server.db['users']?.push({ id: 1, name: 'Ann' });
    server.db['posts']?.push({ id: 1, title: 'one', userId: 1 }, { id: 2, title: 'two', userId: 1 });
    server.db['comments']?.push({ id: 1, text: 'a', postId: 1 }, { id: 2, text: 'b', postId: 1 }, { id: 3, text: 'c', postId: 2 });
    const session = new Session();
    const posts = new Store({ model: Post, pageSize: 0, session });
    const comments = new Store({ model: Comment, pageSize: 0, session });
    await Promise.all([posts.load(), comments.load()]);
    const post = posts.getById(1);
    if (!post) throw new Error('not loaded');
    // The parent is removed first; its comments are removed through the owned association and from their store.
    posts.remove(post);
    const [a, b] = post.comments().getRange();
    if (!a || !b) throw new Error('no comments');
    post.comments().remove(a);
    comments.remove(b);
    server.reset();
    await session.sync();
    const lines = requestLines(server);
    expect(lines.at(-1)).toBe('DELETE /posts/1');
    expect(lines.slice(0, -1).sort()).toEqual(batchActions ? ['DELETE /comments'] : ['DELETE /comments/1', 'DELETE /comments/2']);
    expect(rowsOf(server, 'comments').map((row) => row['id'])).toEqual([3]);
    expect(rowsOf(server, 'posts').map((row) => row['id'])).toEqual([2]);
    expect(posts.getRemovedRecords()).toEqual([]);
    expect(comments.getRemovedRecords()).toEqual([]);
    expect(post.comments().getRemovedRecords()).toEqual([]);
  });
});

describe('what session.sync() sends', () => {
  it('an edited record no store lists (Model.load), and not a new record removed from its store', async () => {
    serve(false);
    server.db['users']?.push({ id: 1, name: 'Ann' });
    const session = new Session();
    const ann = await User.load(1, { session });
    ann.set('name', 'Anna');
    const users = new Store({ model: User, pageSize: 0, session });
    const [dropped] = users.add({ name: 'Dropped' });
    if (!dropped) throw new Error('not added');
    users.remove(dropped);
    server.reset();
    await session.sync();
    expect(requestLines(server)).toEqual(['PUT /users/1']);
    expect(rowsOf(server, 'users').map((row) => row['name'])).toEqual(['Anna']);
    expect(ann.dirty).toBe(false);
  });
});
