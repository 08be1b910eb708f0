/**
 * rest-proxy/react and rest-proxy/vue in production builds of React 19 and Vue 3 (Vite), in
 * Chromium, over the demo server with 10,000 users: how many times components render. A load of
 * 10,000 records renders the list once with them and each row once; an edit renders its row only;
 * the changes of one synchronous run make one render; a reload renders only the rows whose record
 * changed, and the detail pane (useRecord on the store's own record) follows it; unmounting
 * releases every subscription. Over a store sorted locally (by name): an edit of another field
 * renders its row and the list once and moves nothing; an edit of the sort key renders its row
 * once and the list once, and the row shows at its new place. The fixture pages are test/frameworks/fixtures/*.html.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../demo/server.mjs';
import { buildPages } from '../../examples/build.mjs';
import { buildDir, chromiumMissing, hasChromium, launchChromium, openPage, type WatchedPage } from './chromium.js';

const USERS = 10_000;
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

type Framework = 'react' | 'vue';

if (!hasChromium) {
  chromiumMissing('rest-proxy/react and rest-proxy/vue renders in a real browser');
} else {
  let browser: Browser;
  let demo: Demo;
  const out = buildDir('framework-fixtures');

  beforeAll(async () => {
    await buildPages({ root: FIXTURES, outDir: join(out.dir, 'site'), pages: ['react.html', 'vue.html'] });
    const db = join(out.dir, 'db.json');
    const users = Array.from({ length: USERS }, (_, i) => ({ id: i + 1, name: `User ${i + 1}`, email: `user${i + 1}@example.com`, age: 20 + (i % 50) }));
    writeFileSync(db, JSON.stringify({ users }));
    demo = await startDemo({ port: 0, db, publicDir: join(out.dir, 'site') });
    browser = await launchChromium();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.close();
    out.remove();
  });

  describe.each<Framework>(['react', 'vue'])('%s', { timeout: 20_000 }, (framework) => {
    let watched: WatchedPage;
    let page: Page;

    beforeAll(async () => {
      watched = await openPage(browser, `${demo.url}${framework}.html`);
      page = watched.page;
      await page.waitForFunction(() => window.fixture !== undefined);
    }, 20_000);

    afterAll(async () => {
      await page?.close();
    });

    beforeEach(async () => {
      await page.evaluate(() => {
        const counts = window.fixture?.counts;
        if (counts === undefined) return;
        Object.assign(counts, { list: 0, shown: [], rows: 0, detail: 0 });
      });
    });

    /** Let every pending notification and render happen (bounded: one frame and a task). */
    async function settle(): Promise<void> {
      await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 20))));
    }

    async function counts(): Promise<{ list: number; shown: number[]; rows: number; detail: number } | undefined> {
      await settle();
      return page.evaluate(() => window.fixture?.counts);
    }

    async function shownRows(): Promise<number> {
      return page.evaluate(() => document.querySelectorAll('#list li').length);
    }

    async function rowText(id: number): Promise<string | null> {
      return page.evaluate((which) => document.querySelector(`#list li[data-id="${which}"]`)?.textContent ?? null, id);
    }

    it(`a load of ${USERS.toLocaleString('en')} records renders the list once with them, and each row once`, async () => {
      await page.evaluate(() => window.fixture?.mount());
      expect(await counts()).toEqual({ list: 1, shown: [0], rows: 0, detail: 0 });
      const loaded = await page.evaluate(() => window.fixture?.store.load().then((records) => records.length));
      expect(loaded).toBe(USERS);
      await page.waitForFunction((count) => document.querySelectorAll('#list li').length === count, USERS);
      // Renders: the first (empty), loading, loaded. Never one per record.
      expect(await counts()).toEqual({ list: 3, shown: [0, 0, USERS], rows: USERS, detail: 0 });
      expect(await rowText(USERS)).toBe(`User ${USERS}`);
    });

    it('an edit renders its own row and the list once, no other row', async () => {
      await page.evaluate(() => window.fixture?.store.getById(11)?.set('name', 'Edited'));
      await page.waitForFunction(() => document.querySelector('#list li[data-id="11"]')?.textContent === 'Edited');
      expect(await counts()).toEqual({ list: 1, shown: [USERS], rows: 1, detail: 0 });
    });

    it('the changes of one synchronous run make one render', async () => {
      await page.evaluate(() => {
        const store = window.fixture?.store;
        store?.getById(1)?.set('name', 'One');
        store?.getById(1)?.set('age', 99);
        store?.getById(2)?.set({ name: 'Two', age: 98 });
        store?.getById(11)?.reject();
      });
      await page.waitForFunction(() => document.querySelector('#list li[data-id="2"]')?.textContent === 'Two');
      expect(await counts()).toEqual({ list: 1, shown: [USERS], rows: 3, detail: 0 });
      expect(await rowText(1)).toBe('One');
      expect(await rowText(11)).toBe('User 11');
    });

    it("a reload renders only the rows whose record changed, and the detail pane follows the store's record", async () => {
      await page.evaluate(() => {
        window.fixture?.store.rejectChanges();
        window.fixture?.unmount();
        window.fixture?.mount(5);
      });
      await page.waitForFunction(() => document.querySelector('#detail')?.textContent === window.fixture?.store.getById(5)?.get('name'));
      await page.evaluate(() => Object.assign(window.fixture?.counts ?? {}, { list: 0, shown: [], rows: 0, detail: 0 }));
      const renamed = `Renamed for ${framework}`;
      const patched = await fetch(new URL('/api/users/5', demo.url), { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: renamed }) });
      expect(patched.status).toBe(200);

      await page.evaluate(() => window.fixture?.store.load().then(() => undefined));
      await page.waitForFunction((name) => document.querySelector('#detail')?.textContent === name, renamed);
      expect(await rowText(5)).toBe(renamed);
      // The list: loading, loaded. One row, and the detail pane once.
      expect(await counts()).toEqual({ list: 2, shown: [USERS, USERS], rows: 1, detail: 1 });
      expect(await shownRows()).toBe(USERS);
    });

    it('unmounting releases every subscription', async () => {
      // The list, each row, the detail pane.
      expect(await page.evaluate(() => window.fixture?.subscriptions())).toBe(USERS + 2);
      await page.evaluate(() => window.fixture?.unmount());
      expect(await page.evaluate(() => window.fixture?.subscriptions())).toBe(0);
      expect(await shownRows()).toBe(0);
    });

    it('useRecord given a record of another model fails with a TypeError naming both', async () => {
      await page.evaluate(() => window.fixture?.mountWrongRecord());
      await settle();
      expect(await page.evaluate(() => window.fixture?.failure())).toBe('TypeError: useRecord: expected a record of users, got a record of others');
      await page.evaluate(() => window.fixture?.unmount());
    });

    describe('over a store sorted locally by name', () => {
      /** The rows shown, in order: id and name. */
      async function shown(): Promise<[number, string][]> {
        return page.evaluate(() => Array.from(document.querySelectorAll<HTMLElement>('#list li'), (li): [number, string] => [Number(li.dataset.id), li.textContent ?? '']));
      }
      async function shownIds(): Promise<number[]> {
        return (await shown()).map(([id]) => id);
      }
      /** The rows shown sorted by name (by code point, as the store compares strings). */
      async function sortedByName(): Promise<[number, string][]> {
        return (await shown()).sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0));
      }

      it('a load renders the list once with the records in order, and each row once', async () => {
        await page.evaluate(() => window.fixture?.mount(undefined, window.fixture.sorted));
        await page.evaluate(() => window.fixture?.sorted.load().then(() => undefined));
        await page.waitForFunction((count) => document.querySelectorAll('#list li').length === count, USERS);
        expect(await counts()).toEqual({ list: 3, shown: [0, 0, USERS], rows: USERS, detail: 0 });
        expect(await shown()).toEqual(await sortedByName());
        expect((await shownIds()).slice(0, 4)).toEqual([5, 1, 10, 100]); // 5 was renamed on the server above
      });

      it('an edit of another field than the sort key renders its own row and the list once, and moves nothing', async () => {
        const before = await shownIds();
        await page.evaluate(() => window.fixture?.sorted.getById(11)?.set('age', 99));
        await page.waitForFunction(() => document.querySelector<HTMLElement>('#list li[data-id="11"]')?.dataset.age === '99');
        expect(await counts()).toEqual({ list: 1, shown: [USERS], rows: 1, detail: 0 });
        expect(await shownIds()).toEqual(before);
      });

      it('an edit of the sort key renders its own row once and the list once, and the row shows at its new place', async () => {
        const before = await shownIds();
        await page.evaluate(() => window.fixture?.sorted.getById(11)?.set('name', 'User 5000 (moved)'));
        await page.waitForFunction(() => document.querySelector('#list li[data-id="11"]')?.textContent === 'User 5000 (moved)');
        expect(await counts()).toEqual({ list: 1, shown: [USERS], rows: 1, detail: 0 });
        expect(await shown()).toEqual(await sortedByName());
        const after = await shownIds();
        // Right after User 5000, and far from where it was.
        expect(after.indexOf(11)).toBe(after.indexOf(5000) + 1);
        expect(after.indexOf(11) - before.indexOf(11)).toBeGreaterThan(1000);
      });

      it('unmounting releases every subscription', async () => {
        expect(await page.evaluate(() => window.fixture?.subscriptions())).toBe(USERS + 1);
        await page.evaluate(() => window.fixture?.unmount());
        expect(await page.evaluate(() => window.fixture?.subscriptions())).toBe(0);
      });
    });

    if (framework === 'react') {
      it('a change made after the first render and before the subscription shows', async () => {
        await page.evaluate(() => window.fixture?.mountEditBeforeSubscribe?.(7));
        await page.waitForFunction(() => document.querySelector('#detail')?.textContent === 'Set before the subscription (edited)');
        await page.evaluate(() => window.fixture?.unmount());
      });
    }

    it('had no uncaught error and no console message', () => {
      expect(watched.errors).toEqual([]);
      // React reports the error its error boundary caught (the wrong record, on purpose) on the console.
      expect(watched.console.filter((line) => !line.startsWith('error: TypeError: useRecord: expected a record of users'))).toEqual([]);
    });
  });
}
