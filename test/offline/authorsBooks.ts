/** Author and Book with associations for the outbox suites (a module of its own: importing rest-proxy/associations plugs it into the core). */
import { Model, RestProxy } from '../../src/index.js';
import { belongsTo, hasMany, type Accessor } from '../../src/associations.js';
import { MemoryStorage, Outbox } from '../../src/offline.js';
import type { TestServer } from '../server/index.js';
import { opened } from './helpers.js';

/** Author and Book (hasMany/belongsTo over `authorId`) on `<server>/authors` and `/books`, those named in `attach` attached to a new outbox, opened. */
export async function authorsAndBooks(server: TestServer, attach: readonly ('Author' | 'Book')[], name = 'deps') {
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
