/**
 * The demo's fresh reads (issue 32, item 6) in Chromium: the mark over the grid follows the store's
 * snapshot (`isStale`, `isFetching`, `loading`). The loaded page is fresh; past `staleTime` (30 s,
 * the page's clock moved on) it is marked stale (the mark and the table's `is-stale` class) and
 * nothing is fetched by itself; the next load shows "checking with the server" and then fresh.
 * A Node test driving Chromium.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../demo/server.mjs';
import { chromiumMissing, hasChromium, launchChromium } from '../frameworks/chromium.js';

if (!hasChromium) {
  chromiumMissing('the demo marks its page fresh, stale and being checked');
} else {
  describe('the demo marks its page fresh, stale and being checked', { timeout: 30_000 }, () => {
    let browser: Browser;
    let demo: Demo;
    let page: Page;
    const errors: string[] = [];
    const reads: string[] = [];

    beforeAll(async () => {
      demo = await startDemo({ port: 0 });
      browser = await launchChromium();
      page = await browser.newPage();
      page.setDefaultTimeout(10_000);
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (request.method() === 'GET' && url.pathname === '/api/users') reads.push(url.search);
      });
      // The page's own clock, to move past staleTime without waiting; every mark the page shows, in order.
      await page.clock.install();
      await page.addInitScript(() => {
        const marks: string[] = [];
        Reflect.set(window, 'marks', marks);
        new MutationObserver(() => {
          const state = document.querySelector('#freshness')?.getAttribute('data-state');
          if (state !== null && state !== undefined && marks.at(-1) !== state) marks.push(state);
        }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-state'] });
      });
      await page.goto(demo.url);
    }, 30_000);

    afterAll(async () => {
      await Promise.all([browser?.close(), demo?.close()]);
    });

    const waitForMark = (state: string): Promise<unknown> => page.waitForFunction((which) => document.querySelector('#freshness')?.getAttribute('data-state') === which, state);
    const stale = (): Promise<boolean> => page.evaluate(() => document.querySelector('#users')?.classList.contains('is-stale') ?? false);
    const marks = (): Promise<unknown> => page.evaluate(() => Reflect.get(window, 'marks'));
    const rows = (): Promise<number> => page.evaluate(() => document.querySelectorAll('#users tbody tr').length);

    it('shows a spinner mark while nothing is shown, then the loaded page fresh', async () => {
      await waitForMark('fresh');
      expect(await marks()).toEqual(['empty', 'loading', 'fresh']);
      expect(await page.textContent('#freshness')).toMatch(/^Fresh \(/);
      expect(await stale()).toBe(false);
      expect(await rows()).toBe(20);
    });

    it('past staleTime the page is marked stale, and nothing is fetched by itself', async () => {
      const before = reads.length;
      await page.clock.fastForward(31_000);
      await waitForMark('stale');
      expect(await stale()).toBe(true);
      expect(await page.textContent('#freshness')).toMatch(/^Stale \(.*\): older than 30 s/);
      expect(await rows()).toBe(20);
      expect(reads.length).toBe(before);
    });

    it('the next load marks the page as being checked, then fresh again', async () => {
      await page.getByRole('button', { name: /Next/ }).first().click();
      await waitForMark('fresh');
      expect(await marks()).toEqual(['empty', 'loading', 'fresh', 'stale', 'fetching', 'fresh']);
      expect(await stale()).toBe(false);
      expect(reads.at(-1)).toMatch(/_page=2/);
      expect(errors).toEqual([]);
    });
  });
}
