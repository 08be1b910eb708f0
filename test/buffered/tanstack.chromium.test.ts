/**
 * The React + TanStack Virtual grid of docs/buffered.md (examples/buffered-react, the doc's block
 * is that file, checked here), built by Vite as a production build (minified, the library's
 * `production` build: dist/prod) and driven in Chromium against the test server, which computes
 * 100,000 orders on request: it scrolls (one read per page, the pages scrolled over never read)
 * and edits (a PUT of the edited row on blur, no read).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import ts from 'typescript';
import { build } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../server/index.js';
import { buildDir, chromiumMissing, hasChromium, launchChromium, openPage } from '../frameworks/chromium.js';
import { computedRows } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'buffered-react');
const ROWS = 100_000;
const TYPES: Record<string, string> = { html: 'text/html', js: 'text/javascript', css: 'text/css', map: 'application/json' };

/** The files under `dir`, as paths relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)).map((file) => `${name}/${file}`) : [name]));
}

it('docs/buffered.md shows the grid that is tested here', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'buffered.md'), 'utf8');
  const block = /```tsx\n([\s\S]*?useVirtualizer[\s\S]*?)```\n/.exec(doc)?.[1];
  expect(block).toBe(readFileSync(join(EXAMPLE, 'src', 'OrdersGrid.tsx'), 'utf8'));
});

it('the example type-checks as its app compiles it (JSX, \'rest-proxy\' from the sources)', { timeout: 60_000 }, () => {
  const config = ts.getParsedCommandLineOfConfigFile(join(EXAMPLE, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  expect(config?.fileNames.some((name) => name.endsWith('OrdersGrid.tsx'))).toBe(true);
  const paths = { 'rest-proxy': ['./src/index.ts'], 'rest-proxy/*': ['./src/*.ts'] };
  const program = ts.createProgram(config?.fileNames ?? [], { ...config?.options, noEmit: true, baseUrl: ROOT, paths });
  expect(ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))).toEqual([]);
});

if (!hasChromium) {
  chromiumMissing('the React + TanStack Virtual grid in Chromium');
} else {
  let browser: Browser;
  let server: TestServer;
  const out = buildDir('buffered-react');

  beforeAll(async () => {
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await build({
        root: EXAMPLE, configFile: false, logLevel: 'warn', mode: 'production', plugins: [react()],
        // The package's `production` entries, as an app that installs it gets them.
        resolve: { alias: [{ find: /^rest-proxy$/, replacement: join(ROOT, 'dist', 'prod', 'index.js') }, { find: /^rest-proxy\/(react|buffered)$/, replacement: join(ROOT, 'dist', 'prod', '$1.js') }] },
        build: { outDir: out.dir, emptyOutDir: true, minify: true },
      });
    } finally {
      if (nodeEnv === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = nodeEnv;
    }
    server = await startTestServer();
    for (const file of files(out.dir)) {
      const type = TYPES[file.split('.').pop() ?? ''] ?? 'application/octet-stream';
      const path = `/${relative(out.dir, join(out.dir, file))}`;
      server.respond('GET', file === 'index.html' ? '/' : path, { status: 200, headers: { 'Content-Type': `${type}; charset=utf-8` }, body: readFileSync(join(out.dir, file), 'utf8') });
    }
    server.respond('PUT', /^\/orders\/\d+$/, (req) => ({ status: 200, body: typeof req.json === 'object' && req.json !== null ? req.json : {} }));
    computedRows(server, ROWS);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    out.remove();
  });

  it('scrolls 100,000 orders with one read per page, never the pages scrolled over, and saves an edit with one PUT', { timeout: 30_000 }, async () => {
    const { page, errors } = await openPage(browser, `${server.url}/`);
    const order = (index: number) => page.getByLabel(`order ${index}`, { exact: true });
    // Sorted by date DESC (the computed server sorts by id): the newest order first.
    await order(0).waitFor();
    expect(await order(0).inputValue()).toBe(`Order ${ROWS}`);
    const scroller = page.locator('#root > div');
    // Jump to row 50,000 (32 px a row), then a little further down.
    await scroller.evaluate((element) => {
      element.scrollTop = 50_000 * 32;
    });
    await order(50_005).waitFor();
    expect(await order(50_005).inputValue()).toBe(`Order ${ROWS - 50_005}`);
    await scroller.evaluate((element) => {
      element.scrollTop = 50_090 * 32;
    });
    await order(50_100).waitFor();
    // Edit a visible row; leaving the cell saves it.
    await order(50_100).fill('Edited in Chromium');
    await order(50_100).blur();
    await expect.poll(() => server.requests.filter((req) => req.method === 'PUT').map((req) => req.path)).toEqual([`/orders/${ROWS - 50_100}`]);
    expect(server.requests.find((req) => req.method === 'PUT')?.json).toMatchObject({ title: 'Edited in Chromium' });
    const reads = server.requests.filter((req) => req.path === '/orders');
    const pages = reads.map((req) => Number(req.query.get('page')));
    expect(new Set(pages).size).toBe(pages.length); // one read per page
    expect(reads.every((req) => req.query.get('limit') === '100' && req.query.get('sort') === JSON.stringify([{ property: 'date', direction: 'DESC' }]))).toBe(true);
    expect(pages[0]).toBe(1);
    expect(pages).toContain(501);
    expect(pages).toContain(502);
    // The pages between the top and row 50,000 (and past the leading zone) were never read.
    expect(pages.every((number) => number <= 3 || (number >= 500 && number <= 505))).toBe(true);
    expect(await order(50_100).inputValue()).toBe('Edited in Chromium');
    expect(errors).toEqual([]);
  });
}
