/**
 * useOutbox of rest-proxy/react and rest-proxy/vue, and React's useSyncExternalStore given the
 * outbox's `subscribe` and `getSnapshot` as plain function values (API.md 10: they are bound), in
 * production builds (Vite) in Chromium, over the demo server (json-server) on 127.0.0.1. A save
 * through the outbox whose request is held shows as sending, then, answered, as done.
 * The fixture pages are test/frameworks/fixtures/outbox-*.html.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../demo/server.mjs';
import { buildPages } from '../../examples/build.mjs';
import { buildDir, chromiumMissing, hasChromium, launchChromium, openPage } from './chromium.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

if (!hasChromium) {
  chromiumMissing('useOutbox in a real browser');
} else {
  let browser: Browser;
  let demo: Demo;
  const out = buildDir('outbox-fixtures');

  beforeAll(async () => {
    await buildPages({ root: FIXTURES, outDir: join(out.dir, 'site'), pages: ['outbox-react.html', 'outbox-vue.html'] });
    demo = await startDemo({ port: 0, publicDir: join(out.dir, 'site') });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.close();
    out.remove();
  });

  describe.each([
    ['react', ['#hook', '#plain']],
    ['vue', ['#hook']],
  ] as const)('%s', { timeout: 20_000 }, (framework, shown) => {
    it('shows the outbox snapshot and follows it: a held save is sending, then done', async () => {
      const watched = await openPage(browser, `${demo.url}outbox-${framework}.html`);
      const { page } = watched;
      try {
        await page.waitForFunction(() => window.outboxFixture !== undefined);
        const texts = () => Promise.all(shown.map((selector) => page.textContent(selector)));
        expect(await texts()).toEqual(shown.map(() => 'pending 0, sending 0, failed 0'));
        // The POST is held until the test lets it go.
        let held: (route: Route) => void = () => undefined;
        const route = new Promise<Route>((resolve) => (held = resolve));
        await page.route('**/api/users', (request) => (request.request().method() === 'POST' ? held(request) : request.continue()));
        const saved = page.evaluate(() => window.outboxFixture?.save());
        const request = await route;
        await page.waitForFunction((selectors) => selectors.every((selector) => document.querySelector(selector)?.textContent === 'pending 0, sending 1, failed 0'), shown);
        await request.continue();
        await saved;
        await page.waitForFunction((selectors) => selectors.every((selector) => document.querySelector(selector)?.textContent === 'pending 0, sending 0, failed 0'), shown);
        expect(watched.errors).toEqual([]);
      } finally {
        await page.close();
      }
    });
  });
}
