/**
 * Owned children end with their parent (issue 29 item 1; API.md 9.3): `hasMany(..., { owned: true })`.
 * Against the test server on 127.0.0.1: a new author destroyed before it was created drops its new
 * owned books without a request; a saved author removed and synced destroys its saved owned books
 * before its own DELETE, and never sends its new owned books (no POST with the dead author's key);
 * a non-owned new child of a destroyed new parent fails with kind 'dependency' and stays pending
 * until it is given another parent or none.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Model, ProxyError, Store } from '../../src/index.js';
import { belongsTo, hasMany, Session, type Accessor } from '../../src/associations.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { FAST_RETRY, rejectionOf, requestLines, rowsOf } from '../resilience/helpers.js';

class Author extends Model.define({ entityName: 'authors', fields: { id: 'int', name: 'string' }, proxy: { type: 'rest', url: '/authors' } }) {
  static associations = {
    books: hasMany(() => Book, { foreignKey: 'authorId', inverse: 'author', owned: true }),
    reviews: hasMany(() => Review, { foreignKey: 'authorId', inverse: 'author' }),
  };
  declare books: Accessor<typeof Author.associations.books>;
  declare reviews: Accessor<typeof Author.associations.reviews>;
}

class Book extends Model.define({ entityName: 'books', fields: { id: 'int', title: 'string', authorId: 'int' }, proxy: { type: 'rest', url: '/books' } }) {
  static associations = { author: belongsTo(() => Author, { foreignKey: 'authorId', inverse: 'books' }) };
  declare getAuthor: Accessor<typeof Book.associations.author>;
}

class Review extends Model.define({ entityName: 'reviews', fields: { id: 'int', text: 'string', authorId: 'int' }, proxy: { type: 'rest', url: '/reviews' } }) {
  static associations = { author: belongsTo(() => Author, { foreignKey: 'authorId', inverse: 'reviews' }) };
  declare setAuthor: Accessor<typeof Review.associations.author, 'set'>;
}

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { authors: [{ id: 1, name: 'Ann' }], books: [{ id: 1, title: 'one', authorId: 1 }, { id: 2, title: 'two', authorId: 1 }, { id: 3, title: 'other', authorId: 2 }], reviews: [] } });
  for (const [model, name] of [[Author, 'authors'], [Book, 'books'], [Review, 'reviews']] as const) {
    model.setProxy({ type: 'rest', url: `${server.url}/${name}`, retry: { ...FAST_RETRY }, timeout: 2_000 });
  }
});

afterEach(async () => {
  await server.close();
});

function stores() {
  const session = new Session();
  return { session, authors: new Store({ model: Author, pageSize: 0, session }), books: new Store({ model: Book, pageSize: 0, session }), reviews: new Store({ model: Review, pageSize: 0, session }) };
}

describe('a new author destroyed before it was created', () => {
  it.each(['session.sync()', "author.books().sync()"])('drops its new owned book without a request (%s)', async (how) => {
    const { session, authors } = stores();
    const [author] = authors.add({ name: 'New' });
    if (!author) throw new Error('not added');
    const [book] = author.books().add({ title: 'Draft' });
    if (!book) throw new Error('not added');
    const owned = author.books();
    await author.destroy();
    await (how === 'session.sync()' ? session.sync() : owned.sync());
    expect(requestLines(server)).toEqual([]);
    expect(book.erased).toBe(true);
    expect(owned.getNewRecords()).toEqual([]);
    expect(owned.hasChanges()).toBe(false);
    expect(rowsOf(server, 'books')).toHaveLength(3);
    // Nothing is left for a later sync either.
    await session.sync();
    expect(requestLines(server)).toEqual([]);
  });

  it("a non-owned new child fails with kind 'dependency', stays pending, and is sent once given no parent", async () => {
    const { session, authors, reviews } = stores();
    const [author] = authors.add({ name: 'New' });
    const [review] = reviews.add({ text: 'Great' });
    if (!author || !review) throw new Error('not added');
    review.setAuthor(author);
    await author.destroy();
    const error = await rejectionOf(session.sync());
    expect(error).toBeInstanceOf(BatchError);
    if (!(error instanceof BatchError)) return;
    const failure = error.errors[0];
    expect(failure).toBeInstanceOf(ProxyError);
    expect(failure?.kind).toBe('dependency');
    expect(requestLines(server)).toEqual([]);
    expect(review.phantom).toBe(true);
    expect(reviews.getNewRecords()).toEqual([review]);
    review.setAuthor(null);
    await session.sync();
    expect(requestLines(server)).toEqual(['POST /reviews']);
    expect(review.get('authorId')).toBeNull();
    expect(rowsOf(server, 'reviews').map((row) => [row['text'], row['authorId'] ?? null])).toEqual([['Great', null]]);
  });
});

describe.each(['session.sync()', "the authors store's sync()"])('a saved author removed and synced (%s)', (how) => {
  it('destroys its saved owned books before its DELETE and never sends its new owned book', async () => {
    const { session, authors, books } = stores();
    await Promise.all([authors.load(), books.load()]);
    const author = authors.getById(1);
    if (!author) throw new Error('not loaded');
    const [draft] = author.books().add({ title: 'Draft' });
    if (!draft) throw new Error('not added');
    server.reset();
    authors.remove(author);
    await (how === 'session.sync()' ? session.sync() : authors.sync());
    const lines = requestLines(server);
    expect(lines.at(-1)).toBe('DELETE /authors/1');
    expect(lines.slice(0, -1).sort()).toEqual(['DELETE /books/1', 'DELETE /books/2']);
    expect(rowsOf(server, 'books').map((row) => row['id'])).toEqual([3]);
    expect(draft.erased).toBe(true);
    // Nothing after: the books store has nothing pending, and a later sync sends nothing.
    expect(books.hasChanges()).toBe(false);
    await Promise.all([session.sync(), books.sync()]);
    expect(requestLines(server)).toEqual(lines);
  });
});
