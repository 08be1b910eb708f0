/**
 * A React grid over a BufferedStore of 100,000 rows in Chromium, as a production build
 * (esbuild, the `production` export condition, minified): it scrolls (one read per page, the far
 * pages never read) and edits (a PUT of the edited row, no read). The page and its rows are
 * served by the test server on 127.0.0.1, which computes the rows on request.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../server/index.js';
import { chromiumMissing, hasChromium, launchChromium, openPage } from '../frameworks/chromium.js';
import { computedRows } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

if (!hasChromium) {
  chromiumMissing('a BufferedStore grid in Chromium');
} else {
  let browser: Browser;
  let server: TestServer;

  beforeAll(async () => {
    const bundle = await build({
      entryPoints: [fileURLToPath(new URL('./grid/app.ts', import.meta.url))],
      bundle: true, write: false, format: 'esm', platform: 'browser', minify: true,
      conditions: ['production'], define: { 'process.env.NODE_ENV': '"production"' },
      // The app imports the sources; the production build of the package is dist/prod (the `production` condition).
      plugins: [{ name: 'production-build', setup(plugin) {
        plugin.onResolve({ filter: /src\/(index|buffered|react)\.js$/ }, (args) => ({ path: `${ROOT}dist/prod/${args.path.replace(/^.*src\//, '')}` }));
      } }],
      logLevel: 'silent',
    });
    const code = bundle.outputFiles[0]?.text ?? '';
    server = await startTestServer();
    server.respond('GET', '/', { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: '<!doctype html><meta charset="utf-8"><title>grid</title><link rel="icon" href="data:,"><div id="root"></div><script type="module" src="/app.js"></script>' });
    server.respond('GET', '/app.js', { status: 200, headers: { 'Content-Type': 'text/javascript; charset=utf-8' }, body: code });
    server.respond('PUT', /^\/orders\/\d+$/, (req) => ({ status: 200, body: typeof req.json === 'object' && req.json !== null ? req.json : {} }));
    computedRows(server, 100_000);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('scrolls 100,000 rows reading one page per read, never the pages scrolled past, and saves an edit with one PUT', { timeout: 30_000 }, async () => {
    const { page, errors } = await openPage(browser, `${server.url}/`);
    const grid = page.locator('#grid');
    await page.getByLabel('row 0', { exact: true }).waitFor();
    expect(await page.getByLabel('row 0', { exact: true }).inputValue()).toBe('Order 1');
    expect(await grid.getAttribute('data-count')).toBe('100000');
    // Jump to row 50,000 (the middle), then a little further.
    await grid.evaluate((element) => {
      element.scrollTop = 50_000 * 20;
    });
    await page.getByLabel('row 50000', { exact: true }).waitFor();
    expect(await page.getByLabel('row 50000', { exact: true }).inputValue()).toBe('Order 50001');
    await grid.evaluate((element) => {
      element.scrollTop = 50_090 * 20;
    });
    await page.getByLabel('row 50095', { exact: true }).waitFor();
    // Edit a visible row and save it.
    const input = page.getByLabel('row 50095', { exact: true });
    await input.fill('Edited in Chromium');
    await input.press('Enter');
    await expect.poll(() => server.requests.filter((req) => req.method === 'PUT').map((req) => req.path)).toEqual(['/orders/50096']);
    expect(server.requests.find((req) => req.method === 'PUT')?.json).toMatchObject({ title: 'Edited in Chromium' });
    const reads = server.requests.filter((req) => req.path === '/orders').map((req) => Number(req.query.get('page')));
    expect(new Set(reads).size).toBe(reads.length); // one read per page
    expect(reads.slice(0, 2)).toEqual([1, 2]);
    expect(reads).toContain(501);
    expect(reads.every((number) => number <= 2 || (number >= 500 && number <= 503))).toBe(true);
    expect(await page.getByLabel('row 50095', { exact: true }).inputValue()).toBe('Edited in Chromium');
    expect(errors).toEqual([]);
  });
}
