/**
 * Associations end to end against real servers on 127.0.0.1: the REAL json-server 0.17 (a user's
 * posts by the url template /users/{userId}/posts and by ?userId=, a new user and its new posts
 * created with their keys) and the test server's Django REST framework conventions (a posts
 * resource filtered by user). No client id ever reaches the wire.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import '../../src/presets.js';
import { Model, Store, type RequestHookContext } from '../../src/index.js';
import { belongsTo, hasMany, Session, type Accessor } from '../../src/associations.js';
import { startJsonServer, type JsonServer } from '../server/jsonServer.js';
import { startTestServer, type TestServer } from '../server/index.js';

class Writer extends Model.define({ entityName: 'Writer', fields: { id: 'int', name: 'string' } }) {
  static associations = { posts: hasMany(() => Note, { foreignKey: 'userId', inverse: 'user' }) };
  declare posts: Accessor<typeof Writer.associations.posts>;
}

class Note extends Model.define({ entityName: 'Note', fields: { id: 'int', title: 'string', userId: 'int' } }) {
  static associations = { user: belongsTo(() => Writer, { foreignKey: 'userId', inverse: 'posts' }) };
  declare getUser: Accessor<typeof Note.associations.user>;
}

/** The bodies and urls of the writes sent, seen through the proxies' onRequest hook. */
let sent: { method: string; path: string; body: unknown }[] = [];
function hear({ init, url }: RequestHookContext): void {
  if (init.method === undefined || init.method === 'GET') return;
  sent.push({ method: init.method, path: new URL(url).pathname, body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined });
}

function point(base: string, preset: string, posts: string): void {
  Writer.setProxy({ type: 'rest', url: `${base}/users`, preset, onRequest: hear });
  Note.setProxy({ type: 'rest', url: `${base}${posts}`, preset, onRequest: hear });
}

/** A new user and two new posts of it, in stores of one session. */
function graph(session: Session): { users: Store<Writer>; posts: Store<Note>; user: Writer; notes: Note[] } {
  const users = new Store({ model: Writer, session, pageSize: 0 });
  const posts = new Store({ model: Note, session, pageSize: 0 });
  const [user] = users.add({ name: 'Zed' });
  if (user === undefined) throw new Error('no record');
  const notes = user.posts().add([{ title: 'a' }, { title: 'b' }]);
  posts.add(notes);
  return { users, posts, user, notes };
}

describe('json-server 0.17 (real)', () => {
  let server: JsonServer;
  beforeAll(async () => {
    server = await startJsonServer({ users: [{ id: 42, name: 'Ann' }], posts: [{ id: 1, title: 'one', userId: 42 }, { id: 2, title: 'two', userId: 42 }, { id: 3, title: 'x', userId: 7 }] });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    sent = [];
  });

  for (const [how, path] of [['the url template /users/{userId}/posts', '/users/{userId}/posts'], ['the filter ?userId=', '/posts']] as const) {
    it(`a new user and its new posts are created with their keys, then read back by ${how}`, async () => {
      point(server.url, 'json-server', path);
      const { users, posts, user, notes } = graph(new Session());
      expect(notes.map((note) => note.get('userId'))).toEqual([undefined, undefined]);
      await users.sync();
      await posts.sync();
      const id = user.getId();
      expect(typeof id).toBe('number');
      expect(notes.map((note) => [note.phantom, note.get('userId'), note.getUser()])).toEqual([[false, id, user], [false, id, user]]);
      const postPath = path === '/posts' ? '/posts' : `/users/${String(id)}/posts`;
      expect(sent).toEqual([
        { method: 'POST', path: '/users', body: { name: 'Zed' } },
        { method: 'POST', path: postPath, body: { title: 'a', userId: id } },
        { method: 'POST', path: postPath, body: { title: 'b', userId: id } },
      ]);
      // Read back in another session, by the same association.
      const again = await Writer.load(id, { session: new Session() });
      const read = await again.posts().load();
      expect(read.map((note) => [note.get('title'), note.get('userId')])).toEqual([['a', id], ['b', id]]);
      const ann = await Writer.load(42, { session: new Session() });
      expect((await ann.posts().load()).map((note) => note.getId())).toEqual([1, 2]);
    });
  }
});

describe('Django REST framework conventions (test server)', () => {
  let server: TestServer;
  beforeEach(async () => {
    sent = [];
    server = await startTestServer({
      conventions: 'django-rest',
      resources: { users: [{ id: 42, name: 'Ann' }, { id: 7, name: 'Bob' }], posts: [{ id: 1, title: 'one', userId: 42 }, { id: 2, title: 'two', userId: 7 }, { id: 3, title: 'three', userId: 42 }] },
      fields: { users: ['name'], posts: ['title', 'userId'] },
    });
    point(server.url, 'django-rest', '/posts');
  });
  afterEach(async () => {
    await server.close();
  });

  it('a posts resource filtered by user: /posts/?userId=42, one record per id with the grid', async () => {
    const session = new Session();
    const all = new Store({ model: Note, session, pageSize: 0 });
    await all.load();
    const ann = await Writer.load(42, { session });
    const posts = await ann.posts().load();
    expect(posts.map((note) => note.getId())).toEqual([1, 3]);
    expect(posts[0]).toBe(all.getById(1));
    expect(server.requests.filter((request) => request.method === 'GET').map((request) => request.url)).toContain('/posts/?userId=42');
  });

  it('a new user and its new posts are created with their keys, with no client id on the wire', async () => {
    const { users, posts, user, notes } = graph(new Session());
    await users.sync();
    await posts.sync();
    const id = user.getId();
    expect(id).toBe(43);
    expect(sent.map((request) => [request.method, request.path, request.body])).toEqual([
      ['POST', '/users/', { name: 'Zed' }],
      ['POST', '/posts/', { title: 'a', userId: 43 }],
      ['POST', '/posts/', { title: 'b', userId: 43 }],
    ]);
    expect(notes.map((note) => note.getId())).toEqual([4, 5]);
    expect(user.posts().getRange()).toEqual(notes);
  });
});

/** An association store's load against json-server: the filter in its encoding, and the url template. */
describe('against the real json-server', () => {
  let server: JsonServer;
  class JUser extends Model.define({ entityName: 'JUser', fields: { id: 'int', name: 'string' } }) {
    static associations = { posts: hasMany(() => JPost, { foreignKey: 'userId', inverse: 'user' }) };
    declare posts: Accessor<typeof JUser.associations.posts>;
  }
  class JPost extends Model.define({ entityName: 'JPost', fields: { id: 'int', title: 'string', userId: 'int' } }) {
    static associations = { user: belongsTo(() => JUser, { foreignKey: 'userId', inverse: 'posts' }) };
  }
  beforeAll(async () => {
    server = await startJsonServer({ users: [{ id: 42, name: 'Ann' }, { id: 7, name: 'Bob' }], posts: [{ id: 1, title: 'one', userId: 42 }, { id: 2, title: 'two', userId: 42 }, { id: 3, title: 'three', userId: 7 }] });
    JUser.setProxy({ type: 'rest', url: `${server.url}/users`, preset: 'json-server' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('?userId=42: the preset encodes the filter as json-server reads it', async () => {
    JPost.setProxy({ type: 'rest', url: `${server.url}/posts`, preset: 'json-server' });
    const ann = await JUser.load(42, { session: new Session() });
    const posts = await ann.posts().load();
    expect(posts.map((post) => post.getId())).toEqual([1, 2]);
  });

  it('/users/42/posts: the url template', async () => {
    JPost.setProxy({ type: 'rest', url: `${server.url}/users/{userId}/posts`, preset: 'json-server' });
    const bob = await JUser.load(7, { session: new Session() });
    const posts = await bob.posts().load();
    expect(posts.map((post) => post.get('title'))).toEqual(['three']);
  });
});
