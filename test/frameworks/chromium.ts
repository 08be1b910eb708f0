/**
 * What the framework tests that run in a browser share: Debian's Chromium driven by
 * playwright-core (skipped without it, except in CI), a page that records what went wrong, and
 * bounded waits.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, test } from 'vitest';
import { startDemo, type Demo } from '../../demo/server.mjs';
import { buildPages } from '../../examples/build.mjs';

// Debian's Chromium (apt-get install -y chromium); DEMO_CHROMIUM points elsewhere.
export const CHROMIUM = process.env.DEMO_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'];

export const hasChromium = existsSync(CHROMIUM);

/** Without Chromium: one test that says so (skipped, or failed in CI). */
export function chromiumMissing(what: string): void {
  test(what, (context) => {
    const message = `${CHROMIUM} is missing: install it with apt-get install -y chromium`;
    if (process.env.CI === 'true') throw new Error(`${what} needs Chromium in CI. ${message}`);
    console.warn(`${what}: skipped: ${message}`);
    context.skip(`skipped: ${message}`);
  });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 20_000 });
}

/** A page that keeps its uncaught errors and console messages, with a bounded default wait. */
export interface WatchedPage {
  page: Page;
  /** Uncaught exceptions of the page. */
  errors: string[];
  /** Console messages, as `type: text`. */
  console: string[];
  /** The requests the page sent to /api, as `METHOD /path?query`, and those that failed (`... failed: reason`). */
  requests: string[];
}

export async function openPage(browser: Browser, url: string): Promise<WatchedPage> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(6_000);
  const watched: WatchedPage = { page, errors: [], console: [], requests: [] };
  const api = (request: Request): string | undefined => {
    const address = new URL(request.url());
    return address.pathname.startsWith('/api/') ? `${request.method()} ${address.pathname}${address.search}` : undefined;
  };
  page.on('pageerror', (error) => watched.errors.push(error.message));
  page.on('console', (message) => watched.console.push(`${message.type()}: ${message.text()}`));
  page.on('request', (request) => {
    const seen = api(request);
    if (seen !== undefined) watched.requests.push(seen);
  });
  page.on('requestfailed', (request) => {
    const seen = api(request);
    if (seen !== undefined) watched.requests.push(`${seen} failed: ${request.failure()?.errorText ?? 'unknown'}`);
  });
  await page.goto(url);
  return watched;
}

/** A temporary directory for a build, removed by the returned function. */
export function buildDir(name: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `rest-proxy-${name}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What {@link fixtureSite} serves: Chromium, and the address of the demo server (ends with `/`). */
export interface FixtureSite {
  readonly browser: Browser;
  readonly url: string;
}

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not started (read it in a test or a beforeAll)`);
  return value;
}

/**
 * Before the file's tests: `pages` of `fixtures` built with Vite, the demo server serving them
 * on 127.0.0.1 (with these `users` in its database, if given) and Chromium; all stopped after.
 */
export function fixtureSite(name: string, fixtures: string, pages: string[], users?: readonly object[]): FixtureSite {
  const out = buildDir(name);
  let demo: Demo | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    await buildPages({ root: fixtures, outDir: join(out.dir, 'site'), pages });
    const db = join(out.dir, 'db.json');
    if (users !== undefined) writeFileSync(db, JSON.stringify({ users }));
    demo = await startDemo(users === undefined ? { port: 0, publicDir: join(out.dir, 'site') } : { port: 0, db, publicDir: join(out.dir, 'site') });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
    out.remove();
  });
  return {
    get browser() {
      return started(browser, 'Chromium');
    },
    get url() {
      return started(demo, 'The demo server').url;
    },
  };
}

/** Before the describe block's tests: `path` of the site open in a watched page, once `ready` holds in it; closed after. */
export function fixturePage(site: FixtureSite, path: string, ready: () => boolean): { readonly current: WatchedPage } {
  let watched: WatchedPage | undefined;
  beforeAll(async () => {
    watched = await openPage(site.browser, `${site.url}${path}`);
    await watched.page.waitForFunction(ready);
  }, 20_000);
  afterAll(async () => {
    await watched?.page.close();
  });
  return {
    get current() {
      return started(watched, 'The page');
    },
  };
}
