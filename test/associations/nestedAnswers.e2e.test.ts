/**
 * Nested answers against the test server (API.md 9.3): an answer is checked whole before any of
 * it is applied (one id twice is kind 'parse'; a nested-write answer giving two new children one
 * id is kind 'server', nothing committed); `reload()` reads nested data as `Model.load` does; a
 * nested write goes with every path that sends its owner; a manyToMany's nested data makes its
 * join records.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../src/presets.js';
import { Model, ProxyError, Store } from '../../src/index.js';
import { belongsTo, hasMany, manyToMany, Session, type Accessor } from '../../src/associations.js';
import { startTestServer, type TestServer } from '../server/index.js';

class Author extends Model.define({ entityName: 'Author', fields: { id: 'int', name: 'string' }, proxy: { type: 'rest', url: '/authors' } }) {
  static associations = { books: hasMany(() => Book, { foreignKey: 'authorId', inverse: 'author' }) };
  declare books: Accessor<typeof Author.associations.books>;
}

class Book extends Model.define({ entityName: 'Book', fields: { id: 'int', title: 'string', authorId: 'int' }, proxy: { type: 'rest', url: '/books' } }) {
  static associations = { author: belongsTo(() => Author, { foreignKey: 'authorId', inverse: 'books' }) };
  declare getAuthor: Accessor<typeof Book.associations.author>;
}

class Writer extends Model.define({ entityName: 'Writer', fields: { id: 'int', name: 'string' }, proxy: { type: 'rest', url: '/writers' } }) {
  static associations = { works: hasMany(() => Work, { foreignKey: 'writerId', nested: { write: true } }) };
  declare works: Accessor<typeof Writer.associations.works>;
}

class Work extends Model.define({ entityName: 'Work', fields: { id: 'int', title: 'string', writerId: 'int' }, proxy: { type: 'rest', url: '/works' } }) {}

class Tag extends Model.define({ entityName: 'Tag', fields: { id: 'int', label: 'string' }, proxy: { type: 'rest', url: '/tags' } }) {}
class Tagging extends Model.define({ entityName: 'Tagging', fields: { id: 'int', articleId: 'int', tagId: 'int' }, proxy: { type: 'rest', url: '/taggings' } }) {}
class Article extends Model.define({ entityName: 'Article', fields: { id: 'int', title: 'string' }, proxy: { type: 'rest', url: '/articles' } }) {
  static associations = { tags: manyToMany(() => Tag, { through: () => Tagging, foreignKey: 'articleId', otherKey: 'tagId' }) };
  declare tags: Accessor<typeof Article.associations.tags>;
}

let server: TestServer;

/** A server of `conventions` with every model pointed at it (Writer and Work through the rails preset: accepts_nested_attributes_for). */
async function start(conventions: 'plain' | 'rails'): Promise<void> {
  server = await startTestServer({
    ...(conventions === 'rails' ? { conventions } : {}),
    resources: {
      authors: [{ id: 1, name: 'Ann' }],
      books: [{ id: 5, title: 'five', authorId: 1 }],
      writers: [{ id: 1, name: 'Wes' }],
      works: [{ id: 3, title: 'three', writerId: 1 }],
      articles: [{ id: 1, title: 'one' }],
      tags: [{ id: 10, label: 'red' }, { id: 11, label: 'blue' }],
      taggings: [],
    },
    fields: { writers: ['name'], works: ['title', 'writerId'] },
    nested: { writers: { works: { foreignKey: 'writerId' } } },
  });
  for (const model of [Author, Book, Tag, Tagging, Article]) model.setProxy({ type: 'rest', url: `${server.url}/${model.getEntityName().toLowerCase()}s` });
  for (const model of [Writer, Work]) model.setProxy({ type: 'rest', url: `${server.url}/${model.getEntityName().toLowerCase()}s`, preset: 'rails' });
}

afterEach(async () => {
  await server.close();
});

function writes(): { method: string; path: string; json: unknown }[] {
  return server.requests.filter((request) => request.method !== 'GET').map(({ method, path, json }) => ({ method, path, json }));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => 'resolved', (caught: unknown) => caught);
}

describe('an answer is checked whole, then applied', () => {
  beforeEach(() => start('plain'));

  it('Model.load of an answer nesting book 6 twice fails with kind parse and applies nothing', async () => {
    const session = new Session();
    server.respond('GET', '/authors/1', { status: 200, body: { id: 1, name: 'Ann', books: [{ id: 6, title: 'six' }, { id: 6, title: 'six again' }] } }, { times: 1 });
    const error = await rejection(Author.load(1, { session }));
    expect(error).toBeInstanceOf(ProxyError);
    expect(error instanceof ProxyError && [error.kind, /books/.test(error.message)]).toEqual(['parse', true]);
    expect(session.get(Book, 6)).toBeUndefined();
    expect(session.get(Author, 1)).toBeUndefined();
  });

  it('a reload of an answer nesting book 6 twice fails with kind parse: nothing in the session, nor in author.books()', async () => {
    const session = new Session();
    const ann = await Author.load(1, { session });
    server.respond('GET', '/authors/1', { status: 200, body: { id: 1, name: 'Annie', books: [{ id: 6, title: 'six' }, { id: 6, title: 'six again' }] } }, { times: 1 });
    const error = await rejection(ann.reload());
    expect(error instanceof ProxyError && error.kind).toBe('parse');
    expect(session.get(Book, 6)).toBeUndefined();
    expect(ann.books().getRange()).toEqual([]);
    expect(ann.get('name')).toBe('Ann');
  });
});

describe('reload() reads nested data as Model.load does', () => {
  beforeEach(() => start('plain'));

  it('books nested in the answer of a reload are the session records, keys filled, the store loaded', async () => {
    const session = new Session();
    const ann = await Author.load(1, { session });
    server.respond('GET', '/authors/1', { status: 200, body: { id: 1, name: 'Annie', books: [{ id: 5, title: 'five!' }, { id: 6, title: 'six' }] } }, { times: 1 });
    await ann.reload();
    expect(ann.get('name')).toBe('Annie');
    const six = session.get(Book, 6);
    expect(six?.get('authorId')).toBe(1);
    expect(six?.getAuthor()).toBe(ann);
    expect(ann.books().getRange().map((book) => book.get('title'))).toEqual(['five!', 'six']);
    expect(ann.books().loaded).toBe(true);
    // As Model.load of the same answer reads it.
    const other = new Session();
    server.respond('GET', '/authors/1', { status: 200, body: { id: 1, name: 'Annie', books: [{ id: 5, title: 'five!' }, { id: 6, title: 'six' }] } }, { times: 1 });
    const loaded = await Author.load(1, { session: other });
    expect(loaded.books().getRange().map((book) => book.get('title'))).toEqual(['five!', 'six']);
  });
});

describe('a nested write goes with every path that sends its owner', () => {
  beforeEach(() => start('rails'));

  it('a nested-write answer giving two new children one id commits neither (kind server), and the next save commits both', async () => {
    const session = new Session();
    const wes = await Writer.load(1, { session });
    const [a, b] = wes.works().add([{ title: 'a' }, { title: 'b' }]);
    server.respond('PUT', '/writers/1', { status: 200, body: { id: 1, name: 'Wes', works: [{ id: 70, title: 'a', writerId: 1 }, { id: 70, title: 'b', writerId: 1 }] } }, { times: 1 });
    const error = await rejection(wes.save());
    expect(error instanceof ProxyError && error.kind).toBe('server');
    expect([a?.phantom, b?.phantom, a?.getId(), b?.getId()]).toEqual([true, true, undefined, undefined]);
    expect(session.get(Work, 70)).toBeUndefined();
    await wes.save();
    expect([a?.phantom, b?.phantom]).toEqual([false, false]);
    expect(a?.getId()).not.toBe(b?.getId());
  });
  it('session.sync() sends the children of a clean owner in its PUT, not alone', async () => {
    const session = new Session();
    const wes = await Writer.load(1, { session });
    const [fresh] = wes.works().add({ title: 'four' });
    server.reset();
    await session.sync();
    expect(writes()).toEqual([{ method: 'PUT', path: '/writers/1', json: { writer: { id: 1, name: 'Wes', works_attributes: [{ title: 'four' }] } } }]);
    expect([fresh?.phantom, fresh?.get('writerId'), wes.dirty]).toEqual([false, 1, false]);
    await session.sync();
    expect(writes()).toHaveLength(1);
  });

  it('session.sync() of a new owner with new children: one POST carrying them', async () => {
    const session = new Session();
    const writers = new Store({ model: Writer, session, pageSize: 0 });
    const [zed] = writers.add({ name: 'Zed' });
    if (zed === undefined) throw new Error('no record');
    const [a] = zed.works().add({ title: 'a' });
    server.reset();
    await session.sync();
    expect(writes()).toEqual([{ method: 'POST', path: '/writers', json: { writer: { name: 'Zed', works_attributes: [{ title: 'a' }] } } }]);
    expect([zed.phantom, a?.phantom, a?.get('writerId')]).toEqual([false, false, zed.getId()]);
  });
});

describe('manyToMany nested data', () => {
  beforeEach(() => start('plain'));

  it('tags nested in an article answer make its join records: article.tags() lists them', async () => {
    const session = new Session();
    server.respond('GET', '/articles/1', { status: 200, body: { id: 1, title: 'one', tags: [{ id: 10, label: 'red' }, { id: 11, label: 'blue' }] } }, { times: 1 });
    const article = await Article.load(1, { session });
    expect(article.tags().getRange().map((tag) => tag.get('label')).sort()).toEqual(['blue', 'red']);
    expect(article.tags().loaded).toBe(true);
    // The join records are the server's: nothing to send; a tag linked now makes the only new one.
    server.reset();
    await session.sync();
    expect(writes()).toEqual([]);
    const green = new Tag({ label: 'green' });
    article.tags().link(green);
    await article.tags().sync();
    expect(writes().map(({ method, path }) => `${method} ${path}`)).toEqual(['POST /tags', 'POST /taggings']);
  });
});
