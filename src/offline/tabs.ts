/**
 * The tabs of one origin that share an outbox: one of them leads (replays what no live tab
 * claims), all of them hear each other's news. The leader holds the Web Lock
 * `rest-proxy-outbox:<name>` for as long as it lives, and each tab holds its own lock
 * `rest-proxy-outbox:<name>:tab:<id>`, so the leader sees which tabs are gone (the browser frees a
 * closed or crashed tab's locks). Without Web Locks (an insecure origin, an old browser), a lease
 * over the BroadcastChannel: every tab beats, and a leader not heard from for `expiry` ms is
 * replaced by the live tab with the smallest id. Without BroadcastChannel, or outside a browser
 * (Node: one process per file, by FileStorage's lock), a single tab, always the leader.
 */
import { callSafely } from '../util/events.js';
import { newKey } from '../util/ids.js';
import type { JsonValue } from './storage.js';

/** What an outbox needs from the tabs around it (the engine's TabCoordinator, and more). */
export interface Tabs {
  /** This tab's id, unique among the tabs of the origin. */
  readonly tabId: string;
  /** True while this tab leads. */
  readonly isLeader: boolean;
  /** Called with the new value each time `isLeader` changes. Returns the unsubscribe function. */
  onLeaderChange(listener: (isLeader: boolean) => void): () => void;
  /** Send a message to the other tabs (never to this one). */
  broadcast(message: JsonValue): void;
  /** Called with each message another tab broadcast. Returns the unsubscribe function. */
  onMessage(listener: (message: JsonValue) => void): () => void;
  /** The ids of the tabs alive now, this one included: entries claimed by any other tab are orphans. */
  liveTabs(): Promise<string[]>;
  /** Settles once this tab knows whether it leads (at once outside a browser). */
  readonly ready: Promise<void>;
  /** Leave: release the locks, stop beating, close the channel. The next tab in line leads. */
  close(): void;
}

export interface TabsOptions {
  /** The Web Locks to elect by (default `navigator.locks` in a browser); null: use the lease. */
  locks?: LockManager | null;
  /** The BroadcastChannel class (default the global one in a browser); null: a single tab. */
  channel?: typeof BroadcastChannel | null;
  /** Lease only: ms between two beats (1,000). A leader silent for 3 beats is replaced. */
  heartbeat?: number;
}

type Wire = { k: 'm'; d: JsonValue } | { k: 'h'; id: string; since: number } | { k: 'q' | 'b'; id: string };

/** Join the tabs of `name`: this tab leads at once when alone in Node, else once elected (`onLeaderChange`, `ready`). */
export function joinTabs(name: string, options: TabsOptions = {}): Tabs {
  if (typeof name !== 'string' || name === '') throw new TypeError('joinTabs: name must be a non-empty string');
  const heartbeat = options.heartbeat ?? 1000;
  if (!(heartbeat > 0)) throw new TypeError('joinTabs: heartbeat must be a positive number of ms');
  const browser = typeof document !== 'undefined' || 'WorkerGlobalScope' in globalThis;
  const Channel = options.channel !== undefined ? options.channel : browser && typeof BroadcastChannel === 'function' ? BroadcastChannel : null;
  const locks = options.locks !== undefined ? options.locks : browser ? (globalThis.navigator?.locks ?? null) : null;
  const tabs = new TabGroup(`rest-proxy-outbox:${name}`, Channel === null ? null : new Channel(`rest-proxy-outbox:${name}`));
  if (tabs.channel === null) tabs.lead(true);
  else tabs.ready = (locks !== null ? tabs.byLocks(locks) : Promise.resolve(false)).then((elected) => (elected ? undefined : tabs.byLease(heartbeat)));
  return tabs;
}

class TabGroup implements Tabs {
  readonly tabId = newKey();
  isLeader = false;
  ready = Promise.resolve();
  #leaderListeners = new Set<(isLeader: boolean) => void>();
  #messageListeners = new Set<(message: JsonValue) => void>();
  #closers: (() => void)[] = [];
  #live: () => Promise<string[]> = async () => [this.tabId];
  #closed = false;
  #silent = false;

  constructor(
    readonly lock: string,
    readonly channel: BroadcastChannel | null,
  ) {
    if (channel === null) return;
    channel.onmessage = (event: MessageEvent<Wire>) => this.deliver(event.data);
    this.#closers.push(() => {
      this.#silent = true;
      channel.close();
    });
  }

  onLeaderChange(listener: (isLeader: boolean) => void): () => void {
    this.#leaderListeners.add(listener);
    return () => this.#leaderListeners.delete(listener);
  }

  onMessage(listener: (message: JsonValue) => void): () => void {
    this.#messageListeners.add(listener);
    return () => this.#messageListeners.delete(listener);
  }

  broadcast(message: JsonValue): void {
    this.#send({ k: 'm', d: message });
  }

  liveTabs(): Promise<string[]> {
    return this.#closed ? Promise.resolve([]) : this.#live();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.isLeader = false;
    for (const close of this.#closers.splice(0)) close();
    this.#leaderListeners.clear();
    this.#messageListeners.clear();
  }

  lead(value: boolean): void {
    if (this.isLeader === value || this.#closed) return;
    this.isLeader = value;
    for (const listener of [...this.#leaderListeners]) callSafely(listener, value);
  }

  /** A message of another tab, for the outbox when it is not the election's. */
  deliver(data: Wire | undefined): void {
    if (data?.k === 'm') for (const listener of [...this.#messageListeners]) callSafely(listener, data.d);
  }

  #send(message: Wire): void {
    if (!this.#silent) this.channel?.postMessage(message);
  }

  /**
   * Hold a lock until close(): resolves once it is granted (true), refused with `ifAvailable`
   * (false), or failed (undefined: a SecurityError in an opaque origin, aborted by close()).
   */
  #hold(locks: LockManager, name: string, options: LockOptions, granted: () => void): Promise<boolean | undefined> {
    return new Promise<boolean | undefined>((resolve) => {
      locks
        .request(name, options, (lock) => {
          resolve(lock !== null);
          if (lock === null || this.#closed) return undefined;
          granted();
          return new Promise<void>((release) => this.#closers.push(release));
        })
        .catch(() => resolve(undefined));
    });
  }

  /** Elect by Web Locks; false when they cannot be used here (then the lease elects). */
  async byLocks(locks: LockManager): Promise<boolean> {
    const tabPrefix = `${this.lock}:tab:`;
    if ((await this.#hold(locks, tabPrefix + this.tabId, {}, () => undefined)) !== true) return this.#closed;
    this.#live = async () => {
      const { held = [] } = await locks.query();
      return held.flatMap(({ name }) => (name?.startsWith(tabPrefix) ? [name.slice(tabPrefix.length)] : []));
    };
    if (await this.#hold(locks, this.lock, { ifAvailable: true }, () => this.lead(true))) return true;
    // Wait in line: the browser grants the lock when the leader closes, crashes or navigates away.
    const abort = new AbortController();
    this.#closers.push(() => abort.abort());
    void this.#hold(locks, this.lock, { signal: abort.signal }, () => this.lead(true));
    return true;
  }

  async byLease(heartbeat: number): Promise<void> {
    const channel = this.channel;
    if (channel === null || this.#closed) return;
    const expiry = heartbeat * 3;
    const seen = new Map<string, { at: number; since: number }>();
    let since = 0; // when this tab took the lead, 0 while it does not lead
    // Said goodbye on pagehide: silent (its timers may still run) until the page is shown again.
    let away = false;
    const beat = (): void => {
      if (!away) this.#send({ k: 'h', id: this.tabId, since });
    };
    const prune = (): void => {
      for (const [id, tab] of seen) if (Date.now() - tab.at > expiry) seen.delete(id);
    };
    const elect = (): void => {
      if (this.#closed || away) return;
      prune();
      const leaders = [...seen].filter(([, tab]) => tab.since > 0);
      if (since > 0) {
        // Two leaders (they started together, or a silent one came back): the older lead stays.
        if (leaders.some(([id, tab]) => tab.since < since || (tab.since === since && id < this.tabId))) {
          since = 0;
          this.lead(false);
        }
      } else if (leaders.length === 0 && [...seen.keys()].every((id) => this.tabId < id)) {
        since = Date.now();
        this.lead(true);
        beat();
      }
    };
    channel.onmessage = (event: MessageEvent<Wire>) => {
      const data = event.data;
      if (data?.k === 'm') return this.deliver(data);
      if (typeof data?.id !== 'string') return;
      if (data.k === 'h') {
        seen.set(data.id, { at: Date.now(), since: data.since });
        if (since > 0 && data.since > 0) elect();
      } else if (data.k === 'q') {
        seen.set(data.id, { at: Date.now(), since: 0 });
        beat();
      } else if (data.k === 'b') {
        seen.delete(data.id);
        elect();
      }
    };
    this.#live = async () => {
      prune();
      return [this.tabId, ...seen.keys()];
    };
    const timer = setInterval(() => {
      elect();
      beat();
    }, heartbeat);
    const bye = (): void => {
      this.#send({ k: 'b', id: this.tabId });
      since = 0;
      away = true;
      this.lead(false);
    };
    // A tab going into the back/forward cache says goodbye, and asks again when it comes back.
    const show = (event: Event): void => {
      if (!('persisted' in event && event.persisted === true)) return;
      away = false;
      this.#send({ k: 'q', id: this.tabId });
    };
    globalThis.addEventListener?.('pagehide', bye);
    globalThis.addEventListener?.('pageshow', show);
    this.#closers.unshift(() => {
      clearInterval(timer);
      globalThis.removeEventListener?.('pagehide', bye);
      globalThis.removeEventListener?.('pageshow', show);
      bye();
    });
    this.#send({ k: 'q', id: this.tabId });
    // Give the other tabs a moment to answer before electing.
    await new Promise((resolve) => setTimeout(resolve, Math.min(heartbeat / 4, 250)));
    elect();
  }
}
