/**
 * IndexedDBStorage when the browser dies: Chromium (its own process, on a profile directory) is
 * killed with SIGKILL right after commits resolved, with more commits still in flight; started
 * again on the same profile, the page finds every commit that had resolved, whole, and of the
 * ones in flight each either whole or not at all. A reload keeps the browser (and its IndexedDB
 * backend) alive; this does not.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumMissing, hasChromium } from '../frameworks/chromium.js';
import { servePages, type Pages } from './pages.js';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--remote-debugging-port=0'];

/** Chromium on `profile`, driven over CDP, in a process group of its own (killAll ends every process of it). */
async function start(profile: string): Promise<{ browser: Browser; process: ChildProcess }> {
  const child = spawn(CHROMIUM, [...ARGS, `--user-data-dir=${profile}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${text}`)), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const found = /DevTools listening on (ws:\S+)/.exec(text);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.on('exit', () => reject(new Error(`Chromium exited: ${text}`)));
  });
  return { browser: await chromium.connectOverCDP(endpoint), process: child };
}

/** SIGKILL to the browser and all its processes (a renderer or the storage service left alive writes on in the profile); resolves once the browser exited. */
async function killAll(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  await exited;
}

if (!hasChromium) {
  chromiumMissing('IndexedDBStorage across a killed browser');
} else {
  describe('IndexedDBStorage across a killed browser', { timeout: 30_000 }, () => {
    let pages: Pages;
    const profile = mkdtempSync(join(tmpdir(), 'rest-proxy-idb-crash-'));

    beforeAll(async () => {
      pages = await servePages();
    });

    afterAll(async () => {
      await pages?.close();
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    });

    it('finds every resolved commit after SIGKILL, and no commit in part', async () => {
      const first = await start(profile);
      const page = first.browser.contexts()[0]!.pages()[0] ?? (await first.browser.contexts()[0]!.newPage());
      await page.goto(`${pages.url}page.html`);
      await page.waitForFunction(() => window.offline !== undefined);
      await page.evaluate(async () => {
        const storage = new window.offline!.IndexedDBStorage({ name: 'crash' });
        await storage.load();
        for (let n = 0; n < 20; n++) await storage.commit({ put: [{ id: `a${n}`, n }, { id: `b${n}`, n }] });
        // In flight when the browser dies: each lands whole or not at all.
        for (let n = 20; n < 40; n++) void storage.commit({ put: [{ id: `a${n}`, n }, { id: `b${n}`, n }] }).catch(() => undefined);
      });
      await killAll(first.process);

      const second = await start(profile);
      try {
        const again = second.browser.contexts()[0]!.pages()[0] ?? (await second.browser.contexts()[0]!.newPage());
        await again.goto(`${pages.url}page.html`);
        await again.waitForFunction(() => window.offline !== undefined);
        const ids = await again.evaluate(async () => (await new window.offline!.IndexedDBStorage({ name: 'crash' }).load()).map((entry) => entry.id));
        for (let n = 0; n < 20; n++) expect(ids).toEqual(expect.arrayContaining([`a${n}`, `b${n}`]));
        for (let n = 20; n < 40; n++) expect(ids.includes(`a${n}`)).toBe(ids.includes(`b${n}`));
      } finally {
        await killAll(second.process);
      }
    });
  });
}
