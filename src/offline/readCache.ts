/**
 * ReadCache: the last page each store loaded, kept on one of the outbox's storage kinds, so that
 * a reload shows it at once (stale) and revalidates it with its ETag, offline included. Only what
 * the server confirmed is kept (store/freshness.ts's dehydrate: no edits, no new records), per
 * scope (a user id: one user's rows are never shown to another), bounded by age, count and bytes
 * (least recently used go first). Nothing here throws into rendering: corrupt data is deleted
 * with an `error` event, storage that cannot open leaves stores loading uncached.
 */
import type { Filter, Sorter } from '../operation/types.js';
import { persistTargets, type Persisted, type PersistedQuery, type Persisting, type StoreState } from '../store/freshness.js';
import { describeValue, isPlainObject } from '../util/options.js';
import { opened } from './opening.js';
import type { OutboxStorage, StorageCommit, StoredObject } from './storage.js';

export type ReadCacheErrorKind = 'corrupt' | 'unavailable' | 'quota';

/** What a read cache could not read or keep. Never thrown into rendering: told through `cache.on('error')`. */
export class ReadCacheError extends Error {
  override readonly name = 'ReadCacheError';

  constructor(
    readonly kind: ReadCacheErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface ReadCacheConfig {
  /** Where the pages are kept (MemoryStorage, FileStorage, IndexedDBStorage): one storage per outbox or cache. */
  storage: OutboxStorage;
  /** Whose pages: a user id, or `'public'`. Stores see only this scope's pages. */
  scope: string;
  /** Older pages are neither shown nor kept (ms). Default 7 days. */
  maxAge?: number;
  /** At most this many pages, all scopes together. Default 200. */
  maxEntries?: number;
  /** At most this many bytes (of JSON), all scopes together. Default 5 MiB. */
  maxBytes?: number;
}

export interface ReadCacheErrorEvent {
  error: ReadCacheError;
  /** The store's key, when the error is about one page. */
  key: string | undefined;
}

/** One page as stored. */
interface Stored extends StoredObject {
  readonly kind: 'rest-proxy.read';
  readonly version: 1;
  readonly scope: string;
  readonly key: string;
  readonly savedAt: number;
  /** The dehydrated page, as JSON. */
  readonly json: string;
}

const KIND = 'rest-proxy.read';
const DAY = 24 * 60 * 60 * 1000;

function isStored(value: unknown): value is Stored {
  return isPlainObject(value) && value.kind === KIND && value.version === 1 && typeof value.id === 'string' && typeof value.scope === 'string' &&
    typeof value.key === 'string' && typeof value.savedAt === 'number' && typeof value.json === 'string';
}

const isList = (value: unknown): value is Record<string, unknown>[] => Array.isArray(value) && value.every(isPlainObject);
const isText = (value: unknown): boolean => value === undefined || typeof value === 'string';

function isState(value: unknown): value is StoreState {
  return isPlainObject(value) && value.version === 1 && typeof value.entity === 'string' && isList(value.rows) && isList(value.sorters) && isList(value.filters) &&
    isPlainObject(value.params) && isText(value.etag) && isText(value.url) && typeof value.total === 'number' && typeof value.page === 'number' && typeof value.fetchedAt === 'number';
}

/** What a store's loads ask the server for: its remote sorters and filters (those with a function are never sent). */
function asked(query: PersistedQuery, sorters: readonly Sorter[], filters: readonly Filter[]): string {
  return JSON.stringify([query.remoteSort ? sorters.filter((sorter) => !sorter.sorterFn) : [], query.remoteFilter ? filters.filter((filter) => !filter.filterFn) : []]);
}

function positive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0)) throw new TypeError(`ReadCache: ${name} must be a positive number, got ${describeValue(value)}`);
  return value;
}

/**
 * The last page of each store that persists through it (`new Store({ persist: { cache, key } })`),
 * per scope. Writes are asynchronous: `flush()` resolves once they are committed.
 */
export class ReadCache {
  readonly storage: OutboxStorage;
  readonly maxAge: number;
  readonly maxEntries: number;
  readonly maxBytes: number;
  #scope: string;
  /** The pages by id (scope and key), least recently used first; undefined until the storage was read. */
  #pages = new Map<string, Stored>();
  #ready: Promise<boolean>;
  #queue: Promise<void> = Promise.resolve();
  #listeners = new Set<(event: ReadCacheErrorEvent) => void>();
  #closed = false;

  constructor(config: ReadCacheConfig) {
    if (!isPlainObject(config) || typeof config.storage !== 'object' || config.storage === null || typeof config.storage.load !== 'function') {
      throw new TypeError(`ReadCache: storage must be an outbox storage (MemoryStorage, FileStorage, IndexedDBStorage), got ${describeValue(isPlainObject(config) ? config.storage : config)}`);
    }
    this.storage = config.storage;
    this.#scope = ReadCache.#checkScope(config.scope);
    this.maxAge = positive('maxAge', config.maxAge, 7 * DAY);
    this.maxEntries = positive('maxEntries', config.maxEntries, 200);
    this.maxBytes = positive('maxBytes', config.maxBytes, 5 * 1024 * 1024);
    this.#ready = this.#open();
    persistTargets.set(this, (key, store, query) => this.#attach(key, store, query));
  }

  static #checkScope(scope: unknown): string {
    if (typeof scope !== 'string' || scope === '') throw new TypeError(`ReadCache: scope must be a non-empty string (a user id, or 'public'), got ${describeValue(scope)}`);
    return scope;
  }

  /** Whose pages stores see and keep now. Setting it (log out, log in) moves later reads and writes. */
  get scope(): string {
    return this.#scope;
  }

  set scope(scope: string) {
    this.#scope = ReadCache.#checkScope(scope);
  }

  /** Hear what could not be read or kept. Returns the function that unsubscribes. */
  on(event: 'error', listener: (event: ReadCacheErrorEvent) => void): () => void {
    if (event !== 'error') throw new TypeError(`ReadCache.on: the only event is 'error', got ${describeValue(event)}`);
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #tell(error: ReadCacheError, key?: string): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener({ error, key });
      } catch {
        // a listener's failure is its own
      }
    }
  }

  async #open(): Promise<boolean> {
    let objects: StoredObject[];
    try {
      objects = await this.storage.load('rest-proxy-reads');
    } catch (error) {
      this.#tell(new ReadCacheError('unavailable', `ReadCache: the storage cannot be opened: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
      return false;
    }
    const drop: string[] = [];
    const oldest = Date.now() - this.maxAge;
    for (const object of objects.sort((a, b) => Number(a['savedAt']) - Number(b['savedAt']))) {
      if (!isStored(object)) {
        drop.push(object.id);
        this.#tell(new ReadCacheError('corrupt', `ReadCache: ${describeValue(object.id)} is not a read-cache entry of a known version: deleted`), typeof object['key'] === 'string' ? object['key'] : undefined);
      } else if (object.savedAt < oldest) {
        drop.push(object.id);
      } else {
        this.#pages.set(object.id, object);
      }
    }
    if (drop.length > 0) this.#commit({ delete: drop });
    return true;
  }

  #id(scope: string, key: string): string {
    return `${scope}\u0000${key}`;
  }

  /**
   * A store persisting under `key`: its stored page is shown at once, as a load of it, if the store
   * asks for that page (the same remote sorters and filters) and shows nothing yet; the store's own
   * sorters and filters stay. Its loads wait for that, and what they bring is kept.
   */
  #attach(key: string, store: Persisted, query: PersistedQuery): Persisting {
    // The scope the last load was sent under: its answer is kept only if the scope is still that.
    let ticket: string | undefined;
    // Until the stored page was read, nothing is kept (the restore itself, a hydrate: not a load's answer).
    let read = false;
    const restored = this.#read(key).then(async (state) => {
      const scope = this.#scope;
      // The model's outbox opened first: the page is shown with its restored writes on top.
      if (state !== undefined) await opened(state.entity);
      if (state === undefined || scope !== this.#scope || store.fetchedAt !== null || asked(query, state.sorters, state.filters) !== asked(query, query.sorters, query.filters)) return false;
      try {
        return store.hydrate({ ...state, sorters: [...query.sorters], filters: [...query.filters] }, true);
      } catch (error) {
        this.#corrupt(key, error);
        return false;
      }
    }, () => false).finally(() => {
      read = true;
    });
    return {
      restored,
      send: (start) => {
        ticket = this.#scope;
        return restored.then(start);
      },
      applied: () => read && this.#write(key, store.dehydrate(), ticket),
    };
  }

  async #read(key: string): Promise<StoreState | undefined> {
    if (!(await this.#ready)) return undefined;
    const id = this.#id(this.#scope, key);
    const page = this.#pages.get(id);
    if (page === undefined) return undefined;
    let state: unknown;
    try {
      state = page.savedAt >= Date.now() - this.maxAge ? JSON.parse(page.json) : undefined;
    } catch {
      state = null;
    }
    if (!isState(state)) {
      if (state === undefined) this.#delete(id);
      else this.#corrupt(key);
      return undefined;
    }
    // The most recently used last.
    this.#pages.delete(id);
    this.#pages.set(id, page);
    return state;
  }

  #delete(id: string): void {
    this.#pages.delete(id);
    this.#commit({ delete: [id] });
  }

  /** The page of `key` cannot be read or shown: deleted, and told. */
  #corrupt(key: string, cause?: unknown): void {
    this.#delete(this.#id(this.#scope, key));
    this.#tell(new ReadCacheError('corrupt', `ReadCache: the page of ${JSON.stringify(key)} cannot be read: deleted`, { cause }), key);
  }

  #write(key: string, state: StoreState, ticket: unknown): void {
    if (this.#closed || ticket !== this.#scope) return;
    const scope = this.#scope;
    void this.#ready.then((open) => {
      if (!open || this.#closed || scope !== this.#scope) return;
      const id = this.#id(scope, key);
      let json: string;
      try {
        json = JSON.stringify(state);
      } catch (error) {
        this.#tell(new ReadCacheError('corrupt', `ReadCache: the page of ${JSON.stringify(key)} is not JSON: not kept`, { cause: error }), key);
        return;
      }
      const page: Stored = { id, kind: KIND, version: 1, scope, key, savedAt: Date.now(), json };
      this.#pages.delete(id);
      this.#pages.set(id, page);
      this.#commit({ put: [page], delete: this.#evict() }, key);
    });
  }

  /** The least recently used pages beyond the bounds (taken out of memory now). */
  #evict(): string[] {
    const gone: string[] = [];
    let bytes = 0;
    for (const page of this.#pages.values()) bytes += page.json.length;
    for (const [id, page] of this.#pages) {
      if (this.#pages.size <= this.maxEntries && bytes <= this.maxBytes) break;
      this.#pages.delete(id);
      bytes -= page.json.length;
      gone.push(id);
    }
    return gone;
  }

  #commit(change: StorageCommit, key?: string): Promise<void> {
    const run = this.#queue.then(() => this.storage.commit(change)).catch((error: unknown) => {
      // Refused (full, or gone): what it would have written is not kept.
      for (const page of change.put ?? []) this.#pages.delete(page.id);
      this.#tell(new ReadCacheError('quota', `ReadCache: the storage refused a write: ${error instanceof Error ? error.message : String(error)}`, { cause: error }), key);
    });
    this.#queue = run;
    return run;
  }

  /** Resolves once every write made so far is committed. */
  async flush(): Promise<void> {
    await this.#ready;
    // A write waits for the storage to open: one more turn lets it queue its commit.
    await Promise.resolve();
    let queued: Promise<void>;
    do {
      queued = this.#queue;
      await queued;
    } while (queued !== this.#queue);
  }

  /** Forget the pages of `scope` (every scope without one). Resolves once that is durable. */
  async clear(scope?: string): Promise<void> {
    if (scope !== undefined) ReadCache.#checkScope(scope);
    await this.#ready;
    const ids = [...this.#pages.values()].filter((page) => scope === undefined || page.scope === scope).map((page) => page.id);
    for (const id of ids) this.#pages.delete(id);
    if (ids.length > 0) await this.#commit({ delete: ids });
    await this.flush();
  }

  /** Flush, then let the storage go. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    await this.storage.close();
  }
}
