/**
 * One "page" of an app with new authors and their new books (hasMany/belongsTo over `authorId`):
 * fresh model classes, as a reload makes them again, attached to a new Outbox over `storage`,
 * opened, with a Session and a store per model. Books go to `<url>/books`, or with `nested` to
 * `<url>/authors/{authorId}/books`. Used by the outbox graph soaks and the late-answer test.
 */
import { afterEach, beforeEach } from 'vitest';
import { Model, RestProxy, Store } from '../../../src/index.js';
import { belongsTo, hasMany, Session, type Accessor } from '../../../src/associations.js';
import { Outbox, type OutboxConfig, type OutboxStorage } from '../../../src/offline.js';
import { startTestServer, type TestServer } from '../../server/index.js';

export interface GraphPage {
  readonly outbox: Outbox;
  readonly session: Session;
  /** A new author named `name` with a new book per title, hers (in the page's stores and session). */
  author(name: string, titles: readonly string[]): void;
}

export async function graphPage(url: string, storage: OutboxStorage, options: { nested: boolean; name: string; timeout?: number } & Partial<OutboxConfig>): Promise<GraphPage> {
  const { nested, timeout = 1_000, ...config } = options;
  const proxy = (path: string) => new RestProxy({ url: `${url}/${path}`, idempotencyKey: true, timeout });
  class Author extends Model.define({ entityName: 'Author', fields: { id: 'int', name: 'string' } }) {
    static override proxy = proxy('authors');
    static associations = { books: hasMany(() => Book, { foreignKey: 'authorId', inverse: 'author' }) };
    declare books: Accessor<typeof Author.associations.books>;
  }
  class Book extends Model.define({ entityName: 'Book', fields: { id: 'int', title: 'string', authorId: 'int' } }) {
    static override proxy = proxy(nested ? 'authors/{authorId}/books' : 'books');
    static associations = { author: belongsTo(() => Author, { foreignKey: 'authorId', inverse: 'books' }) };
    declare setAuthor: Accessor<typeof Book.associations.author, 'set'>;
  }
  const outbox = new Outbox({ storage, models: [Author, Book], ...config });
  await outbox.open();
  const session = new Session();
  const authors = new Store({ model: Author, session, pageSize: 0 });
  const books = new Store({ model: Book, session, pageSize: 0 });
  return {
    outbox,
    session,
    author(name, titles) {
      const [made] = authors.add({ name });
      for (const title of titles) books.add({ title })[0]!.setAuthor(made!);
    },
  };
}

export interface GraphPages {
  /** The test's server (empty authors and books). */
  server(): TestServer;
  /** A page on the test's server: closed after the test unless `gone()` first. */
  page(storage: OutboxStorage, options: { nested: boolean; name: string; timeout?: number }): Promise<GraphPage>;
  /** The page was closed by the test (a reload). */
  gone(page: GraphPage): Promise<void>;
}

/** Per test: a server with empty authors and books, and the pages opened on it, closed after it. */
export function graphPages(): GraphPages {
  let server: TestServer | undefined;
  const open: Outbox[] = [];
  beforeEach(async () => {
    server = await startTestServer({ resources: { authors: [], books: [] } });
  });
  afterEach(async () => {
    for (const outbox of open.splice(0)) await outbox.close();
    await server?.close();
    server = undefined;
  });
  const current = (): TestServer => {
    if (server === undefined) throw new Error('no graph server outside a test');
    return server;
  };
  return {
    server: current,
    async page(storage, options) {
      const made = await graphPage(current().url, storage, options);
      open.push(made.outbox);
      return made;
    },
    async gone(page) {
      open.splice(open.indexOf(page.outbox), 1);
      await page.outbox.close();
    },
  };
}
