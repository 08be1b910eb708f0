/**
 * session.sync() over a mix of models attached to an Outbox and not (API.md 9.3, 10): each write
 * once, parents first, whichever side the parent is on; a removed record of an attached store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/index.js';
import { Session } from '../../src/associations.js';
import { collected } from '../helpers/gc.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { authorsAndBooks } from './authorsBooks.js';
import { closeAll, requestLines } from './helpers.js';

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

/** A new book of a new author, in the two stores, and an edited author; session.sync(), the outbox flushed: each written once, the book after its author, with its id. */
async function newBookOfNewAuthor(attach: 'Author' | 'Book'): Promise<void> {
  const { session, authors, books, outbox } = await models(attach);
  const [ann] = authors.add({ name: 'ann' });
  const [book] = books.add({ title: 'new' });
  book!.setAuthor(ann!);
  authors.getById(1)!.set('name', 'OLD');
  await session.sync();
  await outbox.flush();
  const lines = writes();
  expect(lines.filter((line) => line.startsWith('POST /authors'))).toEqual(['POST /authors']);
  expect(lines.filter((line) => line.startsWith('POST /books'))).toEqual(['POST /books']);
  expect(lines.filter((line) => line === 'PUT /authors/1')).toHaveLength(1);
  expect(lines.indexOf('POST /books')).toBeGreaterThan(lines.indexOf('POST /authors'));
  expect(server.db['books']?.find((row) => row['title'] === 'new')?.['authorId']).toBe(ann!.getId());
  expect([ann!.dirty, book!.dirty]).toEqual([false, false]);
}

describe('session.sync() with attached and non-attached models', () => {
  // BUG (left open): the graph of the non-attached books reaches the new author (attached) and
  // creates it itself through the Author proxy (syncGraph's `reach`), while the authors store's
  // sync through the outbox creates it too: by the time the graph's batch is sent the author has
  // the outbox's id, so it goes out as 'POST /authors/2' (a 405 here; a duplicate row on a server
  // that accepts it). sessionSync.ts should leave an attached parent to the outbox and wait for
  // its create.
  it.fails('the author attached: a new book of a new author in the other store, each created once, the book with its author\'s id', () => newBookOfNewAuthor('Author'));

  // BUG (left open): the book's outbox entry waits only for parents that have outbox entries
  // (table.ts `sendable`: `parents` are client ids of entries); the new author is not attached, so
  // the book is sent at once, concurrently with the graph's author create, with no authorId
  // ('POST /books {"title":"new"}'): issue 22's "a child goes out with no key". sessionSync.ts
  // should create the non-attached parents of attached records before their syncs are queued
  // (and fail those children with 'dependency' when a parent's create fails).
  it.fails('the book attached: a new book of a new author in the other store, each created once, the book with its author\'s id', () => newBookOfNewAuthor('Book'));

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
});
