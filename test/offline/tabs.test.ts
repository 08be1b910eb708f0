/**
 * Tab coordination in Node: a single tab by default (no browser), and the BroadcastChannel lease
 * (the fallback where Web Locks are missing) over Node's own BroadcastChannel, with short beats:
 * one leader among the tabs, messages to the others only, a closed leader replaced at once, a
 * silent (crashed) one within its expiry, and a silent leader that comes back: one of the two yields.
 * test/offline/tabs.chromium.test.ts has the Web Locks path, in real tabs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { joinTabs, type Tabs } from '../../src/offline/tabs.js';

const BEAT = 40;
const opened: Tabs[] = [];

afterEach(() => {
  for (const tab of opened.splice(0)) tab.close();
});

/** A tab on the lease; `mute()` stops everything it sends, as a crashed tab does. */
async function leaseTab(name: string): Promise<Tabs & { mute(on: boolean): void }> {
  let muted = false;
  class Channel extends BroadcastChannel {
    override postMessage(message: unknown): void {
      if (!muted) super.postMessage(message);
    }
  }
  const tab = joinTabs(name, { channel: Channel, locks: null, heartbeat: BEAT });
  opened.push(tab);
  await tab.ready;
  return Object.assign(tab, { mute: (on: boolean) => void (muted = on) });
}

async function until(condition: () => boolean, ms: number): Promise<number> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return Date.now() - start;
}

describe('outside a browser', () => {
  it('is a single tab, always the leader from the start, alone', async () => {
    const tab = joinTabs('node');
    opened.push(tab);
    expect(tab.isLeader).toBe(true);
    await tab.ready;
    expect(await tab.liveTabs()).toEqual([tab.tabId]);
    expect(() => tab.broadcast({ any: 'thing' })).not.toThrow();
  });

  it('refuses a missing name', () => {
    expect(() => joinTabs('')).toThrow(TypeError);
  });
});

describe('the BroadcastChannel lease', () => {
  it('elects one leader among three tabs, and knows who is alive', async () => {
    const tabs = [await leaseTab('three'), await leaseTab('three'), await leaseTab('three')];
    await until(() => tabs.filter((tab) => tab.isLeader).length === 1, 20 * BEAT);
    // Stable: still one leader several beats later.
    await new Promise((resolve) => setTimeout(resolve, 5 * BEAT));
    expect(tabs.filter((tab) => tab.isLeader)).toHaveLength(1);
    expect((await tabs[0]!.liveTabs()).sort()).toEqual(tabs.map((tab) => tab.tabId).sort());
  });

  it('delivers a broadcast to the other tabs, not to the sender', async () => {
    const [a, b] = [await leaseTab('news'), await leaseTab('news')];
    const heardA: unknown[] = [];
    const heardB: unknown[] = [];
    a.onMessage((message) => heardA.push(message));
    const unsubscribe = b.onMessage((message) => heardB.push(message));
    a.broadcast({ type: 'changed', ids: ['1'] });
    await until(() => heardB.length === 1, 1000);
    expect(heardB).toEqual([{ type: 'changed', ids: ['1'] }]);
    unsubscribe();
    a.broadcast('again');
    await new Promise((resolve) => setTimeout(resolve, 3 * BEAT));
    expect(heardB).toHaveLength(1);
    expect(heardA).toEqual([]);
  });

  it('a closed leader is replaced at once, and leaves the live tabs', async () => {
    const [a, b] = [await leaseTab('closed'), await leaseTab('closed')];
    await until(() => a.isLeader !== b.isLeader, 20 * BEAT);
    const [leader, other] = a.isLeader ? [a, b] : [b, a];
    const changes: boolean[] = [];
    other.onLeaderChange((value) => changes.push(value));
    leader.close();
    // The goodbye message: no need to wait for the lease to expire.
    expect(await until(() => other.isLeader, 20 * BEAT)).toBeLessThan(2 * BEAT);
    expect(changes).toEqual([true]);
    expect(await other.liveTabs()).toEqual([other.tabId]);
  });

  it('a silent leader (crashed) is replaced after its lease expires; back, one of the two yields', async () => {
    const [a, b] = [await leaseTab('crash'), await leaseTab('crash')];
    await until(() => a.isLeader !== b.isLeader, 20 * BEAT);
    const [leader, other] = a.isLeader ? [a, b] : [b, a];
    leader.mute(true);
    const waited = await until(() => other.isLeader, 20 * BEAT);
    expect(waited).toBeGreaterThanOrEqual(2 * BEAT);
    expect(await other.liveTabs()).toEqual([other.tabId]);
    // It was only frozen: it speaks again, sees the newer leader... and one of them yields.
    leader.mute(false);
    await until(() => !(leader.isLeader && other.isLeader), 20 * BEAT);
    await new Promise((resolve) => setTimeout(resolve, 4 * BEAT));
    expect([leader.isLeader, other.isLeader].filter(Boolean)).toHaveLength(1);
  });

  it('a tab closed before it is elected never leads, and the others never see it', async () => {
    const other = await leaseTab('early');
    const tab = joinTabs('early', { channel: BroadcastChannel, locks: null, heartbeat: BEAT });
    tab.close();
    await tab.ready;
    await new Promise((resolve) => setTimeout(resolve, 4 * BEAT));
    expect(tab.isLeader).toBe(false);
    expect(other.isLeader).toBe(true);
    expect(await other.liveTabs()).toEqual([other.tabId]);
  });

  it('refuses a heartbeat that is not a positive number', () => {
    expect(() => joinTabs('bad', { channel: BroadcastChannel, locks: null, heartbeat: 0 })).toThrow(TypeError);
  });
});

describe('pagehide: the goodbye holds', () => {
  it('a tab that said goodbye on pagehide neither beats nor leads again until it is shown (a tab opened then sees only itself, and leads)', async () => {
    // The page's window events, as a browser has them (Node's global has none).
    const page = new EventTarget();
    const saved = { add: Reflect.get(globalThis, 'addEventListener'), remove: Reflect.get(globalThis, 'removeEventListener') };
    Reflect.set(globalThis, 'addEventListener', page.addEventListener.bind(page));
    Reflect.set(globalThis, 'removeEventListener', page.removeEventListener.bind(page));
    try {
      const a = await leaseTab('hidden');
      const b = await leaseTab('hidden');
      await until(() => a.isLeader !== b.isLeader, 20 * BEAT);
      // Both tabs' page goes away (closed, or into the back/forward cache): each says goodbye.
      page.dispatchEvent(new Event('pagehide'));
      expect([a.isLeader, b.isLeader]).toEqual([false, false]);
      // Their timers may still run before the page is torn down: several beats go by.
      await new Promise((resolve) => setTimeout(resolve, 4 * BEAT));
      expect([a.isLeader, b.isLeader]).toEqual([false, false]);
      const c = await leaseTab('hidden');
      await until(() => c.isLeader, 20 * BEAT);
      expect(await c.liveTabs()).toEqual([c.tabId]);
      await new Promise((resolve) => setTimeout(resolve, 4 * BEAT));
      expect(await c.liveTabs()).toEqual([c.tabId]);
      expect([a.isLeader, b.isLeader, c.isLeader]).toEqual([false, false, true]);
    } finally {
      Reflect.set(globalThis, 'addEventListener', saved.add);
      Reflect.set(globalThis, 'removeEventListener', saved.remove);
    }
  });
});
