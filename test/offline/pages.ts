/**
 * What the Node-driven Chromium tests of rest-proxy/offline share: the built package (dist/, as
 * `npm run build` makes it; `npm test` builds first) served from 127.0.0.1 with a page that
 * imports it, as an app would, and Debian's Chromium through playwright-core
 * (test/frameworks/chromium.ts: skipped without it, except in CI).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { launchChromium } from '../frameworks/chromium.js';

declare global {
  interface Window {
    /** rest-proxy/offline, as built (dist/offline.js). */
    offline?: typeof import('../../src/offline.js');
    /** Its tab coordination (dist/offline/tabs.js). */
    tabs?: typeof import('../../src/offline/tabs.js');
    /** The main package (dist/index.js). */
    restProxy?: typeof import('../../src/index.js');
    /** A storage a test keeps between two calls into the page. */
    storage?: import('../../src/offline.js').OutboxStorage;
    /** The tabs a test's page joined. */
    joined?: import('../../src/offline/tabs.js').Tabs;
    /** What a page heard (a frame's message, other tabs' messages). */
    heard?: unknown;
  }
}

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.html': 'text/html', '.map': 'application/json' };

/** The page every test opens: the package on `window`, nothing else. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>rest-proxy/offline</title>
<script type="module">
import * as offline from '/dist/offline.js';
import * as tabs from '/dist/offline/tabs.js';
import * as restProxy from '/dist/index.js';
Object.assign(window, { offline, tabs, restProxy });
</script>`;

export interface Pages {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  /** Serve `body` at `/<name>` (HTML, or JavaScript for a name ending in .js). */
  add(name: string, body: string): void;
  close(): Promise<void>;
}

/** Serve dist/ and the test pages from 127.0.0.1; every answer is CORS-open (a sandboxed frame loads it from an opaque origin). */
export async function servePages(): Promise<Pages> {
  if (!existsSync(join(DIST, 'offline.js'))) throw new Error('dist/offline.js is missing: run `npm run build` first');
  const extra = new Map<string, string>([['/page.html', PAGE]]);
  const type = (path: string): string => TYPES[extname(path)] ?? 'application/octet-stream';
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const send = (status: number, type: string, body: string | Buffer): void => {
      response.writeHead(status, { 'content-type': type, 'access-control-allow-origin': '*', 'cache-control': 'no-store' });
      response.end(body);
    };
    const page = extra.get(path);
    if (page !== undefined) return send(200, type(path), page);
    const file = normalize(join(DIST, decodeURIComponent(path.replace(/^\/dist\//, ''))));
    if (!path.startsWith('/dist/') || !file.startsWith(DIST) || file.includes(`${sep}..`)) return send(404, 'text/plain', 'not found');
    readFile(file).then(
      (body) => send(200, type(file), body),
      () => send(404, 'text/plain', 'not found'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const port = address.port;
  return {
    url: `http://127.0.0.1:${port}/`,
    add: (name, body) => void extra.set(`/${name}`, body),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Serve the pages of `context` from Node even when it is offline, as an app's service worker
 * would from its cache: `context.setOffline(true)` then cuts the page off its API server only.
 */
export async function cacheApp(context: BrowserContext, pages: Pages): Promise<void> {
  // Pages served by a route count as public: let them reach the API server on 127.0.0.1 (Local Network Access).
  await context.grantPermissions(['local-network-access']);
  await context.route(`${pages.url}**`, async (route) => {
    const response = await fetch(route.request().url());
    await route.fulfill({ status: response.status, headers: Object.fromEntries(response.headers), body: Buffer.from(await response.arrayBuffer()) });
  });
}

/** A new tab on the test page, once the package is loaded; its uncaught errors go to `errors`. */
export async function openTab(context: BrowserContext, url: string, errors: string[] = []): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(6_000);
  // A navigation (goto, reload) took over 6 s with two Chromium files side by side on a loaded machine (load average 18).
  page.setDefaultNavigationTimeout(20_000);
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForFunction(() => window.offline !== undefined && window.tabs !== undefined);
  return page;
}

/** Poll `condition` in Node until it holds; the time it took, in ms. */
export async function within(ms: number, condition: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  while (!(await condition())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - start;
}

/** The browser and pages of a describe block: one Chromium and server for the block, a fresh profile (context) per test. */
export interface ChromiumSession {
  readonly pages: Pages;
  readonly context: BrowserContext;
  /** A new tab on the test page (or `path`), once the package is loaded. */
  tab(path?: string): Promise<Page>;
}

/** Register the hooks (call inside a describe): uncaught page errors fail the test. */
export function chromiumSession(setup: (pages: Pages) => void = () => undefined): ChromiumSession {
  let browser: Browser | undefined;
  let pages: Pages | undefined;
  let context: BrowserContext | undefined;
  const errors: string[] = [];
  beforeAll(async () => {
    pages = await servePages();
    setup(pages);
    browser = await launchChromium();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
  });
  beforeEach(async () => {
    context = await browser?.newContext();
  });
  afterEach(async () => {
    await context?.close();
    expect(errors.splice(0)).toEqual([]);
  });
  const session: ChromiumSession = {
    get pages(): Pages {
      if (pages === undefined) throw new Error('no pages before beforeAll');
      return pages;
    },
    get context(): BrowserContext {
      if (context === undefined) throw new Error('no browser context before beforeEach');
      return context;
    },
    tab: (path = 'page.html') => openTab(session.context, `${session.pages.url}${path}`, errors),
  };
  return session;
}
