/**
 * The React and Vue examples (examples/react, examples/vue), built with Vite as production builds
 * and served by the demo's server, in Chromium. Both render the same page, so one tour runs on
 * both: first page, an edit that shows at once (row, detail pane, pending marker), Revert, a
 * failed save that shows the server's field errors on the row, a reload that shows the server's
 * new values in the row and in the detail pane (useRecord on the store's own record), paging,
 * sorting, add and delete. Then the development builds: React's StrictMode runs the first load's
 * effect twice and the superseded load shows no error; Vue gives no warning.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { startDemo, type Demo } from '../../demo/server.mjs';
import { buildExample, type ExampleName } from '../../examples/build.mjs';
import { buildDir, chromiumMissing, hasChromium, launchChromium, openPage, type WatchedPage } from './chromium.js';

interface ServerUser {
  id: number;
  name: string;
  email: string;
  age: number | null;
}

function isServerUser(value: unknown): value is ServerUser {
  return typeof value === 'object' && value !== null && 'id' in value && 'name' in value && 'email' in value;
}

/** A built example served by the demo server, and a page on it. */
interface Running {
  demo: Demo;
  watched: WatchedPage;
  close(): Promise<void>;
}

async function run(browser: Browser, name: ExampleName, development: boolean): Promise<Running> {
  const out = buildDir(`example-${name}`);
  let demo: Demo | undefined;
  try {
    await buildExample(name, { outDir: out.dir, development });
    demo = await startDemo({ port: 0, publicDir: out.dir });
    const watched = await openPage(browser, demo.url);
    const started = demo;
    return {
      demo: started,
      watched,
      async close() {
        await watched.page.close();
        await started.close();
        out.remove();
      },
    };
  } catch (error) {
    await demo?.close();
    out.remove();
    throw error;
  }
}

/**
 * Console messages but the browser's own "Failed to load resource" for an error status the tour
 * asks for, and React's development build inviting to install its DevTools.
 */
function unexpectedConsole(watched: WatchedPage): string[] {
  return watched.console.filter((line) => !/^error: Failed to load resource: the server responded with a status of (404|422)|^info: %cDownload the React DevTools/.test(line));
}

if (!hasChromium) {
  chromiumMissing('the React and Vue examples in a real browser');
} else {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
  });

  describe.each<ExampleName>(['react', 'vue'])('the %s example, production build', { timeout: 20_000 }, (name) => {
    let running: Running;
    let page: Page;

    beforeAll(async () => {
      running = await run(browser, name, false);
      page = running.watched.page;
    }, 30_000);

    afterAll(async () => {
      await running?.close();
    });

    // When a step fails, say what the page showed and what it logged.
    afterEach(async (context) => {
      if (context.task.result?.state !== 'fail' || running === undefined) return;
      const shown = await page
        .evaluate(() => ({
          alert: document.querySelector('[role="alert"]')?.textContent,
          status: [...document.querySelectorAll('.status')].map((element) => element.textContent),
          detail: document.querySelector('.detail-state')?.textContent,
          rows: [...document.querySelectorAll('tbody tr')].slice(0, 5).map((tr) => tr.getAttribute('data-id')),
        }))
        .catch((error: unknown) => String(error));
      const { errors, console: logged, requests } = running.watched;
      console.error(`the ${name} example when the step failed:`, shown, '\nrequests:', requests.slice(-6), '\nconsole:', logged, '\nerrors:', errors);
    });

    // ---- helpers ---------------------------------------------------------------------------

    async function api(method: string, path: string, body?: unknown): Promise<{ status: number; data: unknown }> {
      const response = await fetch(new URL(path, running.demo.url), {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, data: text === '' ? undefined : JSON.parse(text) };
    }

    async function serverUser(id: number | string): Promise<ServerUser | undefined> {
      const { status, data } = await api('GET', `/api/users/${id}`);
      return status === 200 && isServerUser(data) ? data : undefined;
    }

    function row(id: number | string): Locator {
      return page.locator(`tbody tr[data-id="${id}"]`);
    }

    function cellInput(target: Locator, field: string): Locator {
      return target.locator(`input[data-field="${field}"]`);
    }

    async function rowIds(): Promise<string[]> {
      return page.$$eval('tbody tr[data-id]', (rows) => rows.map((tr) => tr.getAttribute('data-id') ?? ''));
    }

    /** Type into a cell and leave it with Tab, as a keyboard user does. */
    async function edit(target: Locator, field: string, value: string): Promise<void> {
      const input = cellInput(target, field);
      await input.fill(value);
      await input.press('Tab');
    }

    async function text(selector: string | Locator): Promise<string> {
      return ((await (typeof selector === 'string' ? page.locator(selector) : selector).textContent()) ?? '').trim();
    }

    async function waitForText(selector: string | Locator, pattern: RegExp): Promise<void> {
      const locator = typeof selector === 'string' ? page.locator(selector) : selector;
      await locator.filter({ hasText: pattern }).first().waitFor();
    }

    async function waitForValue(input: Locator, value: string): Promise<void> {
      await expect.poll(() => input.inputValue(), { timeout: 5_000 }).toBe(value);
    }

    async function classesOf(locator: Locator): Promise<string> {
      return (await locator.getAttribute('class')) ?? '';
    }

    async function select(id: number): Promise<void> {
      await row(id).getByRole('button', { name: `Show user ${id}` }).click();
      await waitForText('.detail-state', new RegExp(`^User ${id}`));
    }

    async function save(): Promise<void> {
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator('.actions button.primary', { hasText: /^Save$/ }).waitFor();
    }

    // ---- the tour --------------------------------------------------------------------------

    it('shows the first page: 20 users of 300', async () => {
      await row(20).waitFor();
      expect(await rowIds()).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1)));
      expect(await text('.page-info')).toBe('Page 1 of 15');
      expect(await text('.total')).toBe('300 users');
      expect(await text('.pending')).toBe('No unsaved changes');
      expect(running.watched.requests).toEqual(['GET /api/users?_page=1&_limit=20']);
    });

    it('an edit shows at once: in the row, in the detail pane of its record, and as an unsaved change', async () => {
      await select(3);
      const before = running.watched.requests.length;
      await edit(row(3), 'name', 'Edited In Place');
      await waitForValue(page.locator('#detail-name'), 'Edited In Place');
      expect(await classesOf(row(3).locator('td.cell-name'))).toContain('is-dirty');
      expect(await classesOf(row(3).locator('td.cell-email'))).not.toContain('is-dirty');
      expect(await text('.pending')).toBe('Unsaved changes');
      expect(await text('.detail-state')).toBe('User 3, unsaved changes');
      // Edited in the detail form, it shows in the row.
      await page.locator('#detail-age').fill('61');
      await page.locator('#detail-age').press('Tab');
      await waitForValue(cellInput(row(3), 'age'), '61');
      expect(await classesOf(row(3).locator('td.cell-age'))).toContain('is-dirty');
      // Nothing was sent: the edits are local until Save.
      expect(running.watched.requests.slice(before)).toEqual([]);
    });

    it('Revert drops the edits', async () => {
      const original = await serverUser(3);
      await page.getByRole('button', { name: 'Revert', exact: true }).click();
      await waitForValue(cellInput(row(3), 'name'), original?.name ?? '?');
      expect(await cellInput(row(3), 'age').inputValue()).toBe(String(original?.age));
      expect(await page.locator('#detail-name').inputValue()).toBe(original?.name);
      expect(await classesOf(row(3).locator('td.cell-name'))).not.toContain('is-dirty');
      expect(await text('.pending')).toBe('No unsaved changes');
    });

    it("a failed save shows the server's field errors on the row, and keeps the edit", async () => {
      const before = await serverUser(3);
      await edit(row(3), 'email', 'not-an-email');
      await save();
      const note = row(3).locator('td.cell-email .cell-note');
      await waitForText(note, /./);
      expect(await text(note)).toBe('Email must be an email address, like ann@example.com');
      expect(await classesOf(row(3).locator('td.cell-email'))).toContain('is-invalid');
      expect(await cellInput(row(3), 'email').getAttribute('aria-invalid')).toBe('true');
      // A sentence for the user (userMessage), not the developer's message with its url and status.
      expect(await text('[role="alert"]')).toBe('Some fields need attention.');
      expect(await text('.panel.users .status')).toMatch(/^Not saved/);
      // The detail pane shows the same record, errors included; the edit is kept.
      expect(await text('.detail-field .cell-note')).toBe('must be an email address, like ann@example.com');
      expect(await cellInput(row(3), 'email').inputValue()).toBe('not-an-email');
      expect(await serverUser(3)).toEqual(before);

      // Fixed and saved: the errors go.
      await edit(row(3), 'email', 'fixed@example.com');
      await save();
      await waitForText('.panel.users .status', /^Saved \(1 request\)\.$/);
      expect(await text(row(3).locator('td.cell-email .cell-note'))).toBe('');
      expect(await classesOf(row(3).locator('td.cell-email'))).not.toContain('is-invalid');
      expect(await text('[role="alert"]')).toBe('');
      expect(await serverUser(3)).toEqual(expect.objectContaining({ email: 'fixed@example.com' }));
    });

    it("a reload shows the server's new values, in the row and in the detail pane of the record", async () => {
      await select(4);
      const changed = await api('PATCH', '/api/users/4', { name: 'Renamed On The Server', age: 77 });
      expect(changed.status).toBe(200);
      const before = running.watched.requests.length;
      await page.getByRole('button', { name: 'Reload', exact: true }).click();
      await waitForValue(cellInput(row(4), 'name'), 'Renamed On The Server');
      expect(await cellInput(row(4), 'age').inputValue()).toBe('77');
      // The detail pane holds the record it was given; the store's load updated that very record.
      await waitForValue(page.locator('#detail-name'), 'Renamed On The Server');
      expect(await page.locator('#detail-age').inputValue()).toBe('77');
      expect(await text('.detail-state')).toBe('User 4');
      expect(running.watched.requests.slice(before)).toEqual(['GET /api/users?_page=1&_limit=20']);
    });

    it('pages, and sorts on the server by a header', async () => {
      await page.getByRole('button', { name: 'Next ›' }).click();
      await waitForText('.page-info', /^Page 2 of 15$/);
      expect(await rowIds()).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 21)));

      const header = page.locator('th[data-field="name"]');
      await header.getByRole('button').click();
      await expect.poll(() => header.getAttribute('aria-sort'), { timeout: 5_000 }).toBe('ascending');
      const { data } = await api('GET', '/api/users?_page=1&_limit=20&_sort=name&_order=asc');
      const expected = Array.isArray(data) ? data.filter(isServerUser).map((user) => String(user.id)) : [];
      await expect.poll(rowIds, { timeout: 5_000 }).toEqual(expected);
      expect(await text('.page-info')).toBe('Page 1 of 15');

      await page.locator('th[data-field="id"]').getByRole('button').click();
      await expect.poll(async () => (await rowIds())[0], { timeout: 5_000 }).toBe('1');
    });

    it('adds a user and saves it, then deletes it and saves', async () => {
      await page.getByRole('button', { name: 'Add user' }).click();
      const fresh = page.locator('tbody tr.is-new');
      await fresh.waitFor();
      expect(await text('.detail-state')).toBe('New user, unsaved changes');
      await edit(fresh, 'name', 'Added From ' + name);
      await edit(fresh, 'email', `added.${name}@example.com`);
      await save();
      await waitForText('.panel.users .status', /^Saved \(1 request\)\.$/);
      const { data } = await api('GET', `/api/users?email=added.${name}@example.com`);
      const created = Array.isArray(data) ? data.find(isServerUser) : undefined;
      expect(created).toEqual(expect.objectContaining({ name: 'Added From ' + name }));
      const id = String(created?.id);
      await row(id).waitFor();
      expect(await text('.detail-state')).toBe(`User ${id}`);

      await row(id).getByRole('button', { name: `Delete user ${id}` }).click();
      expect(await row(id).count()).toBe(0);
      expect(await text('.pending')).toBe('Unsaved changes');
      await save();
      await waitForText('.panel.users .status', /^Saved \(1 request\)\.$/);
      expect((await api('GET', `/api/users/${id}`)).status).toBe(404);
    });

    it('had no uncaught error and no console message but the failed requests it asked for', () => {
      expect(running.watched.errors).toEqual([]);
      expect(unexpectedConsole(running.watched)).toEqual([]);
    });
  });

  describe('the development builds', { timeout: 20_000 }, () => {
    it("React: under StrictMode the first load's effect runs twice; the superseded load shows no error", async () => {
      const running = await run(browser, 'react', true);
      try {
        const { page, requests } = running.watched;
        await page.locator('tbody tr[data-id="20"]').waitFor();
        // Two loads were started; the first was superseded (aborted), which the page does not report.
        expect(requests.filter((request) => request.startsWith('GET /api/users?')).sort()).toEqual([
          'GET /api/users?_page=1&_limit=20',
          'GET /api/users?_page=1&_limit=20',
          'GET /api/users?_page=1&_limit=20 failed: net::ERR_ABORTED',
        ]);
        expect((await page.locator('[role="alert"]').textContent())?.trim()).toBe('');
        expect(running.watched.errors).toEqual([]);
        expect(unexpectedConsole(running.watched)).toEqual([]);
      } finally {
        await running.close();
      }
    }, 30_000);

    it('Vue: no warning while the page loads, edits, fails to save and shows the record', async () => {
      const running = await run(browser, 'vue', true);
      try {
        const { page } = running.watched;
        const row = page.locator('tbody tr[data-id="2"]');
        await row.waitFor();
        await row.getByRole('button', { name: 'Show user 2' }).click();
        await row.locator('input[data-field="email"]').fill('broken');
        await row.locator('input[data-field="email"]').press('Tab');
        await page.getByRole('button', { name: 'Save', exact: true }).click();
        await row.locator('td.cell-email .cell-note', { hasText: /^Email must be an email address/ }).waitFor();
        expect(await page.locator('#detail-email').inputValue()).toBe('broken');
        expect(running.watched.errors).toEqual([]);
        expect(unexpectedConsole(running.watched)).toEqual([]);
      } finally {
        await running.close();
      }
    }, 30_000);
  });
}
