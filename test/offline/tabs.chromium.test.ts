/**
 * Tab coordination in headless Chromium, from the built package served on 127.0.0.1, in real
 * tabs of one profile: with Web Locks, one leader, each tab's liveness seen through its lock
 * (navigator.locks.query), broadcasts to the other tabs, and the leader's tab closed -> another
 * tab leads within a second and the closed one is no longer live. The same with the lease (Web
 * Locks left out, as on an insecure origin): one leader, the closed leader replaced.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumMissing, hasChromium } from '../frameworks/chromium.js';
import { chromiumSession, within } from './pages.js';

if (!hasChromium) {
  chromiumMissing('tab coordination in a real browser');
} else {
  describe('tabs in Chromium', { timeout: 20_000 }, () => {
    const session = chromiumSession();

    /** A tab that joined `name`; it records what it hears in `window.heard`. */
    async function join(name: string, lease = false): Promise<{ page: Page; id: string }> {
      const page = await session.tab();
      const id = await page.evaluate(
        async ([group, withoutLocks]) => {
          const heard: unknown[] = [];
          window.heard = heard;
          const tabs = window.tabs!.joinTabs(group, withoutLocks ? { locks: null, heartbeat: 200 } : {});
          await tabs.ready;
          tabs.onMessage((message) => heard.push(message));
          tabs.onLeaderChange((leads) => heard.push({ leads }));
          window.joined = tabs;
          return tabs.tabId;
        },
        [name, lease] as const,
      );
      return { page, id };
    }

    const leads = (page: Page): Promise<boolean> => page.evaluate(() => window.joined?.isLeader === true);
    const live = (page: Page): Promise<string[]> => page.evaluate(async () => ((await window.joined?.liveTabs()) ?? []).sort());
    const heard = (page: Page): Promise<unknown[]> => page.evaluate(() => (Array.isArray(window.heard) ? window.heard : []));

    it('Web Locks: one leader, both tabs live, broadcasts to the other tab only', async () => {
      const a = await join('crm');
      const b = await join('crm');
      expect([await leads(a.page), await leads(b.page)]).toEqual([true, false]);
      expect(await live(b.page)).toEqual([a.id, b.id].sort());
      const held = await a.page.evaluate(async () => ((await navigator.locks.query()).held ?? []).map((lock) => lock.name).sort());
      expect(held).toEqual(['rest-proxy-outbox:crm', `rest-proxy-outbox:crm:tab:${a.id}`, `rest-proxy-outbox:crm:tab:${b.id}`].sort());
      await a.page.evaluate(() => window.joined?.broadcast({ type: 'changed', ids: ['c1'] }));
      await within(2_000, async () => (await heard(b.page)).length > 0);
      expect(await heard(b.page)).toEqual([{ type: 'changed', ids: ['c1'] }]);
      expect(await heard(a.page)).toEqual([]);
    });

    it("Web Locks: the leader's tab closed, the other leads within a second, and sees it gone", async () => {
      const a = await join('crm');
      const b = await join('crm');
      await a.page.close();
      const took = await within(5_000, () => leads(b.page));
      expect(took).toBeLessThan(1_000);
      expect(await heard(b.page)).toEqual([{ leads: true }]);
      expect(await live(b.page)).toEqual([b.id]);
    });

    it('the lease, without Web Locks: one leader, the closed leader replaced', async () => {
      const a = await join('lease', true);
      const b = await join('lease', true);
      await within(3_000, async () => (await leads(a.page)) !== (await leads(b.page)));
      const [leader, other] = (await leads(a.page)) ? [a, b] : [b, a];
      expect(await live(other.page)).toEqual([a.id, b.id].sort());
      await leader.page.close();
      // The goodbye on pagehide, or else the lease's expiry (3 beats of 200 ms).
      expect(await within(5_000, () => leads(other.page))).toBeLessThan(1_500);
      expect(await live(other.page)).toEqual([other.id]);
    });
  });
}
