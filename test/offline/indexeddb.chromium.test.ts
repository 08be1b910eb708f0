/**
 * IndexedDBStorage in headless Chromium, from the built package served on 127.0.0.1: a commit
 * survives a reload; a commit is all or nothing (an entry that cannot be stored, a write past the
 * origin's quota, which is OutboxError 'quota'); storage that cannot be opened is OutboxError
 * 'unavailable' (an indexedDB.open that throws, a real sandboxed frame whose opaque origin
 * IndexedDB refuses, a database of a newer version); another tab deleting the database is not
 * blocked by an open storage.
 */
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { chromiumMissing, hasChromium } from '../frameworks/chromium.js';
import { chromiumSession } from './pages.js';

/** What a rejected promise of the page said, as plain data. */
interface Refusal {
  name: string;
  kind?: string;
  message: string;
  cause?: string;
}

if (!hasChromium) {
  chromiumMissing('IndexedDBStorage in a real browser');
} else {
  describe('IndexedDBStorage in Chromium', { timeout: 20_000 }, () => {
    let page: Page;
    const session = chromiumSession((pages) =>
      pages.add(
        'sandboxed.html',
        // An opaque origin (sandbox without allow-same-origin): IndexedDB throws SecurityError there.
        `<!doctype html><iframe sandbox="allow-scripts" srcdoc="<script type=module>
          const { IndexedDBStorage } = await import('${pages.url}dist/offline.js');
          new IndexedDBStorage().load('crm').then(
            () => parent.postMessage({ loaded: true }, '*'),
            (error) => parent.postMessage({ name: error.name, kind: error.kind, message: error.message, cause: error.cause?.name }, '*'));
        </script>"></iframe>
        <script>addEventListener('message', (event) => { window.heard = event.data; });</script>`,
      ),
    );

    beforeEach(async () => {
      page = await session.tab();
    });

    it('a commit survives a reload, in the database named from the outbox', async () => {
      await page.evaluate(async () => {
        const storage = new window.offline!.IndexedDBStorage();
        await storage.load('crm');
        await storage.commit({ put: [{ id: 'a', seq: 1, changes: { name: 'Ed', tags: ['x'] } }, { id: 'b', seq: 2, changes: null }] });
        await storage.commit({ put: [{ id: 'a', seq: 3, changes: { name: 'Edd' } }], delete: ['b'] });
      });
      await page.reload();
      await page.waitForFunction(() => window.offline !== undefined);
      const after = await page.evaluate(async () => {
        const storage = new window.offline!.IndexedDBStorage();
        const entries = await storage.load('crm');
        await storage.close();
        return { entries, databases: (await indexedDB.databases()).map((db) => db.name) };
      });
      expect(after.entries).toEqual([{ id: 'a', seq: 3, changes: { name: 'Edd' } }]);
      expect(after.databases).toEqual(['rest-proxy-outbox:crm']);
    });

    it('a commit with an entry that cannot be stored is refused whole (TypeError), and nothing of it is applied', async () => {
      const result = await page.evaluate(async () => {
        const storage = new window.offline!.IndexedDBStorage({ name: 'torn' });
        await storage.load();
        await storage.commit({ put: [{ id: 'kept', v: 1 }] });
        const bad = { id: 'bad', v: 1 };
        Reflect.set(bad, 'v', () => 1); // a function: not JSON, not cloneable
        const refused = await storage.commit({ put: [{ id: 'new', v: 1 }, bad], delete: ['kept'] }).then(
          () => 'committed',
          (error: Error) => error.name,
        );
        return { refused, entries: await storage.load() };
      });
      expect(result).toEqual({ refused: 'TypeError', entries: [{ id: 'kept', v: 1 }] });
    });

    it("a write past the origin's quota: OutboxError 'quota', nothing applied, and smaller writes go on", async () => {
      const cdp = await session.context.newCDPSession(page);
      await cdp.send('Storage.overrideQuotaForOrigin', { origin: session.pages.url.slice(0, -1), quotaSize: 256 * 1024 });
      const result = await page.evaluate(async () => {
        const storage = new window.offline!.IndexedDBStorage({ name: 'quota' });
        await storage.load();
        await storage.commit({ put: [{ id: 'small', v: 'x' }] });
        const big = 'y'.repeat(2 * 1024 * 1024);
        const refused = await storage.commit({ put: [{ id: 'big', v: big }], delete: ['small'] }).then(
          () => undefined,
          (error: Error & { kind?: string }) => ({ name: error.name, kind: error.kind, message: error.message }),
        );
        const before = await storage.load();
        await storage.commit({ put: [{ id: 'next', v: 'z' }] });
        return { refused, before, after: await storage.load() };
      });
      expect(result.refused).toMatchObject({ name: 'OutboxError', kind: 'quota' });
      expect(result.refused?.message).toContain('QuotaExceededError');
      expect(result.before).toEqual([{ id: 'small', v: 'x' }]);
      expect(result.after).toEqual([{ id: 'next', v: 'z' }, { id: 'small', v: 'x' }]);
    });

    async function refusal(target: Page, name: string): Promise<Refusal | string> {
      return target.evaluate(async (database) => {
        const storage = new window.offline!.IndexedDBStorage({ name: database });
        return storage.load().then(
          () => 'loaded',
          (error: Error & { kind?: string }) => ({ name: error.name, kind: error.kind, message: error.message, cause: error.cause instanceof Error || error.cause instanceof DOMException ? error.cause.name : undefined }),
        );
      }, name);
    }

    it("an indexedDB.open that throws: load() rejects with OutboxError 'unavailable'", async () => {
      await session.context.addInitScript(() => {
        IDBFactory.prototype.open = () => {
          throw new DOMException('The user denied permission to access the database.', 'SecurityError');
        };
      });
      const denied = await session.tab();
      expect(await refusal(denied, 'denied')).toEqual({ name: 'OutboxError', kind: 'unavailable', message: expect.stringContaining('SecurityError'), cause: 'SecurityError' });
    });

    it("a sandboxed frame (opaque origin), where Chromium's IndexedDB refuses: 'unavailable'", async () => {
      await page.goto(`${session.pages.url}sandboxed.html`);
      const seen = await page.waitForFunction(() => window.heard).then((handle) => handle.jsonValue());
      expect(seen).toEqual({ name: 'OutboxError', kind: 'unavailable', message: expect.stringContaining('SecurityError'), cause: 'SecurityError' });
    });

    it("a database left by a newer version of the app: 'unavailable', naming the VersionError", async () => {
      await page.evaluate(
        () =>
          new Promise<void>((resolve, reject) => {
            const request = indexedDB.open('newer', 2);
            request.onsuccess = () => resolve(request.result.close());
            request.onerror = () => reject(request.error);
          }),
      );
      expect(await refusal(page, 'newer')).toMatchObject({ name: 'OutboxError', kind: 'unavailable', cause: 'VersionError' });
    });

    it('gives way to another tab deleting the database: the delete is not blocked, later commits reject', async () => {
      await page.evaluate(async () => {
        const storage = new window.offline!.IndexedDBStorage({ name: 'deleted' });
        window.storage = storage;
        await storage.commit({ put: [{ id: 'a' }] });
      });
      const other = await session.tab();
      const deleted = await other.evaluate(
        () =>
          new Promise<string>((resolve) => {
            const request = indexedDB.deleteDatabase('deleted');
            request.onsuccess = () => resolve('deleted');
            request.onblocked = () => resolve('blocked');
          }),
      );
      expect(deleted).toBe('deleted');
      const next = await page.evaluate(async () => {
        return window.storage!.commit({ put: [{ id: 'b' }] }).then(
          () => 'committed',
          (error: Error & { kind?: string }) => error.kind,
        );
      });
      expect(next).toBe('unavailable');
    });
  });
}
