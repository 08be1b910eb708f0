/**
 * The outbox end to end in headless Chromium: an app page importing `Outbox` and
 * `IndexedDBStorage` from the built `rest-proxy/offline` (dist/offline.js), its files served from
 * 127.0.0.1 as a service worker would (so it reloads offline), writing to the project's test
 * server on another port (CORS, `Idempotency-Key` honoured). Offline is the browser's own
 * (`context.setOffline`: navigator.onLine, the online event, fetch failing).
 * - Go offline, create, update and destroy, reload, come back online: the server gets each write
 *   once, and a reload after that sends nothing.
 * - Close the page while the server holds a create's answer (applied, not yet answered), reopen:
 *   the create is sent again under its key, and the server has it once.
 * - Two tabs: the other tab sends its own write; the leader writes offline and is closed; the
 *   other leads within a second and, back online, sends the closed tab's write, once.
 * - Two tabs holding one row: the one that edits it offline is closed; the other's record showed
 *   the edit, and the other, back online, sends it: done (not failed), its record clean.
 * - A new author's new book queued offline, the page reloaded, back online: the book is created
 *   with its author's id (also through a url template /authors/{authorId}/books).
 * - IndexedDB refused: open() rejects with 'unavailable'; with `fallback: 'memory'` writes are
 *   sent, not durable.
 * The app does not wire tabs itself: the two-tab case needs the package's Outbox to coordinate
 * tabs by src/offline/tabs.ts (joinTabs) when it runs in a browser.
 */
import type { Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/index.js';
import { chromiumMissing, hasChromium } from '../frameworks/chromium.js';
import { cacheApp, chromiumSession, within } from './pages.js';

/** What the app page offers the test (window.app), in plain data. */
interface App {
  /** How outbox.open() settled: 'opened', or the error's name and kind. */
  opened: Promise<string>;
  /** Load the store of notes; their titles by id. */
  load(): Promise<Record<string, string>>;
  /** Save a new note: 'saved', 'queued' (kept, will be sent again) or the error's message. */
  create(title: string, wait?: boolean): Promise<string>;
  /** `wait` false: 'sent' once stored (a write not attempted while paused settles only on its own answer). */
  rename(id: number, title: string, wait?: boolean): Promise<string>;
  remove(id: number, wait?: boolean): Promise<string>;
  /** The title of the store's note `id` and whether it is dirty. */
  note(id: number): { title: string; dirty: boolean } | undefined;
  snapshot(): { pending: number; sending: number; failed: number; paused: string | false; leader: boolean; durable: boolean };
  flush(): Promise<void>;
  /** A new author and her new book, through a session's sync (not waited for). */
  authorWithBook(name: string, title: string): string;
}

declare global {
  interface Window {
    app?: App;
  }
}

/** The app: a Note model over the test server, attached to an outbox on IndexedDB. */
const APP = `
import { Model, RestProxy, Store } from '/dist/index.js';
import { Outbox, IndexedDBStorage } from '/dist/offline.js';
import { Session, belongsTo, hasMany } from '/dist/associations.js';
import * as offline from '/dist/offline.js';
import * as tabs from '/dist/offline/tabs.js';
Object.assign(window, { offline, tabs });
const api = new URL(location.href).searchParams.get('api');
class Note extends Model {
  static entityName = 'Note';
  static fields = [{ name: 'id', type: 'int' }, { name: 'title', type: 'string' }];
  static proxy = new RestProxy({ url: api + '/notes', idempotencyKey: true, timeout: 2000 });
}
const nested = new URL(location.href).searchParams.get('nested') === 'true';
class Author extends Model {
  static entityName = 'Author';
  static fields = [{ name: 'id', type: 'int' }, { name: 'name', type: 'string' }];
  static proxy = new RestProxy({ url: api + '/authors', idempotencyKey: true, timeout: 2000 });
  static associations = { books: hasMany(() => Book, { foreignKey: 'authorId', inverse: 'author' }) };
}
class Book extends Model {
  static entityName = 'Book';
  static fields = [{ name: 'id', type: 'int' }, { name: 'title', type: 'string' }, { name: 'authorId', type: 'int' }];
  static proxy = new RestProxy({ url: api + (nested ? '/authors/{authorId}/books' : '/books'), idempotencyKey: true, timeout: 2000 });
  static associations = { author: belongsTo(() => Author, { foreignKey: 'authorId', inverse: 'books' }) };
}
const fallback = new URL(location.href).searchParams.get('fallback') ?? 'none';
const outbox = new Outbox({ name: 'e2e', storage: new IndexedDBStorage(), models: [Note, Author, Book], fallback });
const notes = new Store({ model: Note, pageSize: 0 });
const settle = (promise) => Promise.race([
  promise.then(() => 'saved', (error) => (error.queued === true ? 'queued' : error.message)),
  new Promise((resolve) => setTimeout(() => resolve('no answer within 5 s'), 5000)),
]);
const find = (id) => notes.getById(id);
window.app = {
  opened: outbox.open().then(() => 'opened', (error) => error.name + ' ' + error.kind),
  async load() {
    await notes.load();
    return Object.fromEntries(notes.getRange().map((note) => [note.getId(), note.get('title')]));
  },
  create: (title, wait = true) => {
    const saved = settle(new Note({ title }).save());
    return wait ? saved : Promise.resolve('sent');
  },
  rename: (id, title, wait = true) => { const note = find(id); note.set('title', title); const saved = settle(note.save()); return wait ? saved : Promise.resolve('sent'); },
  remove: (id, wait = true) => { const removed = settle(find(id).destroy()); return wait ? removed : Promise.resolve('sent'); },
  note: (id) => { const note = find(id); return note && { title: note.get('title'), dirty: note.dirty }; },
  snapshot: () => ({ ...outbox.getSnapshot() }),
  flush: () => outbox.flush(),
  authorWithBook: (name, title) => {
    const session = new Session();
    const [author] = new Store({ model: Author, session, pageSize: 0 }).add({ name });
    const [book] = new Store({ model: Book, session, pageSize: 0 }).add({ title });
    book.setAuthor(author);
    session.sync().catch(() => undefined);
    return 'sent';
  },
};
`;

if (!hasChromium) {
  chromiumMissing('the outbox in a real browser');
} else {
  describe('the outbox in Chromium', { timeout: 30_000 }, () => {
    let server: TestServer;
    const session = chromiumSession((pages) => {
      pages.add('app.js', APP);
      pages.add('app.html', '<!doctype html><meta charset="utf-8"><script type="module" src="/app.js"></script>');
    });

    beforeEach(async () => {
      server = await startTestServer({ resources: { notes: [{ id: 1, title: 'one' }, { id: 2, title: 'two' }], authors: [], books: [] } });
      await cacheApp(session.context, session.pages);
    });

    afterEach(async () => {
      await server.close();
    });

    /** A tab of the app, its outbox open. */
    async function appTab(query = ''): Promise<Page> {
      const page = await session.tab(`app.html?api=${encodeURIComponent(server.url)}${query}`);
      await page.waitForFunction(() => window.app !== undefined);
      expect(await page.evaluate(() => window.app!.opened)).toBe('opened');
      return page;
    }

    const writes = (): string[] => server.requests.filter((request) => request.method !== 'GET').map((request) => `${request.method} ${request.path}`);
    const titles = (): string[] => (server.db['notes'] ?? []).map((row) => `${String(row['id'])}:${String(row['title'])}`);
    const quiet = (page: Page): Promise<boolean> => page.evaluate(() => ((snapshot) => snapshot.pending + snapshot.sending === 0)(window.app!.snapshot()));

    it('offline: create, update, destroy; reload; back online: the server gets each write once', async () => {
      const page = await appTab();
      expect(await page.evaluate(() => window.app!.load())).toEqual({ 1: 'one', 2: 'two' });
      await session.context.setOffline(true);
      // The first write is attempted (and kept); the others are not attempted while offline: stored, pending.
      const answers = await page.evaluate(async () => [await window.app!.create('three'), await window.app!.rename(1, 'ONE', false), await window.app!.remove(2, false)]);
      expect(answers).toEqual(['queued', 'sent', 'sent']);
      await within(5_000, async () => (await page.evaluate(() => window.app!.snapshot().pending)) === 3);
      expect(await page.evaluate(() => window.app!.snapshot())).toMatchObject({ pending: 3, paused: 'offline', durable: true });
      expect(writes()).toEqual([]);

      await page.reload();
      await page.waitForFunction(() => window.app !== undefined);
      expect(await page.evaluate(() => window.app!.opened)).toBe('opened');
      // All three restored, only the head in flight (the probe), none failed, none arrived.
      const restored = await page.evaluate(() => window.app!.snapshot());
      expect(restored.pending + restored.sending).toBe(3);
      expect(restored.sending).toBeLessThanOrEqual(1);
      expect(restored.paused).toBe('offline');
      expect(restored.failed).toBe(0);
      // At most the probe: Chromium's offline emulation does not always hold for the first request
      // of a reloaded page (seen in CI). Each write still reaches the server once (below).
      expect(writes().length).toBeLessThanOrEqual(1);

      await session.context.setOffline(false); // the online event replays
      await within(10_000, () => quiet(page));
      // A probe that got through before its answer was cut off is sent again under its key.
      expect([...new Set(writes())].sort()).toEqual(['DELETE /notes/2', 'POST /notes', 'PUT /notes/1']);
      expect(new Set(server.requests.filter((request) => request.method === 'POST').map((request) => request.headers['idempotency-key'])).size).toBe(1);
      expect(titles()).toEqual(['1:ONE', '3:three']);

      // Nothing is left to send: a reload sends nothing more.
      const sent = writes().length;
      await page.reload();
      await page.waitForFunction(() => window.app !== undefined);
      expect(await page.evaluate(() => window.app!.opened)).toBe('opened');
      await page.evaluate(() => window.app!.flush());
      expect(writes()).toHaveLength(sent);
    });

    it.each([false, true])("a new author's new book, queued offline, reloaded, back online: created under its author (nested url: %s)", async (nested) => {
      const page = await appTab(`&nested=${String(nested)}`);
      await session.context.setOffline(true);
      expect(await page.evaluate(() => window.app!.authorWithBook('ann', 'one'))).toBe('sent');
      await within(5_000, async () => (await page.evaluate(() => window.app!.snapshot().pending)) === 2);
      await page.reload();
      await page.waitForFunction(() => window.app !== undefined);
      expect(await page.evaluate(() => window.app!.opened)).toBe('opened');
      await session.context.setOffline(false);
      await within(10_000, () => quiet(page));
      await page.evaluate(() => window.app!.flush());
      expect(await page.evaluate(() => window.app!.snapshot())).toMatchObject({ pending: 0, sending: 0, failed: 0 });
      const authors = server.db['authors'] ?? [];
      expect(authors).toEqual([expect.objectContaining({ name: 'ann' })]);
      expect(server.db['books']).toEqual([expect.objectContaining({ title: 'one', authorId: authors[0]?.['id'] })]);
      const id = String(authors[0]?.['id']);
      expect([...new Set(writes())]).toEqual(['POST /authors', nested ? `POST /authors/${id}/books` : 'POST /books']);
    });

    it("the page closed while the server holds a create's answer; reopened: sent again under its key, created once", async () => {
      server.inject({ type: 'delay', ms: 4_000, match: { method: 'POST', path: '/notes' } });
      const page = await appTab();
      await page.evaluate(() => window.app!.create('held', false));
      await within(5_000, async () => writes().includes('POST /notes'));
      await page.close();

      const again = await appTab();
      await again.evaluate(() => window.app!.flush());
      const posts = server.requests.filter((request) => request.method === 'POST');
      expect(posts).toHaveLength(2);
      expect(posts[1]?.headers['idempotency-key']).toBe(posts[0]?.headers['idempotency-key']);
      expect(titles()).toEqual(['1:one', '2:two', '3:held']);
      expect(await again.evaluate(() => window.app!.snapshot())).toMatchObject({ pending: 0, sending: 0, failed: 0 });
    });

    it("two tabs, the leader closed while offline: the other leads and sends the closed tab's write once", async () => {
      const first = await appTab();
      const second = await appTab();
      expect([await first.evaluate(() => window.app!.snapshot().leader), await second.evaluate(() => window.app!.snapshot().leader)]).toEqual([true, false]);
      // Every tab sends its own writes, leader or not.
      expect(await second.evaluate(() => window.app!.create('from the second tab'))).toBe('saved');
      await session.context.setOffline(true);
      expect(await first.evaluate(() => window.app!.create('from the first tab'))).toBe('queued');
      await first.close();
      expect(await within(5_000, () => second.evaluate(() => window.app!.snapshot().leader))).toBeLessThan(1_000);
      await session.context.setOffline(false);
      await within(10_000, async () => titles().includes('4:from the first tab'));
      await second.evaluate(() => window.app!.flush());
      expect(writes()).toEqual(['POST /notes', 'POST /notes']);
      expect(titles()).toEqual(['1:one', '2:two', '3:from the second tab', '4:from the first tab']);
    });

    it("two tabs holding one row: the other tab's record follows an offline edit, and, the editing tab closed, sends it: done, not failed", async () => {
      const first = await appTab();
      const second = await appTab();
      for (const page of [first, second]) expect(await page.evaluate(() => window.app!.load())).toEqual({ 1: 'one', 2: 'two' });
      await session.context.setOffline(true);
      expect(await second.evaluate(() => window.app!.rename(1, 'renamed in the second tab'))).toBe('queued');
      await within(5_000, async () => (await first.evaluate(() => window.app!.note(1)?.title)) === 'renamed in the second tab');
      await second.close();
      await session.context.setOffline(false);
      // The leader sees the closed tab gone (its lock freed) and sends its update.
      await within(15_000, async () => titles().includes('1:renamed in the second tab') && (await quiet(first)));
      await first.evaluate(() => window.app!.flush());
      expect(await first.evaluate(() => window.app!.snapshot())).toMatchObject({ pending: 0, sending: 0, failed: 0 });
      expect(await first.evaluate(() => window.app!.note(1))).toEqual({ title: 'renamed in the second tab', dirty: false });
      expect(writes()).toEqual(['PUT /notes/1']);
    });

    it("IndexedDB refused (indexedDB.open throws): open() rejects with 'unavailable'; with fallback 'memory' writes still go, not durable", async () => {
      await session.context.addInitScript(() => {
        IDBFactory.prototype.open = () => {
          throw new DOMException('The user denied permission to access the database.', 'SecurityError');
        };
      });
      const page = await session.tab(`app.html?api=${encodeURIComponent(server.url)}`);
      await page.waitForFunction(() => window.app !== undefined);
      expect(await page.evaluate(() => window.app!.opened)).toBe('OutboxError unavailable');
      await page.close();

      const fallback = await appTab('&fallback=memory');
      expect(await fallback.evaluate(() => window.app!.snapshot().durable)).toBe(false);
      expect(await fallback.evaluate(() => window.app!.create('in memory'))).toBe('saved');
      expect(titles()).toEqual(['1:one', '2:two', '3:in memory']);
    });
  });
}
