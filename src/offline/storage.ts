/**
 * Where an outbox keeps its entries: one small interface, an adapter per platform
 * (IndexedDBStorage in browsers, FileStorage in Node, MemoryStorage anywhere, not durable).
 * Every adapter is checked by the same suite (test/offline/storage.suite.ts).
 */

/** A JSON value, as stored. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** What a storage keeps: plain JSON objects, each with a unique string `id`. */
export interface StoredObject {
  readonly id: string;
  readonly [key: string]: JsonValue;
}

/** One atomic change: objects to put (replacing any with the same id) and ids to delete. */
export interface StorageCommit<E extends StoredObject = StoredObject> {
  readonly put?: readonly E[];
  readonly delete?: readonly string[];
}

export interface OutboxStorage<E extends StoredObject = StoredObject> {
  /** True when a commit survives a reload, a closed tab or a killed process. */
  readonly durable: boolean;
  /**
   * Open the storage (once) and read every object in it. Rejects with OutboxError 'unavailable'
   * when it cannot be opened. `name`: the outbox's name, which a storage may name its database
   * from (IndexedDBStorage does, unless given a name).
   */
  load(name?: string): Promise<E[]>;
  /**
   * Apply `change` atomically: all of it or none. Resolves once it is durable; rejects with
   * OutboxError 'quota' when the storage is full, and then nothing of it was applied.
   */
  commit(change: StorageCommit<E>): Promise<void>;
  /** Let the storage go (locks, handles). Later calls reject. */
  close(): Promise<void>;
}

/** Entries in memory: for tests, and for `fallback: 'memory'`. Not durable. */
export class MemoryStorage<E extends StoredObject = StoredObject> implements OutboxStorage<E> {
  readonly durable = false;
  #entries = new Map<string, E>();
  #closed = false;

  load(): Promise<E[]> {
    if (this.#closed) return Promise.reject(new TypeError('MemoryStorage: load() after close()'));
    return Promise.resolve([...this.#entries.values()].map((entry) => structuredClone(entry)));
  }

  commit(change: StorageCommit<E>): Promise<void> {
    if (this.#closed) return Promise.reject(new TypeError('MemoryStorage: commit() after close()'));
    try {
      // Copied in, as a real storage would: an entry changed after its commit is not changed here.
      // One that cannot be copied rejects the commit before anything of it is applied.
      const put = (change.put ?? []).map((entry) => structuredClone(entry));
      for (const id of change.delete ?? []) this.#entries.delete(id);
      for (const entry of put) this.#entries.set(entry.id, entry);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }
}
