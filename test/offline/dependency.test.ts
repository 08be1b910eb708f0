/**
 * The outbox with rest-proxy/associations (real hasMany/belongsTo declarations, against the test
 * server): a child's entry waits for its phantom parent's; when the parent's entry fails, the
 * child's save() rejects with kind 'dependency' (kept: its entry held, not failed, not sent); the
 * parent retried, both go, the child with the parent's id.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Model, presence, RestProxy, Store } from '../../src/index.js';
import { belongsTo, hasMany, Session, type Accessor } from '../../src/associations.js';
import { MemoryStorage, Outbox } from '../../src/offline.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { closeAll, opened, proxyErrorOf, rejectionOf, requestLines } from './helpers.js';

// Not shared in a module: an exported function returning these classes cannot be named in declaration emit (tsconfig's declaration: true).
/** Author and Book (hasMany/belongsTo over `authorId`) on `<server>/authors` and `/books`, those named in `attach` attached to a new outbox, opened. */
async function authorsAndBooks(server: TestServer, attach: readonly ('Author' | 'Book')[], name = 'deps', nameRequired = false) {
  const proxy = (path: string) => new RestProxy({ url: `${server.url}/${path}`, idempotencyKey: true, timeout: 2_000 });
  class Author extends Model.define({ entityName: 'Author', fields: { id: 'int', name: 'string' }, validators: nameRequired ? { name: presence() } : {} }) {
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
  server = await startTestServer({ resources: { authors: [], books: [] } });
});

afterEach(async () => {
  await closeAll();
  await server.close();
});

const attachedModels = () => authorsAndBooks(server, ['Author', 'Book']);

const rows = (name: string) => server.db[name] ?? [];

describe('a child of a phantom parent, through the outbox', () => {
  it("the parent's entry failed: the child's save rejects with 'dependency', its entry held (not failed, not sent); the parent retried, both go", async () => {
    const { Author, Book, outbox } = await attachedModels();
    server.respond('POST', '/authors', { status: 400, body: { message: 'no' } }, { times: 1 });
    const ann = new Author({ name: 'ann' });
    const book = new Book({ title: 'one' });
    book.setAuthor(ann);
    const [annError, bookError] = await Promise.all([proxyErrorOf(ann.save()), proxyErrorOf(book.save())]);
    expect(annError.kind).toBe('http');
    expect(bookError).toMatchObject({ kind: 'dependency', queued: true });
    expect(outbox.statusOf(book)).toBe('queued');
    expect(outbox.getSnapshot()).toMatchObject({ failed: 1, pending: 1 });
    // A later edit of the child, the parent still failed: told at once too.
    book.set('title', 'One');
    expect((await proxyErrorOf(book.save())).kind).toBe('dependency');
    expect(requestLines(server)).toEqual(['POST /authors']);

    await outbox.failed[0]!.retry();
    await outbox.flush();
    expect(rows('authors')).toEqual([expect.objectContaining({ name: 'ann' })]);
    const annId = ann.getId();
    expect(rows('books')).toEqual([expect.objectContaining({ title: 'One', authorId: annId })]);
    expect([book.phantom, book.dirty, book.get('authorId')]).toEqual([false, false, annId]);
    expect(outbox.getSnapshot()).toMatchObject({ failed: 0, pending: 0, sending: 0 });
  });

  it("a store's sync: the child fails with 'dependency' in the BatchError, kept; after the parent's retry it is sent once", async () => {
    const { Author, Book, outbox } = await attachedModels();
    server.respond('POST', '/authors', { status: 400, body: { message: 'no' } }, { times: 1 });
    const ann = new Author({ name: 'ann' });
    await proxyErrorOf(ann.save());
    const books = new Store({ model: Book });
    const [book] = books.add({ title: 'two' });
    book!.setAuthor(ann);
    const error = await rejectionOf(books.sync());
    expect(error).toBeInstanceOf(BatchError);
    expect(error instanceof BatchError ? error.errors.map((each) => each.kind) : []).toEqual(['dependency']);
    expect(outbox.statusOf(book!)).toBe('queued');
    await outbox.failed[0]!.retry();
    await outbox.flush();
    expect(rows('books')).toEqual([expect.objectContaining({ title: 'two', authorId: ann.getId() })]);
    expect(requestLines(server)).toEqual(['POST /authors', 'POST /authors', 'POST /books']);
  });

  it('session.sync() goes through the outbox for attached models: the writes are entries, kept when the server fails, sent parents first once it answers', async () => {
    const { Author, Book, outbox } = await attachedModels();
    server.db['authors']?.push({ id: 1, name: 'old' }, { id: 2, name: 'bo' });
    const session = new Session();
    const authors = new Store({ model: Author, session, pageSize: 0 });
    const books = new Store({ model: Book, session, pageSize: 0 });
    await authors.load();
    // A new author and its new book in two stores, and an edited author that a store lists.
    const [ann] = authors.add({ name: 'ann' });
    const [book] = books.add({ title: 'one' });
    book!.setAuthor(ann!);
    authors.getById(1)!.set('name', 'OLD');
    // And an edited record no store lists.
    const bo = await Author.load(2, { session });
    bo.set('name', 'BO');
    server.respond('POST', '/authors', { status: 503, body: { message: 'busy' } }, { times: 1 });
    const error = await rejectionOf(session.sync());
    expect(error).toBeInstanceOf(BatchError);
    // Kept in the outbox, to be sent again: nothing lost, nothing failed for good.
    expect(error instanceof BatchError && error.errors.every((each) => each.queued)).toBe(true);
    // The outbox sent it once (its backoff replaces the proxy's retry), and the message says so.
    expect(error instanceof BatchError && error.errors.map((each) => each.message)).toEqual([expect.not.stringMatching(/tries/)]);
    expect(outbox.getSnapshot().failed).toBe(0);
    await outbox.flush();
    const annId = ann!.getId();
    expect(rows('authors').map((row) => row['name']).sort()).toEqual(['BO', 'OLD', 'ann']);
    expect(rows('books')).toEqual([expect.objectContaining({ title: 'one', authorId: annId })]);
    // Each write once (the create twice: its first try was answered 503), the book after its author.
    const lines = requestLines(server).filter((line) => !line.startsWith('GET'));
    expect(lines.filter((line) => line === 'POST /authors')).toHaveLength(2);
    expect(lines.filter((line) => line !== 'POST /authors').sort()).toEqual(['POST /books', 'PUT /authors/1', 'PUT /authors/2']);
    expect(lines.indexOf('POST /books')).toBeGreaterThan(lines.lastIndexOf('POST /authors'));
    expect([ann!.dirty, book!.dirty, authors.getById(1)!.dirty, bo.dirty]).toEqual([false, false, false, false]);
    expect(outbox.getSnapshot()).toMatchObject({ pending: 0, sending: 0, failed: 0 });
  });
});

// A new parent whose save fails validation (on the client: no entry, no request) and its new
// child saved after it: the child's save must not stay pending with no word. As for a parent's
// end (API.md 9.3, 10): it rejects with kind 'dependency', `queued: true`, its entry kept and
// never sent without the key; once the parent is fixed and saved, both go.
/** Whether `promise` has settled once everything queued before has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => (done = true), () => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

describe('a new parent that fails validation, and its new child', () => {
  it("save(): the parent rejects 'validation', the child rejects 'dependency' (queued, not sent); the parent fixed, both go", async () => {
    const { Author, Book, outbox } = await authorsAndBooks(server, ['Author', 'Book'], 'invalid-parent', true);
    const ann = new Author({ name: '' });
    const book = new Book({ title: 'one' });
    book.setAuthor(ann);
    expect((await proxyErrorOf(ann.save())).kind).toBe('validation');
    const saving = book.save();
    await outbox.flush();
    expect(await settled(saving)).toBe(true);
    expect(await proxyErrorOf(saving)).toMatchObject({ kind: 'dependency', queued: true });
    expect(outbox.statusOf(book)).toBe('queued');
    expect(requestLines(server)).toEqual([]);

    ann.set('name', 'Ann');
    await ann.save();
    await outbox.flush();
    expect(server.db['books']).toEqual([expect.objectContaining({ title: 'one', authorId: ann.getId() })]);
    expect(outbox.getSnapshot()).toMatchObject({ pending: 0, sending: 0, failed: 0 });
  });

  it("session.sync(): the BatchError holds the parent's 'validation' and the child's 'dependency'; nothing is sent", async () => {
    const { Author, Book, outbox } = await authorsAndBooks(server, ['Author', 'Book'], 'invalid-parent', true);
    const session = new Session();
    const authors = new Store({ model: Author, session, pageSize: 0 });
    const books = new Store({ model: Book, session, pageSize: 0 });
    const [ann] = authors.add({ name: '' });
    books.add({ title: 'one' })[0]!.setAuthor(ann!);
    const syncing = session.sync();
    await outbox.flush();
    expect(await settled(syncing)).toBe(true);
    const error = await rejectionOf(syncing);
    expect(error).toBeInstanceOf(BatchError);
    expect(error instanceof BatchError ? error.errors.map((each) => each.kind).sort() : []).toEqual(['dependency', 'validation']);
    expect(requestLines(server)).toEqual([]);
  });
});
