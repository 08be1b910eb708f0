/**
 * The browsers' outbox storage: one IndexedDB database per outbox, one object store of entries
 * keyed by `id`. A commit is one readwrite transaction with `durability: 'strict'` (flushed to
 * disk before `complete`), so it is all or nothing and survives a crash once it resolves.
 */
import { OutboxError } from './errors.js';
import type { OutboxStorage, StorageCommit, StoredObject } from './storage.js';

export interface IndexedDBStorageOptions {
  /**
   * The database's name. Default: `rest-proxy-outbox:<name>`, from the name of the outbox that
   * loads it (`rest-proxy-outbox` when loaded by none).
   */
  name?: string;
  /** The IndexedDB to use (default: the global `indexedDB`), e.g. a fake one in Node tests. */
  indexedDB?: Pick<IDBFactory, 'open'>;
}

const STORE = 'entries';
const PREFIX = 'rest-proxy-outbox';

export class IndexedDBStorage<E extends StoredObject = StoredObject> implements OutboxStorage<E> {
  readonly durable = true;
  #name: string | undefined;
  #factory: Pick<IDBFactory, 'open'> | undefined;
  #db: Promise<IDBDatabase> | undefined;
  /** The open database, once it is: commits then start their transaction at once, in call order. */
  #handle: IDBDatabase | undefined;
  #closed = false;

  constructor(options: IndexedDBStorageOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new TypeError('IndexedDBStorage: options must be an object');
    const { name, indexedDB: factory } = options;
    if (name !== undefined && (typeof name !== 'string' || name === '')) throw new TypeError('IndexedDBStorage: name must be a non-empty string');
    this.#name = name;
    this.#factory = factory;
  }

  /** The database's name: set, or from the outbox's name (`outbox`), read once it is first opened. */
  databaseName(outbox?: string): string {
    return this.#name ?? (outbox === undefined ? PREFIX : `${PREFIX}:${outbox}`);
  }

  /** Reads every entry. `outbox`: the name of the outbox loading it, which names the database unless `name` did. */
  async load(outbox?: string): Promise<E[]> {
    const db = await this.#open(outbox);
    return new Promise<E[]>((resolve, reject) => {
      const request = transaction(db, 'readonly').objectStore(STORE).getAll();
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(failure(request.error, 'read'));
    });
  }

  async commit(change: StorageCommit<E>): Promise<void> {
    const put = change.put ?? [];
    const remove = change.delete ?? [];
    for (const entry of put) if (typeof entry?.id !== 'string') throw new TypeError('IndexedDBStorage: every entry put needs a string id');
    for (const id of remove) if (typeof id !== 'string') throw new TypeError('IndexedDBStorage: ids to delete must be strings');
    if (put.length === 0 && remove.length === 0) return this.#open().then(() => undefined);
    // The transaction copies the entries when it starts: now if the database is open, else on a
    // copy taken now (an entry changed after commit() must not change what is stored).
    const db = this.#handle;
    if (db !== undefined) return write(db, put, remove);
    let copies: readonly E[];
    try {
      copies = structuredClone(put);
    } catch (error) {
      return Promise.reject(notStorable(error));
    }
    return this.#open().then((opened) => write(opened, copies, remove));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#handle = undefined;
    const db = this.#db;
    this.#db = Promise.reject(new TypeError('IndexedDBStorage: used after close()'));
    this.#db.catch(() => undefined);
    if (db !== undefined) (await db.catch(() => undefined))?.close();
  }

  #open(outbox?: string): Promise<IDBDatabase> {
    if (this.#db !== undefined) return this.#db;
    const name = this.databaseName(outbox);
    this.#db = new Promise<IDBDatabase>((resolve, reject) => {
      const factory = this.#factory ?? (typeof indexedDB === 'undefined' ? undefined : indexedDB);
      if (factory === undefined) return reject(new OutboxError('unavailable', 'IndexedDB is not available here'));
      let request: IDBOpenDBRequest;
      try {
        request = factory.open(name, 1);
      } catch (error) {
        // A SecurityError in an opaque origin (sandboxed frame, data: url) or storage blocked by policy.
        return reject(unavailable(name, error));
      }
      let settled = false;
      const fail = (error: unknown): void => {
        settled = true;
        reject(unavailable(name, error));
      };
      request.onupgradeneeded = () => {
        const db = request.result;
        if (!db.objectStoreNames.contains(STORE)) db.createObjectStore(STORE, { keyPath: 'id' });
      };
      request.onsuccess = () => {
        const db = request.result;
        // Opened after it was given up on (blocked, then unblocked), or after close(): let it go.
        if (settled || this.#closed) return db.close();
        settled = true;
        // Another tab deleting or upgrading the database: give way; later commits reject.
        db.onversionchange = () => db.close();
        this.#handle = db;
        resolve(db);
      };
      request.onerror = () => fail(request.error);
      request.onblocked = () => fail(new DOMException(`another connection blocks opening ${name}`, 'InvalidStateError'));
    });
    this.#db.catch(() => undefined);
    return this.#db;
  }
}

/** One commit: one readwrite transaction, settled when it completes (durable) or aborts (nothing applied). */
function write(db: IDBDatabase, put: readonly StoredObject[], remove: readonly string[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const tx = transaction(db, 'readwrite');
    tx.oncomplete = () => resolve();
    // An error of one request aborts the whole transaction: nothing of the commit is applied.
    tx.onabort = () => reject(failure(tx.error, 'write'));
    const store = tx.objectStore(STORE);
    try {
      for (const id of remove) store.delete(id);
      for (const entry of put) store.put(entry);
    } catch (error) {
      // put() throws at once on a value it cannot copy (not JSON): undo this commit, refuse it.
      tx.abort();
      reject(notStorable(error));
    }
  });
}

function notStorable(error: unknown): TypeError {
  return new TypeError(`IndexedDBStorage: an entry cannot be stored: ${describe(error)}`, { cause: error });
}

function transaction(db: IDBDatabase, mode: IDBTransactionMode): IDBTransaction {
  try {
    return db.transaction(STORE, mode, { durability: mode === 'readwrite' ? 'strict' : 'default' });
  } catch (error) {
    // Closed by a versionchange from another tab, or the store is missing.
    throw unavailable(db.name, error);
  }
}

function unavailable(name: string, cause: unknown): OutboxError {
  return new OutboxError('unavailable', `IndexedDB database ${name} cannot be opened: ${describe(cause)}`, { cause });
}

/** A failed read or write: QuotaExceededError is `'quota'`, anything else `'unavailable'`. */
function failure(error: unknown, what: string): OutboxError {
  if (error instanceof OutboxError) return error;
  const quota = error instanceof DOMException && error.name === 'QuotaExceededError';
  return new OutboxError(quota ? 'quota' : 'unavailable', `IndexedDB ${what} failed: ${describe(error)}`, { cause: error });
}

function describe(error: unknown): string {
  return error instanceof Error || error instanceof DOMException ? `${error.name}: ${error.message}` : String(error);
}
