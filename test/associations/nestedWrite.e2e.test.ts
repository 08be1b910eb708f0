/**
 * Nested write (API.md 9.3) against the test server's Rails conventions with
 * accepts_nested_attributes_for: a user's new and changed posts travel in its body as
 * `posts_attributes`, commit with it all or nothing, and are not sent again by their own store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../src/presets.js';
import { JsonWriter, length, Model, ProxyError, Store, type RecordLike } from '../../src/index.js';
import { belongsTo, hasMany, hasOne, Session, type Accessor } from '../../src/associations.js';
import { startTestServer, type TestServer } from '../server/index.js';

class Author extends Model.define({ entityName: 'User', fields: { id: 'int', name: 'string' }, proxy: { type: 'rest', url: '/users', preset: 'rails' } }) {
  static associations = { posts: hasMany(() => Article, { foreignKey: 'user_id', inverse: 'user', owned: true, nested: { write: true } }) };
  declare posts: Accessor<typeof Author.associations.posts>;
}

class Article extends Model.define({ entityName: 'Post', fields: { id: 'int', title: 'string', user_id: 'int' }, validators: { title: length({ max: 20 }) }, proxy: { type: 'rest', url: '/posts', preset: 'rails' } }) {
  static associations = { user: belongsTo(() => Author, { foreignKey: 'user_id', inverse: 'posts' }) };
  declare getUser: Accessor<typeof Article.associations.user>;
}

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({
    conventions: 'rails',
    resources: { users: [{ id: 1, name: 'Ann' }], posts: [{ id: 1, title: 'one', user_id: 1 }, { id: 2, title: 'two', user_id: 1 }, { id: 3, title: 'three', user_id: 1 }] },
    required: { posts: ['title'] },
    fields: { users: ['name'], posts: ['title', 'user_id'] },
    nested: { users: { posts: { foreignKey: 'user_id' } } },
  });
  Author.setProxy({ type: 'rest', url: `${server.url}/users`, preset: 'rails' });
  Article.setProxy({ type: 'rest', url: `${server.url}/posts`, preset: 'rails' });
});

afterEach(async () => {
  await server.close();
});

function writes(): { method: string; path: string; json: unknown }[] {
  return server.requests.filter((request) => request.method !== 'GET').map(({ method, path, json }) => ({ method, path, json }));
}

async function loaded(session: Session): Promise<Author> {
  const users = new Store({ model: Author, session, pageSize: 0 });
  await users.load();
  const ann = users.getById(1);
  if (ann === undefined) throw new Error('user 1 missing');
  await ann.posts().load();
  return ann;
}

describe('nested write with Rails accepts_nested_attributes_for', () => {
  it('a new user with two new posts goes in one POST with posts_attributes; the posts get their ids and key', async () => {
    const session = new Session();
    const users = new Store({ model: Author, session, pageSize: 0 });
    const posts = new Store({ model: Article, session, pageSize: 0 });
    const [zed] = users.add({ name: 'Zed' });
    if (zed === undefined) throw new Error('no record');
    const [a, b] = zed.posts().add([{ title: 'a' }, { title: 'b' }]);
    posts.add([a, b].filter((post) => post !== undefined));
    await Promise.all([users.sync(), posts.sync()]);
    expect(writes()).toEqual([{ method: 'POST', path: '/users', json: { user: { name: 'Zed', posts_attributes: [{ title: 'a' }, { title: 'b' }] } } }]);
    expect(zed.getId()).toBe(2);
    expect([a?.getId(), b?.getId()]).toEqual([4, 5]);
    expect([a?.get('user_id'), b?.get('user_id'), a?.phantom, b?.dirty]).toEqual([2, 2, false, false]);
    expect(a?.getUser()).toBe(zed);
    expect(zed.posts().getRange()).toEqual([a, b]);
    expect((server.db.posts ?? []).filter((row) => row.user_id === 2)).toHaveLength(2);
    await posts.sync();
    expect(writes()).toHaveLength(1); // nothing sent twice
  });

  it('an update edits one post, adds one and destroys one in one PUT; the store of posts sends nothing', async () => {
    const session = new Session();
    const ann = await loaded(session);
    const list = ann.posts();
    const [one, two] = [list.getById(1), list.getById(2)];
    if (one === undefined || two === undefined) throw new Error('posts missing');
    one.set('title', 'one!');
    const [fresh] = list.add({ title: 'four' });
    list.remove(two);
    server.reset();
    server.inject({ type: 'delay', ms: 100, match: { method: 'PUT' } });
    const saving = ann.save();
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // Carried by the user's write in flight: they show as saving, and their own saves wait for it (nothing sent twice).
    expect([one.saving, fresh?.saving]).toEqual([true, true]);
    await Promise.all([saving, one.save(), list.sync()]);
    expect(writes()).toEqual([{
      method: 'PUT', path: '/users/1',
      json: { user: { id: 1, name: 'Ann', posts_attributes: [{ id: 1, title: 'one!' }, { title: 'four' }, { id: 2, _destroy: true }] } },
    }]);
    expect(fresh?.getId()).toBe(4);
    expect([one.dirty, fresh?.phantom, two.erased]).toEqual([false, false, true]);
    expect(list.getRange().map((post) => post.getId())).toEqual([1, 3, 4]);
    expect((server.db.posts ?? []).map((row) => [row.id, row.title])).toEqual([[1, 'one!'], [3, 'three'], [4, 'four']]);
  });

  it("a clean user whose posts changed goes with its own store's sync(): one PUT carries them (API.md 9.3)", async () => {
    const session = new Session();
    const users = new Store({ model: Author, session, pageSize: 0 });
    await users.load();
    const ann = users.getById(1);
    if (ann === undefined) throw new Error('user 1 missing');
    const list = ann.posts();
    await list.load();
    const [one, two] = [list.getById(1), list.getById(2)];
    if (one === undefined || two === undefined) throw new Error('posts missing');
    one.set('title', 'one!');
    const [fresh] = list.add({ title: 'four' });
    list.remove(two);
    expect(ann.dirty).toBe(false);
    const heard: number[] = [];
    users.on('beforesync', ({ update }) => void heard.push(update.length));
    server.reset();
    await users.sync();
    expect(writes()).toEqual([{
      method: 'PUT', path: '/users/1',
      json: { user: { id: 1, name: 'Ann', posts_attributes: [{ id: 1, title: 'one!' }, { title: 'four' }, { id: 2, _destroy: true }] } },
    }]);
    expect(heard).toEqual([1]);
    expect([one.dirty, fresh?.phantom, fresh?.getId(), two.erased, ann.dirty]).toEqual([false, false, 4, true, false]);
    expect((server.db.posts ?? []).map((row) => [row.id, row.title])).toEqual([[1, 'one!'], [3, 'three'], [4, 'four']]);
    // Nothing is left to send, by either store.
    await Promise.all([users.sync(), list.sync()]);
    expect(writes()).toHaveLength(1);
  });

  it('a blank child is a 422: nothing commits, the child gets the error, everything stays pending', async () => {
    const session = new Session();
    const ann = await loaded(session);
    const list = ann.posts();
    const one = list.getById(1);
    if (one === undefined) throw new Error('post missing');
    one.set('title', 'changed');
    ann.set('name', 'Annie');
    const [blank] = list.add({ title: ' ' });
    const error: unknown = await ann.save().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProxyError);
    expect(error instanceof ProxyError && error.kind).toBe('validation');
    expect(blank?.errors).toEqual({ title: ["can't be blank"] });
    expect([ann.dirty, one.dirty, blank?.phantom]).toEqual([true, true, true]);
    expect(one.get('title')).toBe('changed');
    expect(server.db.posts).toHaveLength(3);
    // Fixed, the next save sends them all.
    blank?.set('title', 'now');
    await ann.save();
    expect([ann.dirty, one.dirty, blank?.phantom, blank?.getId()]).toEqual([false, false, false, 4]);
  });

  it.each([false, true])('an answer with fewer children than were sent commits nothing and fails with kind server (idempotencyKey %s)', async (idempotencyKey) => {
    Author.setProxy({ type: 'rest', url: `${server.url}/users`, preset: 'rails', idempotencyKey });
    const session = new Session();
    const users = new Store({ model: Author, session, pageSize: 0 });
    const [zed] = users.add({ name: 'Zed' });
    if (zed === undefined) throw new Error('no record');
    const [a, b] = zed.posts().add([{ title: 'a' }, { title: 'b' }]);
    server.respond('POST', '/users', { status: 201, body: { id: 9, name: 'Zed', posts: [{ id: 70, title: 'a', user_id: 9 }] } }, { times: 1 });
    const error: unknown = await zed.save().catch((caught: unknown) => caught);
    expect(error instanceof ProxyError && error.kind).toBe('server');
    expect([zed.phantom, a?.phantom, b?.phantom, zed.getId(), a?.getId()]).toEqual([true, true, true, undefined, undefined]);
    expect(a?.get('user_id')).toBeUndefined();
    // The next save (the server answering as it should) commits them all, each once.
    await zed.save();
    expect([zed.phantom, a?.phantom, b?.phantom, a?.dirty, b?.get('user_id')]).toEqual([false, false, false, false, zed.getId()]);
    expect(zed.posts().getRange().map((post) => post.get('title'))).toEqual(['a', 'b']);
    expect((server.db.posts ?? []).filter((row) => row.user_id === zed.getId())).toHaveLength(2);
  });

  it('without the rails preset, children go under the association key; a hostile shape commits nothing', async () => {
    Author.setProxy({ type: 'rest', url: `${server.url}/users` });
    const session = new Session();
    const users = new Store({ model: Author, session, pageSize: 0 });
    const [zed] = users.add({ name: 'Zed' });
    if (zed === undefined) throw new Error('no record');
    const [a] = zed.posts().add({ title: 'a' });
    server.respond('POST', '/users', { status: 201, body: { id: 9, name: 'Zed', posts: 'not a list' } }, { times: 1 });
    const error: unknown = await zed.save().catch((caught: unknown) => caught);
    expect(error instanceof ProxyError && error.kind).toBe('server');
    expect(server.requests[0]?.json).toEqual({ name: 'Zed', posts: [{ title: 'a' }] });
    expect([zed.phantom, a?.phantom]).toEqual([true, true]);
    // An id JSON cannot hold exactly is no id.
    server.respond('POST', '/users', { status: 201, body: '{"id":9,"name":"Zed","posts":[{"id":1152921504606846977,"title":"a"}]}' }, { times: 1 });
    expect(await zed.save().then(() => 'saved', (caught: unknown) => caught instanceof ProxyError && caught.kind)).toBe('server');
    expect([zed.phantom, a?.phantom]).toEqual([true, true]);
    server.respond('POST', '/users', { status: 201, body: { id: 9, name: 'Zed', posts: [{ id: 70, title: 'a' }] } }, { times: 1 });
    await zed.save();
    // The child's key comes from the answer's owner.
    expect([a?.getId(), a?.get('user_id'), a?.dirty]).toEqual([70, 9, false]);
  });

  it('matches the answer by the target\'s clientIdProperty, in any order; index errors reach that child only', async () => {
    Article.clientIdProperty = 'cid';
    try {
      const session = new Session();
      const ann = await loaded(session);
      const [x, y] = ann.posts().add([{ title: 'x' }, { title: 'y' }]);
      if (x === undefined || y === undefined) throw new Error('no records');
      server.reset();
      server.respond('PUT', '/users/1', { status: 422, body: { 'posts[1].title': ['is too short'] } }, { times: 1 });
      await ann.save().catch(() => undefined);
      expect([x.errors, y.errors]).toEqual([{}, { title: ['is too short'] }]);
      server.respond('PUT', '/users/1', (request) => {
        const sentPosts: unknown = Reflect.get(Reflect.get(Object(request.json), 'user') ?? {}, 'posts_attributes');
        const cids = Array.isArray(sentPosts) ? sentPosts.map((post: unknown) => Reflect.get(Object(post), 'cid')) : [];
        return { status: 200, body: { id: 1, name: 'Ann', posts: [{ id: 1, title: 'one', user_id: 1 }, { id: 81, title: 'y', user_id: 1, cid: cids[1] }, { id: 80, title: 'x', user_id: 1, cid: cids[0] }] } };
      }, { times: 1 });
      await ann.save();
      expect(server.requests.at(-1)?.json).toEqual({ user: { id: 1, name: 'Ann', posts_attributes: [{ title: 'x', cid: x.clientId }, { title: 'y', cid: y.clientId }] } });
      expect([x.getId(), y.getId(), x.phantom, y.dirty]).toEqual([80, 81, false, false]);
      expect(Object.keys(x.getData())).not.toContain('cid');
    } finally {
      Article.clientIdProperty = undefined;
    }
  });

  it('a child that fails its own validators: nothing is sent, the child has the errors, the owner the nested key', async () => {
    const session = new Session();
    const ann = await loaded(session);
    const [long] = ann.posts().add({ title: 'x'.repeat(30) });
    server.reset();
    const error: unknown = await ann.save().catch((caught: unknown) => caught);
    expect(error instanceof ProxyError && [error.kind, error.mayHaveBeenApplied]).toEqual(['validation', false]);
    expect(writes()).toEqual([]);
    expect(Object.keys(long?.errors ?? {})).toEqual(['title']);
    expect(Object.keys(ann.errors)).toEqual(['posts.title']);
    expect([long?.phantom, long?.saving]).toEqual([true, false]);
    long?.set('title', 'short');
    await ann.save();
    expect(long?.getId()).toBe(4);
  });

  it('a hasOne goes as one object (profile_attributes: {...}) and comes back as one', async () => {
    class Bio extends Model.define({ entityName: 'Profile', fields: { id: 'int', bio: 'string', user_id: 'int' }, proxy: { type: 'rest', url: `${server.url}/profiles`, preset: 'rails' } }) {}
    class Member extends Model.define({ entityName: 'User', fields: { id: 'int', name: 'string' }, proxy: { type: 'rest', url: `${server.url}/users`, preset: 'rails' } }) {
      static associations = { profile: hasOne(() => Bio, { foreignKey: 'user_id', nested: { write: true } }) };
      declare setProfile: Accessor<typeof Member.associations.profile, 'set'>;
    }
    const session = new Session();
    const users = new Store({ model: Member, session, pageSize: 0 });
    const kim = new Member({ name: 'Kim' });
    users.add(kim);
    const bio = new Bio({ bio: 'hello' });
    kim.setProfile(bio);
    server.respond('POST', '/users', { status: 201, body: { id: 12, name: 'Kim', profile: { id: 5, bio: 'hello', user_id: 12 } } }, { times: 1 });
    await users.sync();
    expect(server.requests.at(-1)?.json).toEqual({ user: { name: 'Kim', profile_attributes: { bio: 'hello' } } });
    expect([bio.getId(), bio.get('user_id'), bio.dirty]).toEqual([5, 12, false]);
  });
});

describe('nested write through the core\'s hook (no patch of the writer or the record)', () => {
  /** A writer of an app's own: it makes the body itself and never calls super.getRecordData. */
  class PlainWriter extends JsonWriter {
    override getRecordData(record: RecordLike): Record<string, unknown> {
      const { id: _id, ...rest } = record.getData();
      return rest;
    }
  }

  it('a custom writer that overrides getRecordData without calling super still carries the children, written by it', async () => {
    Author.setProxy({ type: 'rest', url: `${server.url}/users`, preset: 'rails', writer: new PlainWriter({ rootProperty: 'user' }) });
    const session = new Session();
    const ann = await loaded(session);
    const [fresh] = ann.posts().add({ title: 'four' });
    ann.set('name', 'Annie');
    server.reset();
    await ann.save();
    expect(writes()).toEqual([{ method: 'PUT', path: '/users/1', json: { user: { name: 'Annie', posts_attributes: [{ title: 'four' }] } } }]);
    expect([fresh?.getId(), fresh?.get('user_id'), fresh?.phantom, ann.dirty]).toEqual([4, 1, false, false]);
  });
});
