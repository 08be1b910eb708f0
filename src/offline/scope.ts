/**
 * Whose writes an outbox holds (`scope`, e.g. the signed-in user's id) and how their values are
 * stored (`codec`, e.g. Web Crypto AES-GCM). A ScopedStorage stands between the outbox and its
 * storage: it stamps each entry it stores with the scope, hands the outbox only the entries of its
 * own scope (the others stay stored, untouched, and are only counted), and with a codec stores an
 * entry's field values (its values, their base, a failure's server copy) sealed in one string.
 * Other tabs' news of other scopes are counted, never applied (scopedTabs).
 */
import type { TabCoordinator } from './coordination.js';
import type { JsonValue, OutboxStorage, StorageCommit, StoredObject } from './storage.js';

type Fields = { [name: string]: JsonValue };

/** Encodes the field values an entry stores (the outbox keeps them in memory in the clear). */
export interface OutboxCodec {
  encode(values: Fields): Promise<string>;
  decode(text: string): Promise<Fields>;
}

/** The fields of an entry that hold record values: sealed by a codec. */
const SEALED = ['values', 'before', 'error'] as const;

const scopeOf = (entry: StoredObject): string => (typeof entry['scope'] === 'string' ? entry['scope'] : '');

export class ScopedStorage implements OutboxStorage {
  /** The ids of the stored entries of other scopes (the snapshot's `otherScopes`). */
  readonly others = new Set<string>();

  constructor(
    readonly storage: OutboxStorage,
    readonly scope: string,
    readonly codec: OutboxCodec | undefined,
  ) {}

  get durable(): boolean {
    return this.storage.durable;
  }

  async load(name?: string): Promise<StoredObject[]> {
    const mine: StoredObject[] = [];
    for (const entry of await this.storage.load(name)) {
      if (scopeOf(entry) === this.scope) mine.push(entry);
      else this.others.add(entry.id);
    }
    return Promise.all(mine.map((entry) => this.open(entry)));
  }

  async commit(change: StorageCommit): Promise<void> {
    const put = await Promise.all((change.put ?? []).map((entry) => this.seal(entry)));
    return this.storage.commit({ put, delete: change.delete ?? [] });
  }

  close(): Promise<void> {
    return this.storage.close();
  }

  /** An entry as stored: its scope, and its values sealed when there is a codec. */
  async seal(entry: StoredObject): Promise<StoredObject> {
    if (this.codec === undefined) return { ...entry, scope: this.scope };
    const values: Fields = {};
    for (const name of SEALED) values[name] = entry[name] ?? null;
    const sealed = await this.codec.encode(values);
    if (typeof sealed !== 'string') throw new TypeError('Outbox: codec.encode must resolve to a string');
    return { ...entry, scope: this.scope, values: {}, before: {}, error: null, sealed };
  }

  /** A stored entry as the outbox reads it: unsealed. One that cannot be opened (another key) is left unreadable: failed, kept, never sent. */
  async open(entry: StoredObject): Promise<StoredObject> {
    const sealed = entry['sealed'];
    if (typeof sealed !== 'string') return entry;
    const { sealed: _, values: __, ...rest } = entry;
    if (this.codec === undefined) return rest;
    try {
      const values = await this.codec.decode(sealed);
      const opened: Fields = { ...rest };
      for (const name of SEALED) if (values[name] !== undefined) opened[name] = values[name];
      return { ...opened, id: entry.id };
    } catch {
      return rest;
    }
  }
}

/**
 * The tabs, as an outbox of `storage.scope` hears them: other scopes' entries counted, not applied.
 * With a codec, the entries told cross the channel sealed as they are stored, and are opened on
 * arrival (in order: each message waits for the one before).
 */
export function scopedTabs(tabs: TabCoordinator, storage: ScopedStorage): TabCoordinator {
  let told: Promise<unknown> = Promise.resolve();
  let heard: Promise<unknown> = Promise.resolve();
  return {
    get tabId() {
      return tabs.tabId;
    },
    get isLeader() {
      return tabs.isLeader;
    },
    get ready() {
      return tabs.ready;
    },
    onLeaderChange: (listener) => tabs.onLeaderChange(listener),
    broadcast: (message) => {
      if (storage.codec === undefined) return tabs.broadcast(stamped(message, storage.scope));
      told = told
        .then(() => sealed(message, storage))
        .then((out) => tabs.broadcast(out))
        .catch(() => undefined);
    },
    liveTabs: () => tabs.liveTabs(),
    close: () => tabs.close(),
    onMessage: (listener) =>
      tabs.onMessage((message) => {
        if (typeof message !== 'object' || message === null || Array.isArray(message)) return;
        const put = Array.isArray(message['put']) ? message['put'] : [];
        const gone = Array.isArray(message['delete']) ? message['delete'] : [];
        const mine = put.filter((entry) => {
          if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || typeof entry['id'] !== 'string') return false;
          const ours = (typeof entry['scope'] === 'string' ? entry['scope'] : '') === storage.scope;
          if (!ours) storage.others.add(entry['id']);
          return ours;
        });
        for (const id of gone) if (typeof id === 'string') storage.others.delete(id);
        if (storage.codec === undefined) return listener({ ...message, put: mine });
        const opened = Promise.all(mine.map((entry) => (typeof entry === 'object' && entry !== null && !Array.isArray(entry) && typeof entry['id'] === 'string' ? storage.open({ ...entry, id: entry['id'] }) : entry)));
        heard = heard
          .then(() => opened)
          .then((put) => listener({ ...message, put }))
          .catch(() => undefined);
      }),
  };
}

/** A commit told to the other tabs: its entries with their scope. */
function stamped(message: JsonValue, scope: string): JsonValue {
  if (typeof message !== 'object' || message === null || Array.isArray(message) || !Array.isArray(message['put'])) return message;
  return { ...message, put: message['put'].map((entry) => (typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? { ...entry, scope } : entry)) };
}

/** A commit told to the other tabs through a codec: its entries sealed as stored. */
async function sealed(message: JsonValue, storage: ScopedStorage): Promise<JsonValue> {
  if (typeof message !== 'object' || message === null || Array.isArray(message) || !Array.isArray(message['put'])) return message;
  const put = await Promise.all(message['put'].map((entry) => (typeof entry === 'object' && entry !== null && !Array.isArray(entry) && typeof entry['id'] === 'string' ? storage.seal({ ...entry, id: entry['id'] }) : entry)));
  return { ...message, put };
}

/** Erase the stored entries of `scope` (Outbox.clear). */
export async function clearScope(storage: OutboxStorage, name: string, scope: string): Promise<void> {
  try {
    const ids = (await storage.load(name)).filter((entry) => scopeOf(entry) === scope).map((entry) => entry.id);
    if (ids.length > 0) await storage.commit({ delete: ids });
  } finally {
    await storage.close();
  }
}
