/**
 * The demo's page of a million orders (orders.html, `npm start`) in Chromium: a virtual grid over
 * a BufferedStore whose rows the demo server computes on request. Scrolled to the middle, the
 * request log shows one read per page, and never the pages scrolled over; a title edited and left
 * is saved with one PUT, shown in the log and kept by the server.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startDemo, type Demo } from '../../demo/server.mjs';
import { chromiumMissing, hasChromium, launchChromium, openPage } from '../frameworks/chromium.js';

const ROW = 24; // demo/app/orders.ts

if (!hasChromium) {
  chromiumMissing('the demo\'s million orders in Chromium');
} else {
  let browser: Browser;
  let demo: Demo;

  beforeAll(async () => {
    demo = await startDemo({ port: 0 });
    browser = await launchChromium();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  it('scrolls a million orders with one read per page in the log, and saves an edit with one PUT', { timeout: 30_000 }, async () => {
    const { page, errors } = await openPage(browser, new URL('/orders.html', demo.url).href);
    const title = (id: number) => page.getByLabel(`title of order ${id}`, { exact: true });
    await title(1).waitFor();
    expect(await title(1).inputValue()).toBe('Order 1');
    await expect.poll(() => page.locator('#orders-status').textContent()).toMatch(/^rows 1 to 25 of 1,000,000/);
    // The middle: row 500,000, then a little further.
    const grid = page.locator('#orders-grid');
    await grid.evaluate((element, top) => {
      element.scrollTop = top;
    }, 500_000 * ROW);
    await title(500_001).waitFor();
    await grid.evaluate((element, top) => {
      element.scrollTop = top;
    }, 500_080 * ROW);
    await title(500_090).waitFor();
    await title(500_090).fill('Edited in the demo');
    await title(500_090).blur();
    // The request log of the page (newest first).
    const logged = async () => (await page.locator('#log .entry').evaluateAll((items) => items.map((item) => `${item.getAttribute('data-method')} ${item.querySelector('.url')?.textContent} ${item.getAttribute('data-status')}`))).reverse();
    await expect.poll(async () => (await logged()).filter((line) => line.startsWith('PUT'))).toEqual(['PUT /api/orders/500090 200']);
    const reads = (await logged()).filter((line) => line.startsWith('GET'));
    const pages = reads.map((line) => Number(/[?&]page=(\d+)/.exec(line)?.[1]));
    expect(reads.every((line) => / 200$/.test(line) && line.includes('limit=100'))).toBe(true);
    expect(new Set(pages).size).toBe(pages.length); // one read per page
    expect(pages[0]).toBe(1);
    expect(pages).toContain(5001);
    expect(pages).toContain(5002);
    // Between the top and the middle, nothing was read.
    expect(pages.every((number) => number <= 4 || (number >= 4999 && number <= 5004))).toBe(true);
    // The status line counts the reads of the log.
    await expect.poll(async () => {
      const said = /(\d+) reads/.exec((await page.locator('#orders-status').textContent()) ?? '')?.[1];
      return Number(said) === (await logged()).filter((line) => line.startsWith('GET')).length;
    }).toBe(true);
    // The server kept the edit: a read of that page has it.
    const answer = await fetch(new URL('/api/orders?start=500089&limit=1', demo.url));
    expect(await answer.json()).toEqual([expect.objectContaining({ id: 500_090, title: 'Edited in the demo' })]);
    expect(errors).toEqual([]);
  });
}
