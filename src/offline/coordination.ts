/**
 * How an outbox meets the other tabs of its app: a leader replays, every tab broadcasts its
 * changes (tabs.ts: real tabs where BroadcastChannel exists, else one tab, always the leader).
 */
import { focusManager, onlineManager } from '../util/managers.js';
import type { JsonValue } from './storage.js';

export interface TabCoordinator {
  readonly tabId: string;
  /** Whether this tab replays the unclaimed entries and those of closed tabs. */
  readonly isLeader: boolean;
  /** Told when this tab becomes the leader, or stops being it. Returns an unsubscribe function. */
  onLeaderChange(listener: (leader: boolean) => void): () => void;
  /** Tell the other tabs. */
  broadcast(message: JsonValue): void;
  /** Hear the other tabs. Returns an unsubscribe function. */
  onMessage(listener: (message: JsonValue) => void): () => void;
  /** The ids of the tabs alive now, this one included. */
  liveTabs(): Promise<string[]>;
  /** Settles once this tab knows whether it leads. */
  readonly ready: Promise<void>;
  close(): void;
}

/** Call `listener` when the browser may be back online: the `online` event, the page becoming visible, or `onlineManager` / `focusManager` turning true. Returns an unsubscribe function. */
export function onReconnect(listener: () => void): () => void {
  const target: unknown = globalThis;
  const page: unknown = Reflect.get(globalThis, 'document');
  const visible = (): void => {
    if (typeof page === 'object' && page !== null && Reflect.get(page, 'visibilityState') === 'visible') listener();
  };
  const pairs: [unknown, string, () => void][] = [[target, 'online', listener], [page, 'visibilitychange', visible]];
  const call = (method: string): void => {
    for (const [on, type, handler] of pairs) {
      const fn: unknown = typeof on === 'object' && on !== null ? Reflect.get(on, method) : undefined;
      if (typeof fn === 'function') fn.call(on, type, handler);
    }
  };
  call('addEventListener');
  const managers = [onlineManager, focusManager].map((manager) => manager.subscribe((now) => now && listener()));
  return () => {
    call('removeEventListener');
    for (const stop of managers) stop();
  };
}
