/**
 * What the framework tests that run in a browser share: Debian's Chromium driven by
 * playwright-core (skipped without it, except in CI), a page that records what went wrong, and
 * bounded waits.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { test } from 'vitest';

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
