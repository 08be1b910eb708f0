/**
 * rest-proxy/react and rest-proxy/vue follow a ChainedStore and a live summary in Chromium
 * (issue 30): production builds of React 19 and Vue 3 (Vite), the users loaded from the demo
 * server on 127.0.0.1; a component on `useStore(chained)` and one on a live summary of it show
 * the source's adds, edits and removes, the chained store's own filter changes and the source's.
 * Expected lists and totals are worked out here from the rows, apart from the library. The
 * fixture pages are test/frameworks/fixtures/chained-*.html.
 */
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumMissing, fixturePage, fixtureSite, hasChromium } from './chromium.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

interface Row {
  id: number;
  name: string;
  email: string;
  age: number;
}

const ROWS: Row[] = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, name: `User ${String(i + 1).padStart(2, '0')}`, email: `user${i + 1}@example.com`, age: 20 + (((i + 1) * 7) % 25) }));

/** What the page must show for these rows: the chained store's ids (age at least `least`, by name descending) and its totals. */
function expected(rows: readonly Row[], least = 30): { ids: number[]; totals: string } {
  const shown = rows.filter((row) => row.age >= least).sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  const total = shown.reduce((sum, row) => sum + row.age, 0);
  return { ids: shown.map((row) => row.id), totals: `${shown.length} ${total} ${shown.length === 0 ? '-' : Math.max(...shown.map((row) => row.age))}` };
}

type Framework = 'react' | 'vue';

if (!hasChromium) {
  chromiumMissing('React and Vue follow a ChainedStore and a live summary in a real browser');
} else {
  const site = fixtureSite('chained-fixtures', FIXTURES, ['chained-react.html', 'chained-vue.html'], ROWS);

  describe.each<Framework>(['react', 'vue'])('%s', { timeout: 20_000 }, (framework) => {
    const opened = fixturePage(site, `chained-${framework}.html`, () => window.chainedFixture !== undefined);
    let rows = ROWS.map((row) => ({ ...row }));
    const page = (): Page => opened.current.page;

    /** What the page shows now, once it shows `want` (bounded by the page's wait). */
    async function shows(want: { ids: number[]; totals: string }): Promise<{ ids: number[]; totals: string }> {
      await page()
        .waitForFunction((expect) => {
          const ids = [...document.querySelectorAll('#chained li')].map((li) => Number(li.getAttribute('data-id')));
          return JSON.stringify(ids) === JSON.stringify(expect.ids) && document.getElementById('totals')?.textContent === expect.totals;
        }, want)
        .catch(() => undefined);
      return page().evaluate(() => ({
        ids: [...document.querySelectorAll('#chained li')].map((li) => Number(li.getAttribute('data-id'))),
        totals: document.getElementById('totals')?.textContent ?? '',
      }));
    }

    it('shows nothing, then the chained store and its summary after a real load of the source', async () => {
      await page().evaluate(() => window.chainedFixture?.mount());
      expect(await shows({ ids: [], totals: '0 0 -' })).toEqual({ ids: [], totals: '0 0 -' });
      const loaded = await page().evaluate(() => window.chainedFixture?.store.load().then((records) => records.length));
      expect(loaded).toBe(ROWS.length);
      expect(opened.current.requests).toContain('GET /api/users');
      expect(await shows(expected(rows))).toEqual(expected(rows));
    });

    it('follows an add to the source (through the chained store) and to the source itself', async () => {
      await page().evaluate(() => {
        window.chainedFixture?.chained.add({ id: 101, name: 'Zoe', email: 'zoe@example.com', age: 50 });
        window.chainedFixture?.store.add({ id: 102, name: 'Amy', email: 'amy@example.com', age: 31 });
        window.chainedFixture?.store.add({ id: 103, name: 'Young', email: 'young@example.com', age: 21 });
      });
      rows.push({ id: 101, name: 'Zoe', email: 'zoe@example.com', age: 50 }, { id: 102, name: 'Amy', email: 'amy@example.com', age: 31 }, { id: 103, name: 'Young', email: 'young@example.com', age: 21 });
      expect(await shows(expected(rows))).toEqual(expected(rows));
    });

    it('follows edits: of the sort key (moves), of the filtered field (leaves, comes), of the summed field', async () => {
      const shown = expected(rows).ids;
      const [first, second, third] = shown;
      const hidden = rows.find((row) => row.age < 30 && row.id !== 103)?.id;
      await page().evaluate(({ first, second, third, hidden }) => {
        const store = window.chainedFixture?.store;
        store?.getById(first)?.set('name', 'AAA first');
        store?.getById(second)?.set('age', 29);
        store?.getById(third)?.set('age', 44);
        store?.getById(hidden)?.set('age', 60);
      }, { first, second, third, hidden });
      rows = rows.map((row) => (row.id === first ? { ...row, name: 'AAA first' } : row.id === second ? { ...row, age: 29 } : row.id === third ? { ...row, age: 44 } : row.id === hidden ? { ...row, age: 60 } : row));
      expect(await shows(expected(rows))).toEqual(expected(rows));
    });

    it('follows removes from the source and from the chained store', async () => {
      const [first] = expected(rows).ids;
      await page().evaluate((first) => {
        const fixture = window.chainedFixture;
        const record = fixture?.chained.getAt(0);
        if (record === undefined || record.getId() !== first) throw new Error('not the first shown');
        fixture?.chained.remove(record);
        const other = fixture?.store.getById(101);
        if (other !== undefined) fixture?.store.remove(other);
      }, first);
      rows = rows.filter((row) => row.id !== first && row.id !== 101);
      expect(await shows(expected(rows))).toEqual(expected(rows));
    });

    it("follows its own filter changes and the source's", async () => {
      await page().evaluate(() => window.chainedFixture?.chained.filter('age', 40, '>='));
      expect(await shows(expected(rows, 40))).toEqual(expected(rows, 40));
      await page().evaluate(() => window.chainedFixture?.chained.filter('age', 30, '>='));
      expect(await shows(expected(rows))).toEqual(expected(rows));
      await page().evaluate(() => window.chainedFixture?.store.filter('age', 40, '<'));
      const source = rows.filter((row) => row.age < 40);
      expect(await shows(expected(source))).toEqual(expected(source));
      await page().evaluate(() => window.chainedFixture?.store.clearFilter());
      expect(await shows(expected(rows))).toEqual(expected(rows));
    });

    it('renders each component once per synchronous run of changes', async () => {
      const before = await page().evaluate(() => ({ ...window.chainedFixture?.renders }));
      const ids = expected(rows).ids.slice(0, 3);
      await page().evaluate((ids) => {
        for (const id of ids) window.chainedFixture?.store.getById(id)?.set('age', 45);
      }, ids);
      rows = rows.map((row) => (ids.includes(row.id) ? { ...row, age: 45 } : row));
      expect(await shows(expected(rows))).toEqual(expected(rows));
      const after = await page().evaluate(() => ({ ...window.chainedFixture?.renders }));
      expect({ list: (after.list ?? 0) - (before.list ?? 0), totals: (after.totals ?? 0) - (before.totals ?? 0) }).toEqual({ list: 1, totals: 1 });
    });

    it('unmounts, and had no uncaught error and no console message', async () => {
      await page().evaluate(() => window.chainedFixture?.unmount());
      expect(await page().evaluate(() => document.querySelectorAll('#chained li').length)).toBe(0);
      expect(opened.current.errors).toEqual([]);
      expect(opened.current.console).toEqual([]);
    });
  });
}
