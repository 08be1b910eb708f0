/**
 * session.sync() over a mix of models attached to an Outbox and not (API.md 9.3, 10): each write
 * once, parents first, whichever side the parent is on; a removed record of an attached store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Model, RestProxy, Store } from '../../src/index.js';
import { belongsTo, hasMany, Session, type Accessor } from '../../src/associations.js';
import { MemoryStorage, Outbox } from '../../src/offline.js';
import { collected } from '../helpers/gc.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { closeAll, opened, rejectionOf, requestLines } from './helpers.js';

// Not shared in a module: an exported function returning these classes cannot be named in declaration emit (tsconfig's declaration: true).
/** Author and Book (hasMany/belongsTo over `authorId`) on `<server>/authors` and `/books`, those named in `attach` attached to a new outbox, opened. */
async function authorsAndBooks(server: TestServer, attach: readonly ('Author' | 'Book')[], name = 'deps') {
  const proxy = (path: string) => new RestProxy({ url: `${server.url}/${path}`, idempotencyKey: true, timeout: 2_000 });
  class Author extends Model.define({ entityName: 'Author', fields: { id: 'int', name: 'string' } }) {
    static override proxy = proxy('authors');
    static associations = { books: hasMany(() => Book, { foreignKey: 'authorId', inverse: 'author' }) };
    declare books: Accessor<typeof Author.associations.books>;
  }
  class Book extends Model.define({ entityName: 'Book', fields: { id: 'int', title: 'string', authorId: 'int' } }) {
    static override proxy = proxy('books');
    static associations = { author: belongsTo(() => Author, { foreignKey: 'authorId', inverse: 'books' }) };
    declare setAuthor: Accessor<typeof Book.associations.author, 'set'>;
  }
  const outbox = new Outbox({ name, storage: new MemoryStorage(), models: attach.map((one) => (one === 'Author' ? Author : Book)) });
  opened.push(outbox);
  await outbox.open();
  return { Author, Book, outbox };
}

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { authors: [{ id: 1, name: 'old' }], books: [{ id: 5, title: 'gone', authorId: 1 }] } });
});

afterEach(async () => {
  await closeAll();
  await server.close();
});

/** Author and Book, one of them attached to an outbox; a store of each in one session, loaded. */
async function models(attach: 'Author' | 'Book') {
  const { Author, Book, outbox } = await authorsAndBooks(server, [attach], 'mix');
  const session = new Session();
  const authors = new Store({ model: Author, session, pageSize: 0 });
  const books = new Store({ model: Book, session, pageSize: 0 });
  await Promise.all([authors.load(), books.load()]);
  return { session, authors, books, outbox };
}

const writes = (): string[] => requestLines(server).filter((line) => !line.startsWith('GET'));

describe('session.sync() with attached and non-attached models', () => {
  // Neither the outbox nor the graph can order a new parent and its new child across the outbox
  // (the graph would create an attached parent a second time; the outbox would send an attached
  // child without the key of a parent it holds no entry for): refused before any request, kind
  // 'config'; the parent saved first, the next session.sync() sends the rest once.
  it.each(['Author', 'Book'] as const)('%s attached: a new book of a new author is refused before any request; the author saved first, each is created once', async (attach) => {
    const { session, authors, books, outbox } = await models(attach);
    const [ann] = authors.add({ name: 'ann' });
    const [book] = books.add({ title: 'new' });
    book!.setAuthor(ann!);
    authors.getById(1)!.set('name', 'OLD');
    const error = await rejectionOf(session.sync());
    if (!(error instanceof BatchError)) throw new Error(`expected a BatchError, got ${String(error)}`);
    expect(error.errors.map((each) => each.kind)).toEqual(['config']);
    expect(error.errors[0]?.message).toMatch(/Book .* waits for the new Author .*attach both, or save Author .* first; nothing was sent/);
    expect(writes()).toEqual([]);
    expect([ann!.phantom, book!.phantom, authors.getById(1)!.dirty]).toEqual([true, true, true]);
    await ann!.save();
    await session.sync();
    await outbox.flush();
    const lines = writes();
    expect(lines.filter((line) => line.startsWith('POST /authors'))).toEqual(['POST /authors']);
    expect(lines.filter((line) => line.startsWith('POST /books'))).toEqual(['POST /books']);
    expect(lines.filter((line) => line === 'PUT /authors/1')).toHaveLength(1);
    expect(server.db['books']?.find((row) => row['title'] === 'new')?.['authorId']).toBe(ann!.getId());
    expect([ann!.dirty, book!.dirty, authors.getById(1)!.dirty]).toEqual([false, false, false]);
  });

  it.each(['Author', 'Book'] as const)('%s attached: a removed book is destroyed once', async (attach) => {
    const { session, books, outbox } = await models(attach);
    books.remove(books.getById(5)!);
    await session.sync();
    await outbox.flush();
    expect(writes()).toEqual(['DELETE /books/5']);
    expect(server.db['books']).toEqual([]);
    expect(books.getRemovedRecords()).toEqual([]);
  });

  it('both attached: a new record of a store collected before session.sync() is sent once, through the outbox', async () => {
    const { Author, outbox } = await authorsAndBooks(server, ['Author', 'Book'], 'mix');
    const session = new Session();
    const ref = await (async () => {
      const authors = new Store({ model: Author, session, pageSize: 0 });
      await authors.load();
      authors.add({ name: 'ann' });
      return new WeakRef(authors);
    })();
    expect(await collected([ref])).toBe(0);
    await session.sync();
    await outbox.flush();
    expect(writes()).toEqual(['POST /authors']);
  });

  it("the book attached, its new author not: book.save() saves the author first (its own proxy), then the book through the outbox with the author's id", async () => {
    const { authors, books, outbox } = await models('Book');
    const [ann] = authors.add({ name: 'ann' });
    const [book] = books.add({ title: 'new' });
    book!.setAuthor(ann!);
    await book!.save();
    await outbox.flush();
    expect(writes()).toEqual(['POST /authors', 'POST /books']);
    expect(server.db['books']?.find((row) => row['title'] === 'new')?.['authorId']).toBe(ann!.getId());
    expect([ann!.phantom, book!.phantom, book!.dirty]).toEqual([false, false, false]);
  });

  it("the book attached, its new author not, the author's create refused: the book is not sent, kind 'dependency', nothing queued, ready to save again", async () => {
    const { authors, books, outbox } = await models('Book');
    server.respond('POST', '/authors', { status: 400, body: { message: 'no' } }, { times: 1 });
    const [ann] = authors.add({ name: 'ann' });
    const [book] = books.add({ title: 'new' });
    book!.setAuthor(ann!);
    const error = await rejectionOf(book!.save());
    expect(error).toMatchObject({ kind: 'dependency' });
    expect(writes()).toEqual(['POST /authors']);
    expect([outbox.statusOf(book!), outbox.getSnapshot().pending, book!.phantom]).toEqual([undefined, 0, true]);
    await book!.save();
    await outbox.flush();
    expect(writes()).toEqual(['POST /authors', 'POST /authors', 'POST /books']);
    expect(server.db['books']?.find((row) => row['title'] === 'new')?.['authorId']).toBe(ann!.getId());
  });
});
