/**
 * How an outbox meets the other tabs of its app: a leader replays, every tab broadcasts its
 * changes. The default is one tab, always the leader (Node, or no BroadcastChannel); tabs.ts
 * coordinates real tabs.
 */
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
  close(): void;
}

let tabs = 0;

/** One tab, always the leader. */
export function singleTab(): TabCoordinator {
  const none = (): (() => void) => () => undefined;
  return { tabId: `tab-${++tabs}`, isLeader: true, onLeaderChange: none, broadcast: () => undefined, onMessage: none, close: () => undefined };
}
