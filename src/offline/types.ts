/** The public shapes of rest-proxy/offline. */
import type { Model } from '../model/Model.js';
import type { ModelClass } from '../model/types.js';
import type { EntryAction, StoredError } from './entry.js';
import type { OutboxCodec } from './scope.js';
import type { OutboxStorage, StoredObject } from './storage.js';

export type AnyModel = ModelClass<Model<object>>;

/** Why the outbox holds every entry: no connection, told to wait, or credentials to renew. */
export type PauseReason = 'offline' | 'rate-limit' | 'auth';

export interface OutboxConfig {
  /** One per app: names the outbox among tabs (`rest-proxy-outbox:<name>`). */
  name: string;
  storage: OutboxStorage;
  /** The models whose writes go through the outbox. */
  models: readonly AnyModel[];
  /** Entries sent at once. Default 4. */
  concurrency?: number;
  /** Attempts before an entry that keeps failing (5xx, 408) is failed. Default 8. */
  maxAttempts?: number;
  /** Entries kept at most; a write past it is refused (OutboxError 'full'). Default 10,000. */
  maxEntries?: number;
  /** Bytes of stored entries at most (as JSON). Default 5 MiB. */
  maxBytes?: number;
  /** 'memory': when the storage cannot be opened, keep entries in memory (not durable) instead of rejecting open(). Default 'none'. */
  fallback?: 'none' | 'memory';
  /** Make an entry written by an older version of the app current (null drops it). */
  migrate?: (entry: StoredObject) => StoredObject | null;
  /**
   * Whose writes these are, e.g. the signed-in user's id. Default `''`. Entries are stored with
   * it; the outbox restores, counts and sends only those of its scope (others stay stored:
   * `snapshot.otherScopes`), so one user's writes never go out with another user's credentials.
   */
  scope?: string;
  /**
   * Encodes the field values stored with each entry (e.g. AES-GCM with a key of the user's):
   * then none is stored in the clear. Default: none (values stored as JSON).
   */
  codec?: OutboxCodec;
}

/** What a UI shows of the outbox (section 8's rules: the same object until something changes). */
export interface OutboxSnapshot {
  /** Entries waiting to be sent (not those in flight, nor failed ones). */
  readonly pending: number;
  readonly sending: number;
  readonly failed: number;
  readonly paused: false | PauseReason;
  readonly leader: boolean;
  readonly durable: boolean;
  /** When the oldest entry not yet sent was made (epoch ms), or null. */
  readonly oldestPendingAt: number | null;
  /** Entries of other scopes left in the storage (not restored, counted or sent here). */
  readonly otherScopes: number;
}

/** An entry that will not be sent again until told. */
export interface FailedEntry {
  readonly record: Model<object> | undefined;
  readonly action: EntryAction;
  readonly error: Readonly<StoredError>;
  /** Send it again (attempts start over). */
  retry(): Promise<void>;
  /** Drop it and reject its local edits. */
  discard(): Promise<void>;
  /** A conflict: 'mine' sends it again over the server's version; 'theirs' takes the server's. */
  resolve(side: 'mine' | 'theirs'): Promise<void>;
}

export interface OutboxEvents {
  sent: { record: Model<object> | undefined; action: EntryAction };
  failed: FailedEntry;
  idmapped: { record: Model<object> | undefined; clientId: string; id: unknown };
  paused: { reason: PauseReason };
  resumed: Record<string, never>;
}

