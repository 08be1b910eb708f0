/**
 * Server rendering and hydration (API.md section 13) end to end: Node renders a store it loaded
 * from the demo server with React's renderToString and puts `store.dehydrate()` in the page; in
 * Chromium, a production build of React 19 hydrates that HTML (hydrateRoot) with a store made from
 * the state: no mismatch reported, the rows on screen at once, and no request for them within
 * `staleTime` (autoLoad and useStore's subscription included). A page whose HTML does not match
 * its state is reported, so the check can fail. The fixture page is test/frameworks/fixtures/hydrate.html.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../demo/server.mjs';
import { buildPages } from '../../examples/build.mjs';
import { RestProxy, Store, type StoreState } from '../../src/index.js';
import { buildDir, chromiumMissing, hasChromium, launchChromium, openPage, type WatchedPage } from './chromium.js';
import { STALE_TIME, User, Users } from './fixtures/hydrate-app.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const USERS = [{ id: 1, name: 'Ann' }, { id: 2, name: 'Ben' }, { id: 3, name: 'Cy' }];

if (!hasChromium) {
  chromiumMissing('server rendering hydrated in a real browser');
} else {
  let browser: Browser;
  let demo: Demo;
  const out = buildDir('hydrate');
  const site = join(out.dir, 'site');

  beforeAll(async () => {
    await buildPages({ root: FIXTURES, outDir: site, pages: ['hydrate.html'] });
    const db = join(out.dir, 'db.json');
    writeFileSync(db, JSON.stringify({ users: USERS }));
    demo = await startDemo({ port: 0, db, publicDir: site });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), demo?.close()]);
    out.remove();
  });

  /** What a server does per request: its own store, loaded, rendered, and its state for the page. */
  async function renderRequest(): Promise<{ html: string; state: StoreState }> {
    const store = new Store<User>({ model: User, proxy: new RestProxy({ url: `${demo.url}api/users` }), staleTime: STALE_TIME });
    await store.load();
    return { html: renderToString(h(Users, { store })), state: store.dehydrate() };
  }

  /** The built page with the server's HTML and state in it, written as `name` next to it. */
  function writePage(name: string, html: string, state: StoreState): string {
    const page = readFileSync(join(site, 'hydrate.html'), 'utf8');
    const json = JSON.stringify(state).replace(/</g, '\\u003c');
    const filled = page.replace('<div id="app"></div>', `<div id="app">${html}</div><script id="state" type="application/json">${json}</script>`);
    if (filled === page) throw new Error('hydrate.html has no <div id="app"></div>');
    writeFileSync(join(site, name), filled);
    return `${demo.url}${name}`;
  }

  /** Open the page and wait until it hydrated and its effects ran (a frame and a task after). */
  async function hydrated(url: string): Promise<{ watched: WatchedPage; errors: string[]; count: number; list: string[] }> {
    const watched = await openPage(browser, url);
    const page = watched.page;
    await page.waitForFunction(() => window.hydration !== undefined);
    await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50))));
    const result = await page.evaluate(() => ({
      errors: window.hydration?.errors ?? [],
      count: window.hydration?.count() ?? -1,
      list: [...document.querySelectorAll('#users li')].map((item) => item.textContent ?? ''),
    }));
    return { watched, ...result };
  }

  describe('server rendering hydrated in Chromium', { timeout: 30_000 }, () => {
    it('hydrates the server HTML with the store made from its state: no mismatch, the rows at once, no refetch within staleTime', async () => {
      const { html, state } = await renderRequest();
      expect(html).toBe('<ul id="users" aria-busy="false" data-stale="false"><li>Ann</li><li>Ben</li><li>Cy</li></ul>');
      const { watched, errors, count, list } = await hydrated(writePage('ssr.html', html, state));
      expect(errors).toEqual([]);
      expect(watched.errors).toEqual([]);
      expect(watched.console.filter((line) => line.startsWith('error') || line.startsWith('warning'))).toEqual([]);
      expect(count).toBe(3);
      expect(list).toEqual(['Ann', 'Ben', 'Cy']);
      expect(await watched.page.getAttribute('#users', 'data-stale')).toBe('false');
      // The rows came with the page: the browser asked the server for none of them.
      expect(watched.requests).toEqual([]);
      await watched.page.close();
    });

    it('HTML that does not match the state is reported by React (the check above can fail)', async () => {
      const { html, state } = await renderRequest();
      const { watched, errors, list } = await hydrated(writePage('ssr-mismatch.html', html.replace('Ben', 'Bob'), state));
      expect(errors.length + watched.console.filter((line) => line.startsWith('error')).length).toBeGreaterThan(0);
      // React renders the client's rows instead.
      expect(list).toEqual(['Ann', 'Ben', 'Cy']);
      await watched.page.close();
    });
  });
}
