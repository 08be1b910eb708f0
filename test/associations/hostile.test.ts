/**
 * Hostile input to the associations, against the test server on 127.0.0.1: ids that would step
 * out of a url template, `__proto__` and wrong shapes in nested answers, records of two sessions
 * linked through each accessor, bad declarations, cycles among new records.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Model, ProxyError, Store } from '../../src/index.js';
import { belongsTo, hasMany, Session, type Accessor } from '../../src/associations.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { Group, Member, Post, serve, serveGroups, User } from './models.js';

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer({
    resources: { users: [{ id: 42, name: 'Ann' }, { id: 7, name: 'Bob' }], posts: [{ id: 1, title: 'one', userId: 42 }], comments: [], profiles: [], members: [{ id: 1, name: 'm' }], groups: [{ id: 1, title: 'g' }], memberships: [], cats: [] },
  });
  serve(server.url);
  serveGroups(server.url);
});
afterEach(async () => {
  await server.close();
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => undefined, (error: unknown) => error);
}

describe('hostile ids in an association url template', () => {
  it('are one encoded path segment, and "." / ".." / "%2e%2e" are refused before any request', async () => {
    class Nested extends Model.define({ entityName: 'HNested', fields: { id: 'int', userId: 'string' }, proxy: { type: 'rest', url: `${server.url}/users/{userId}/posts` } }) {}
    class Owner extends Model.define({ entityName: 'HOwner', fields: { id: 'string' }, proxy: { type: 'rest', url: `${server.url}/users` } }) {
      static associations = { posts: hasMany(() => Nested, { foreignKey: 'userId' }) };
      declare posts: Accessor<typeof Owner.associations.posts>;
    }
    const owner = (id: string) => {
      const record = new Owner({ id });
      record.commit();
      return record;
    };
    for (const [id, path] of [['../admin', '/users/..%2Fadmin/posts'], ['a/b', '/users/a%2Fb/posts'], ['?x=1', '/users/%3Fx%3D1/posts']] as const) {
      await rejection(owner(id).posts().load());
      expect(server.requests.at(-1)?.path).toBe(path);
    }
    const before = server.requests.length;
    for (const id of ['..', '.', '%2e%2e']) expect(await rejection(owner(id).posts().load())).toMatchObject({ kind: 'config' });
    expect(server.requests.length).toBe(before);
  });
});

describe('hostile nested answers', () => {
  it('"__proto__" in nested data fails with kind parse and applies nothing; prototypes stay clean', async () => {
    const session = new Session();
    const bob = await User.load(7, { session });
    server.respond('GET', '/users/7', { status: 200, body: JSON.parse('{"id":7,"name":"Eve","posts":[{"id":9,"title":"t","__proto__":{"polluted":1}}]}') });
    const error = await rejection(User.load(7, { session }));
    expect(error).toBeInstanceOf(ProxyError);
    expect(error).toMatchObject({ kind: 'parse', message: expect.stringContaining('__proto__') });
    expect(bob.get('name')).toBe('Bob');
    expect(session.get(Post, 9)).toBeUndefined();
    expect(Reflect.get({}, 'polluted')).toBeUndefined();
  });

  it('a to-many given an object, a to-one given an array, or children not objects fail with kind parse naming the key', async () => {
    const session = new Session();
    for (const [body, key] of [[{ id: 7, posts: { id: 9 } }, 'posts'], [{ id: 7, posts: [1, 2] }, 'posts'], [{ id: 7, profile: [{ id: 1 }] }, 'profile'], [{ id: 7, posts: [{ id: 9, user: [{ id: 7 }] }] }, 'posts.user']] as const) {
      server.respond('GET', '/users/7', { status: 200, body }, { times: 1 });
      expect(await rejection(User.load(7, { session }))).toMatchObject({ kind: 'parse', message: expect.stringContaining(key) });
      expect(session.get(Post, 9)).toBeUndefined();
    }
  });
});

describe('records of two sessions', () => {
  it('are never linked, through setX, add, link or a store: a TypeError, and nothing changes', async () => {
    const a = new Session();
    const b = new Session();
    const ann = await User.load(42, { session: a });
    const post = await Post.load(1, { session: b });
    expect(() => post.setUser(ann)).toThrow(/another session/);
    expect(() => ann.posts().add(post)).toThrow(/another session/);
    const member = await Member.load(1, { session: a });
    const group = await Group.load(1, { session: b });
    expect(() => member.groups().link(group)).toThrow(/another session/);
    expect(() => new Store({ model: Post, session: a }).add(post)).toThrow(/another session/);
    expect(post.dirty).toBe(false);
    expect(ann.posts().getCount()).toBe(0);
    expect(member.groups().getCount()).toBe(0);
  });

  it('an add refused for one record leaves the others of the call out of the session', async () => {
    const a = new Session();
    const ann = await User.load(42, { session: a });
    const foreign = await Post.load(1, { session: new Session() });
    const fresh = new Post({ title: 'x' });
    expect(() => ann.posts().add([fresh, foreign])).toThrow(/another session/);
    // It joined session a before: a session.sync() would have created it, unasked.
    expect(fresh.session).toBeUndefined();
    expect(a.records(Post)).not.toContain(fresh);
    const twin = new Post({ id: 42, title: 'twin' });
    const held = await Post.load(1, { session: a });
    const alsoTwin = new Post({ id: 1, title: 'second post 1' });
    expect(() => ann.posts().add([twin, alsoTwin])).toThrow(/holds another Post/);
    expect(twin.session).toBeUndefined();
    expect(held.get('title')).toBe('one');
  });
});

describe('bad declarations and cycles', () => {
  it('an association named "__proto__" or "constructor" is a TypeError naming it, at the first use, and again at the next', () => {
    for (const name of ['__proto__', 'constructor']) {
      class Child extends Model.define({ entityName: `HChild${name}`, fields: { id: 'int', ownerId: 'int' }, proxy: { type: 'rest', url: '/c' } }) {}
      const associations: Record<string, unknown> = {};
      Object.defineProperty(associations, name, { value: hasMany(() => Child, { foreignKey: 'ownerId' }), enumerable: true });
      class Owner extends Model.define({ entityName: `HOwner${name}`, fields: { id: 'int' }, proxy: { type: 'rest', url: '/o' } }) {
        static associations = associations;
      }
      for (let i = 0; i < 2; i++) expect(() => new Owner({ id: 1 })).toThrow(new TypeError(`HOwner${name}.${name}: its accessor ${name} would hide a member of the record`));
    }
  });


  it('two associations naming one inverse, or an inverse over another key, are TypeErrors naming both; the next use throws again', () => {
    class K extends Model.define({ entityName: 'HK', fields: { id: 'int', oId: 'int' }, proxy: { type: 'rest', url: '/k' } }) {
      static associations = { o: belongsTo(() => O, { foreignKey: 'oId' }) };
    }
    class O extends Model.define({ entityName: 'HO', fields: { id: 'int' }, proxy: { type: 'rest', url: '/o' } }) {
      static associations = { ks: hasMany(() => K, { foreignKey: 'oId', inverse: 'o' }), again: hasMany(() => K, { foreignKey: 'oId', inverse: 'o' }) };
    }
    class L extends Model.define({ entityName: 'HL', fields: { id: 'int', oId: 'int', pId: 'int' }, proxy: { type: 'rest', url: '/l' } }) {
      static associations = { p: belongsTo(() => P, { foreignKey: 'pId', inverse: 'ls' }) };
    }
    class P extends Model.define({ entityName: 'HP', fields: { id: 'int' }, proxy: { type: 'rest', url: '/p' } }) {
      static associations = { ls: hasMany(() => L, { foreignKey: 'oId' }) };
    }
    for (let i = 0; i < 2; i++) expect(() => new O({})).toThrow(new TypeError('HO.ks and HO.again both name HK.o as their inverse'));
    expect(() => new Store({ model: L })).toThrow(new TypeError('HL.p and its inverse HP.ls are over different keys (pId, oId)'));
  });

  it('a record whose key points at itself is refused with kind config before any request, by save() and by sync()', async () => {
    class Cat extends Model.define({ entityName: 'HCat', fields: { id: 'int', parentId: 'int' }, proxy: { type: 'rest', url: `${server.url}/cats` } }) {
      static associations = { parent: belongsTo(() => Cat, { foreignKey: 'parentId' }) };
      declare setParent: Accessor<typeof Cat.associations.parent, 'set'>;
    }
    const store = new Store({ model: Cat, session: new Session() });
    const [cat] = store.add({});
    if (cat === undefined) throw new Error('no record');
    cat.setParent(cat);
    const before = server.requests.length;
    expect(await rejection(cat.save())).toMatchObject({ kind: 'config', message: expect.stringContaining(`${cat.clientId} -> ${cat.clientId}`) });
    expect(await rejection(store.sync())).toMatchObject({ name: 'BatchError' });
    expect(server.requests.length).toBe(before);
    expect(cat.phantom).toBe(true);
  });
});

describe('nested write answers', () => {
  class Writer extends Model.define({ entityName: 'HWriter', fields: { id: 'int', name: 'string' }, proxy: { type: 'rest', url: '/users' } }) {
    static associations = { posts: hasMany(() => Piece, { foreignKey: 'userId', owned: true, nested: { write: true } }) };
    declare posts: Accessor<typeof Writer.associations.posts>;
  }
  class Piece extends Model.define({ entityName: 'HPiece', fields: { id: 'int', title: 'string', userId: 'int' }, proxy: { type: 'rest', url: '/posts' } }) {}

  it('"__proto__" in a child of the answer commits nothing: neither the parent nor the children it carried', async () => {
    Writer.setProxy({ type: 'rest', url: `${server.url}/users` });
    Piece.setProxy({ type: 'rest', url: `${server.url}/posts` });
    const users = new Store({ model: Writer, session: new Session(), pageSize: 0 });
    const [zed] = users.add({ name: 'Zed' });
    if (zed === undefined) throw new Error('no record');
    const [a, b] = zed.posts().add([{ title: 'a' }, { title: 'b' }]);
    server.respond('POST', '/users', { status: 201, body: JSON.parse('{"id":5,"name":"Zed","posts":[{"id":7,"title":"a","__proto__":{"p":1}},{"id":8,"title":"b"}]}') }, { times: 1 });
    const error = await rejection(users.sync());
    expect(error).toMatchObject({ name: 'BatchError', message: expect.stringContaining('__proto__') });
    expect([zed.phantom, a?.phantom, b?.phantom, a?.getId(), b?.getId()]).toEqual([true, true, true, undefined, undefined]);
    expect(zed.posts().getCount()).toBe(2);
  });
});
