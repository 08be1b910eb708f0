import { BatchError } from '../errors/BatchError.js';
import { ProxyError } from '../errors/ProxyError.js';
import { isModelClass, Model, recordFromServer, type DataOf, type ModelClass, type ModelInit, type RecordOwner } from '../model/Model.js';
import { Batch, type BatchConfig } from '../operation/Batch.js';
import { Operation } from '../operation/Operation.js';
import type { Direction, Filter, Sorter } from '../operation/types.js';
import { Proxy } from '../proxy/Proxy.js';
import { createProxy, type ProxyTypeConfig } from '../proxy/registry.js';
import type { RestProxyConfig } from '../proxy/RestProxy.js';
import { Observable } from '../util/events.js';
import { filterItems } from '../util/filtering.js';
import { applyOptions, defineOptions, describeValue, is, isPlainObject, option, type OptionSchema } from '../util/options.js';
import { comparable, comparator } from '../util/sorting.js';

/** The options of a Store; each is afterwards a property of the same name. */
export interface StoreConfig<M extends Model> {
  /** The Model class of the records. Default `Model` (untyped). */
  model?: ModelClass<M>;
  /**
   * A proxy (or config) to use instead of the model's. A config without `type` makes a
   * RestProxy. Default the model's proxy. @example { url: '/api/admins', preset: 'rails' }
   */
  proxy?: Proxy | ProxyTypeConfig | RestProxyConfig;
  /** Records to start with (records or plain data). */
  data?: Array<M | ModelInit<DataOf<M>>>;
  /** Records per page; `0` turns paging off (a load then takes every record). Default 25. */
  pageSize?: number;
  /** Sort on the server (reload on `sort()`) instead of locally. Default false. */
  remoteSort?: boolean;
  /** Filter on the server (reload on `filter()`) instead of locally. Default false. */
  remoteFilter?: boolean;
  /** Group on the server (sends the group param) instead of locally. Default false. */
  remoteGroup?: boolean;
  /** The sorters. @example [{ property: 'name', direction: 'ASC' }] */
  sorters?: Sorter[];
  /** The filters. @example [{ property: 'age', operator: '>=', value: 18 }] */
  filters?: Filter[];
  /** Group the records by this field. Default none. */
  groupField?: string;
  /** The direction of the groups. Default `'ASC'`. */
  groupDir?: Direction;
  /** Load as soon as the store is made (true, or the load options). Default false. */
  autoLoad?: boolean | LoadOptions;
  /** Sync after every change (add, edit, remove). Default false. */
  autoSync?: boolean;
}

export interface LoadOptions {
  /** The page to load (1-based); sends page, start and limit. Default `currentPage`. */
  page?: number;
  /** The index of the first record to load. Default `(page - 1) * pageSize`. */
  start?: number;
  /** How many records to load. Default `pageSize`. */
  limit?: number;
  /** Params for this load. */
  params?: Record<string, unknown>;
  /** Add the loaded records to the ones there instead of replacing them. Default false. */
  addRecords?: boolean;
  /** Drop unsynced changes (new, edited and removed records) instead of keeping them. Default false. */
  discardChanges?: boolean;
  /** Cancels the load (kind 'abort'); nothing changes. */
  signal?: AbortSignal;
}

export interface SyncOptions extends BatchConfig {
  /** Params for every request of the sync. */
  params?: Record<string, unknown>;
  /** Cancels the requests not yet finished (kind 'abort'); their records stay unsaved. */
  signal?: AbortSignal;
}

export interface StoreEvents<M extends Model> {
  /** Before a load; a listener returning false cancels it. */
  beforeload: { store: Store<M>; operation: Operation };
  load: { store: Store<M>; records: M[]; operation: Operation; successful: boolean };
  /** The set of records changed (load, add, remove, sort, filter, sync). */
  datachanged: { store: Store<M> };
  add: { store: Store<M>; records: M[]; index: number };
  remove: { store: Store<M>; records: M[]; indexes: number[] };
  update: { store: Store<M>; record: M; operation: 'edit' | 'commit' | 'reject'; modifiedFieldNames: string[] };
  /** Before a sync; a listener returning false cancels it. */
  beforesync: { store: Store<M>; create: M[]; update: M[]; destroy: M[] };
  /** An operation of a sync succeeded. */
  write: { store: Store<M>; operation: Operation };
  exception: { store: Store<M>; error: ProxyError | BatchError; operation: Operation | undefined };
}

/** A group of records with the same value of the group field. */
export interface Group<M> {
  name: unknown;
  records: M[];
}

const isSorters = {
  expect: 'an array of { property, direction? }',
  test: (v: unknown) => Array.isArray(v) && v.every((s) => isPlainObject(s) && (typeof s.property === 'string' || typeof s.sorterFn === 'function')),
};
const isFilters = {
  expect: 'an array of { property, value, operator? }',
  test: (v: unknown) => Array.isArray(v) && v.every((f) => isPlainObject(f) && (typeof f.property === 'string' || typeof f.filterFn === 'function')),
};
const isDirection = { expect: '"ASC" or "DESC"', test: (v: unknown) => v === 'ASC' || v === 'DESC' };

const storeSchema: OptionSchema = {
  model: option({ expect: 'a Model class', test: (v) => typeof v === 'function' && (v === Model || v.prototype instanceof Model) }, () => Model),
  proxy: option({ expect: 'a proxy or a proxy config', test: (v) => v instanceof Proxy || isPlainObject(v) }, undefined, (v) => (v instanceof Proxy ? v : isPlainObject(v) ? createProxy({ type: 'rest', ...v }) : v)),
  pageSize: option(is.nonNegativeInteger, () => 25),
  remoteSort: option(is.boolean, () => false),
  remoteFilter: option(is.boolean, () => false),
  remoteGroup: option(is.boolean, () => false),
  sorters: option(isSorters, () => [], (v) => (Array.isArray(v) ? [...v] : [])),
  filters: option(isFilters, () => [], (v) => (Array.isArray(v) ? [...v] : [])),
  groupField: option(is.string),
  groupDir: option(isDirection, () => 'ASC'),
  autoLoad: option({ expect: 'a boolean or load options', test: (v) => typeof v === 'boolean' || isPlainObject(v) }, () => false),
  autoSync: option(is.boolean, () => false),
};

function idKey(record: Model): string | undefined {
  const id = record.getId();
  return id === undefined || id === null || id === '' ? undefined : String(id);
}

/**
 * A collection of records of one model, loaded, paged, sorted, filtered and grouped through its
 * proxy, and saved with `sync()`. Unsynced changes are never dropped by a load.
 */
export class Store<M extends Model = Model> extends Observable<StoreEvents<M>> implements RecordOwner, Iterable<M> {
  /** {@inheritDoc StoreConfig.model} */
  declare model: ModelClass<M>;
  /** {@inheritDoc StoreConfig.proxy} */
  declare proxy: Proxy | undefined;
  /** {@inheritDoc StoreConfig.pageSize} */
  declare pageSize: number;
  /** {@inheritDoc StoreConfig.remoteSort} */
  declare remoteSort: boolean;
  /** {@inheritDoc StoreConfig.remoteFilter} */
  declare remoteFilter: boolean;
  /** {@inheritDoc StoreConfig.remoteGroup} */
  declare remoteGroup: boolean;
  /** {@inheritDoc StoreConfig.sorters} */
  declare sorters: Sorter[];
  /** {@inheritDoc StoreConfig.filters} */
  declare filters: Filter[];
  /** {@inheritDoc StoreConfig.groupField} */
  declare groupField: string | undefined;
  /** {@inheritDoc StoreConfig.groupDir} */
  declare groupDir: Direction;
  /** {@inheritDoc StoreConfig.autoLoad} */
  declare autoLoad: boolean | LoadOptions;
  /** {@inheritDoc StoreConfig.autoSync} */
  declare autoSync: boolean;

  /** The page last loaded (1-based). */
  currentPage = 1;
  /** True while a load is in flight. */
  loading = false;

  #all: M[] = [];
  /** The records that pass the local filters, or null when none are set. */
  #view: M[] | null = null;
  #byId: Map<string, M> | null = null;
  #removed: M[] = [];
  /** Where each removed record stood, so that rejectChanges puts it back there. */
  #removedAt = new WeakMap<M, number>();
  /** Edited records that a load of another page took off the list: still to be synced. */
  #offPage: M[] = [];
  #totalCount: number | undefined = undefined;
  #loadSeq = 0;
  #loadController: AbortController | undefined = undefined;
  #syncing: Promise<unknown> = Promise.resolve();
  #syncDepth = 0;
  #autoSyncQueued = false;

  constructor(config: StoreConfig<M> = {}) {
    super();
    const { data, ...rest } = isPlainObject(config) ? config : { data: undefined };
    applyOptions(this, 'Store', storeSchema, isPlainObject(config) ? rest : config);
    if (this.proxy && this.proxy.model === undefined && isModelClass(this.model)) this.proxy.model = this.model;
    if (data !== undefined) {
      if (!Array.isArray(data)) throw new TypeError(`Store: data must be an array of records or objects, got ${describeValue(data)}`);
      this.insertRecords(this.#all.length, this.toRecords(data), false);
    }
    if (this.autoLoad !== false) {
      const options = this.autoLoad === true ? {} : this.autoLoad;
      queueMicrotask(() => {
        this.load(options).catch(() => undefined); // reported through the exception event
      });
    }
  }

  /** The proxy used: the store's own, else the model's. */
  getProxy(): Proxy {
    const proxy = this.proxy ?? this.model.getProxy();
    if (proxy.model === undefined && isModelClass(this.model)) proxy.model = this.model;
    return proxy;
  }

  // ---- the collection ----------------------------------------------------------------------

  private get visible(): M[] {
    return this.#view ?? this.#all;
  }

  getCount(): number {
    return this.visible.length;
  }

  /** The total the server reported at the last load (for paging), else the number of records. */
  getTotalCount(): number {
    return this.#totalCount ?? this.#all.length;
  }

  getAt(index: number): M | undefined {
    return this.visible[index];
  }

  /** The record with this id, among all records (also those a local filter hides). */
  getById(id: unknown): M | undefined {
    if (id === undefined || id === null || id === '') return undefined;
    if (this.#byId === null) {
      const map = new Map<string, M>();
      for (const record of this.#all) {
        const key = idKey(record);
        if (key !== undefined) map.set(key, record);
      }
      this.#byId = map;
    }
    return this.#byId.get(String(id));
  }

  indexOf(record: M): number {
    return this.visible.indexOf(record);
  }

  /** The records from `start` to `end`, both included (all by default). */
  getRange(start = 0, end?: number): M[] {
    const list = this.visible;
    return list.slice(start, end === undefined ? list.length : end + 1);
  }

  [Symbol.iterator](): Iterator<M> {
    return this.visible[Symbol.iterator]();
  }

  private toRecords(items: ReadonlyArray<M | ModelInit<DataOf<M>>> | M | ModelInit<DataOf<M>>): M[] {
    const list = Array.isArray(items) ? items : [items];
    return list.map((item: unknown) => {
      if (item instanceof this.model) return item;
      if (item instanceof Model) {
        throw new TypeError(`Store of ${this.model.name}: cannot add a ${item.getModelClass().getEntityName()} record; make a ${this.model.name} instead`);
      }
      if (!isPlainObject(item)) throw new TypeError(`Store of ${this.model.name}: expected a record or an object of values, got ${describeValue(item)}`);
      return new this.model(item);
    });
  }

  private insertRecords(index: number, records: M[], fireEvents: boolean): M[] {
    const added: M[] = [];
    const batch = new Set<M>();
    for (const record of records) {
      if (batch.has(record)) continue;
      const removedAt = this.#removed.indexOf(record);
      if (record.belongsTo(this) && removedAt === -1 && !this.#offPage.includes(record)) continue; // already here
      const key = idKey(record);
      const holder = key === undefined ? undefined : this.getById(key);
      if (holder !== undefined && holder !== record) {
        throw new TypeError(`Store of ${this.model.name}: a record with id ${key} is already in the store`);
      }
      if (removedAt !== -1) this.#removed.splice(removedAt, 1);
      batch.add(record);
      added.push(record);
    }
    if (added.length === 0) return [];
    const at = Math.max(0, Math.min(index, this.#all.length));
    this.#all.splice(at, 0, ...added);
    for (const record of added) {
      record.join(this);
      this.index(record);
    }
    this.refresh();
    if (fireEvents) {
      this.fire('add', { store: this, records: added, index: added[0] === undefined ? -1 : this.visible.indexOf(added[0]) });
      this.fire('datachanged', { store: this });
      this.queueAutoSync();
    }
    return added;
  }

  /** Keep the id map (when built) up to date for one record. */
  private index(record: M): void {
    const key = idKey(record);
    if (this.#byId !== null && key !== undefined) this.#byId.set(key, record);
  }

  private unindex(record: M): void {
    const key = idKey(record);
    if (this.#byId !== null && key !== undefined && this.#byId.get(key) === record) this.#byId.delete(key);
  }

  /** Add records (records or plain data) at the end. Returns the records added. */
  add(records: M | ModelInit<DataOf<M>> | ReadonlyArray<M | ModelInit<DataOf<M>>>): M[] {
    return this.insertRecords(this.#all.length, this.toRecords(records), true);
  }

  /** Insert records at an index. Returns the records inserted. */
  insert(index: number, records: M | ModelInit<DataOf<M>> | ReadonlyArray<M | ModelInit<DataOf<M>>>): M[] {
    if (!Number.isInteger(index) || index < 0) throw new TypeError(`Store.insert: the index must be a non-negative integer, got ${describeValue(index)}`);
    const target = this.visible[index];
    const at = target === undefined ? this.#all.length : this.#all.indexOf(target);
    return this.insertRecords(at, this.toRecords(records), true);
  }

  /**
   * Remove records. Saved ones are kept for the next sync to destroy; a new one is just dropped.
   */
  remove(records: M | readonly M[]): M[] {
    const wanted = new Set<M>(Array.isArray(records) ? records : [records]);
    const removed: M[] = [];
    const indexes: number[] = [];
    const visible = this.visible;
    // Where each record is shown, found once rather than by a search per removed record.
    const shownAt = visible === this.#all || wanted.size === 1 ? undefined : new Map(visible.map((record, index) => [record, index]));
    const kept: M[] = [];
    this.#all.forEach((record, index) => {
      if (!wanted.has(record)) {
        kept.push(record);
        return;
      }
      removed.push(record);
      indexes.push(visible === this.#all ? index : (shownAt?.get(record) ?? visible.indexOf(record)));
      this.unindex(record);
      // A record whose create is in flight, or was sent unconfirmed, must be destroyed once it
      // exists on the server.
      if ((!record.phantom || record.saving || record.createSent) && !record.erased) {
        this.#removed.push(record);
        this.#removedAt.set(record, index);
      } else {
        record.unjoin(this);
      }
    });
    if (removed.length === 0) return [];
    this.#all = kept;
    this.refresh();
    this.fire('remove', { store: this, records: removed, indexes });
    this.fire('datachanged', { store: this });
    this.queueAutoSync();
    return removed;
  }

  removeAt(index: number, count = 1): M[] {
    return this.remove(this.visible.slice(index, index + count));
  }

  removeAll(): M[] {
    return this.remove([...this.#all]);
  }

  // ---- changes -----------------------------------------------------------------------------

  /** New records (phantom): a sync creates them. */
  getNewRecords(): M[] {
    return this.#all.filter((record) => record.phantom && !record.erased);
  }

  /** Saved records with unsaved edits: a sync updates them. */
  getUpdatedRecords(): M[] {
    const updated = this.#all.filter((record) => !record.phantom && record.dirty);
    for (const record of this.#offPage) if (record.dirty && !record.phantom && !updated.includes(record)) updated.push(record);
    return updated;
  }

  /** Removed saved records: a sync destroys them. */
  getRemovedRecords(): M[] {
    return [...this.#removed];
  }

  /** Whether anything is waiting to be synced. */
  hasChanges(): boolean {
    return this.getNewRecords().length > 0 || this.getUpdatedRecords().length > 0 || this.#removed.length > 0;
  }

  /** Take every edit as saved and forget pending removals (no request). New records stay new. */
  commitChanges(): void {
    for (const record of this.getUpdatedRecords()) record.commit();
    for (const record of this.#removed) record.unjoin(this);
    this.#removed = [];
    this.#offPage = [];
  }

  /** Undo every unsynced change: new records go, edits are undone, removed records come back. */
  rejectChanges(): void {
    for (const record of this.getNewRecords()) {
      if (record.saving) continue;
      const index = this.#all.indexOf(record);
      if (index !== -1) this.#all.splice(index, 1);
      record.unjoin(this);
    }
    for (const record of [...this.#all, ...this.#offPage]) if (record.dirty) record.reject();
    this.#offPage = [];
    const restore = this.#removed;
    this.#removed = [];
    for (const record of restore) {
      const index = this.#removedAt.get(record) ?? this.#all.length;
      this.#all.splice(Math.min(index, this.#all.length), 0, record);
      record.reject();
    }
    this.#byId = null;
    this.refresh();
    this.fire('datachanged', { store: this });
  }

  // ---- RecordOwner -------------------------------------------------------------------------

  afterEdit(record: Model<object>, modifiedFieldNames: string[]): void {
    const own = this.own(record);
    if (own === undefined) return;
    if (modifiedFieldNames.includes(this.model.idProperty)) this.#byId = null; // re-keyed on next lookup
    this.fire('update', { store: this, record: own, operation: 'edit', modifiedFieldNames });
    this.queueAutoSync();
  }

  afterCommit(record: Model<object>, modifiedFieldNames: string[]): void {
    const own = this.own(record);
    if (own === undefined) return;
    if (!this.#removed.includes(own)) this.index(own); // a created record now has its server id
    const offPage = this.#offPage.indexOf(own);
    if (offPage !== -1 && !own.dirty) {
      this.#offPage.splice(offPage, 1);
      own.unjoin(this);
    }
    if (this.hasListeners('update')) this.fire('update', { store: this, record: own, operation: 'commit', modifiedFieldNames });
  }

  afterReject(record: Model<object>): void {
    const own = this.own(record);
    if (own !== undefined) this.fire('update', { store: this, record: own, operation: 'reject', modifiedFieldNames: [] });
  }

  afterErase(record: Model<object>): void {
    const own = this.own(record);
    if (own === undefined) return;
    own.unjoin(this);
    const removedAt = this.#removed.indexOf(own);
    if (removedAt !== -1) {
      // Removed from the store before, so not listed: no need to look for it (a sync that
      // destroys 2,000 of 100,000 records looked through all of them 2,000 times).
      this.#removed.splice(removedAt, 1);
      return;
    }
    const index = this.#all.indexOf(own);
    if (index !== -1) {
      const visibleIndex = this.visible.indexOf(own);
      this.#all.splice(index, 1);
      this.unindex(own);
      this.refresh();
      this.fire('remove', { store: this, records: [own], indexes: [visibleIndex] });
      this.fire('datachanged', { store: this });
    }
  }

  private own(record: Model<object>): M | undefined {
    return record instanceof this.model ? record : undefined;
  }

  // ---- loading -----------------------------------------------------------------------------

  /**
   * Load records through the proxy. Resolves with the records loaded. A newer load supersedes
   * one still in flight, which rejects with kind 'abort' and changes nothing. Unsynced changes
   * survive: new, edited and removed records stay pending, and a loaded record that has local
   * edits keeps them on top of the server's values (unless `discardChanges`).
   */
  async load(options: LoadOptions = {}): Promise<M[]> {
    if (typeof options !== 'object' || options === null) throw new TypeError(`Store.load: options must be an object, got ${describeValue(options)}`);
    const seq = ++this.#loadSeq;
    this.#loadController?.abort();
    const controller = new AbortController();
    this.#loadController = controller;
    const callerSignal = options.signal;
    if (callerSignal?.aborted) controller.abort();
    else callerSignal?.addEventListener('abort', () => controller.abort(), { once: true });

    const paging = this.paging(options);
    const operation = new Operation({
      action: 'read',
      ...paging,
      params: { ...options.params },
      // Sorters and filters with a function run here, after the load: they cannot be sent.
      sorters: this.remoteSort ? this.sorters.filter((sorter) => sorter.sorterFn === undefined) : [],
      filters: this.remoteFilter ? this.filters.filter((filter) => filter.filterFn === undefined) : [],
      ...(this.remoteGroup && this.groupField !== undefined ? { grouper: { property: this.groupField, direction: this.groupDir } } : {}),
      signal: controller.signal,
    });
    if (!this.fire('beforeload', { store: this, operation })) {
      throw new ProxyError('abort', 'the load was cancelled by a beforeload listener', { operation });
    }
    this.loading = true;
    const superseded = (): ProxyError => new ProxyError('abort', 'the load was superseded by a newer load (or aborted); nothing changed', { operation });
    try {
      await this.getProxy().read(operation);
    } catch (error) {
      if (seq !== this.#loadSeq) throw superseded();
      this.loading = false;
      this.#loadController = undefined;
      if (error instanceof ProxyError) {
        if (error.kind === 'abort') throw error;
        this.fire('exception', { store: this, error, operation });
      }
      this.fire('load', { store: this, records: [], operation, successful: false });
      throw error;
    }
    if (seq !== this.#loadSeq || controller.signal.aborted) throw superseded();
    this.loading = false;
    this.#loadController = undefined;
    const records = this.adopt(operation.resultSet?.records ?? []);
    this.applyLoad(records, options);
    this.#totalCount = operation.resultSet?.total ?? records.length;
    if (paging.page !== undefined) this.currentPage = paging.page;
    this.fire('load', { store: this, records, operation, successful: true });
    this.fire('datachanged', { store: this });
    return records;
  }

  private paging(options: LoadOptions): { page?: number; start?: number; limit?: number } {
    const { page, start, limit } = options;
    for (const [name, value] of Object.entries({ page, start, limit })) {
      if (value !== undefined && (!Number.isInteger(value) || value < 0 || (name === 'page' && value < 1))) {
        throw new TypeError(`Store.load: ${name} must be a ${name === 'page' ? 'positive' : 'non-negative'} integer, got ${describeValue(value)}`);
      }
    }
    if (this.pageSize === 0 && page === undefined && start === undefined && limit === undefined) return {};
    const size = limit ?? (this.pageSize || undefined);
    const thePage = page ?? (start !== undefined && size ? Math.floor(start / size) + 1 : this.currentPage);
    const theStart = start ?? (size !== undefined ? (thePage - 1) * size : undefined);
    return { page: thePage, ...(theStart !== undefined ? { start: theStart } : {}), ...(size !== undefined ? { limit: size } : {}) };
  }

  /** Records of the store's model from what the proxy read. */
  private adopt(items: readonly unknown[]): M[] {
    const model = this.model;
    return items.map((item) => {
      if (item instanceof model) return item;
      if (item instanceof Model) return recordFromServer(model, item.getData());
      if (isPlainObject(item)) return recordFromServer(model, item);
      throw new ProxyError('parse', `the proxy read ${describeValue(item)} where a record was expected`);
    });
  }

  private applyLoad(loaded: M[], options: LoadOptions): void {
    const previous = this.#all;
    if (options.discardChanges) {
      for (const record of [...this.#removed, ...this.#offPage]) record.unjoin(this);
      this.#removed = [];
      this.#offPage = [];
    }
    const keep = !options.discardChanges;
    const removedIds = new Set<string>();
    const pending = new Map<string, M>();
    if (keep) {
      for (const record of this.#removed) {
        const key = idKey(record);
        if (key !== undefined) removedIds.add(key);
      }
      for (const list of [previous, this.#offPage]) {
        for (const record of list) {
          if (!record.dirty || record.phantom) continue;
          const key = idKey(record);
          if (key !== undefined) pending.set(key, record);
        }
      }
    }
    const next: M[] = options.addRecords ? [...previous] : keep ? previous.filter((record) => record.phantom && !record.erased) : [];
    const present = options.addRecords ? new Map(previous.map((record) => [idKey(record), record])) : undefined;
    if (removedIds.size === 0 && pending.size === 0 && present === undefined) {
      // The common case (nothing unsynced): take the loaded records as they are.
      for (let i = 0; i < loaded.length; i++) {
        const record = loaded[i];
        if (record !== undefined) next.push(record);
      }
    } else {
      for (const record of loaded) {
        const key = idKey(record);
        if (key !== undefined && removedIds.has(key)) continue; // still to be destroyed
        const local = key === undefined ? undefined : pending.get(key);
        if (local !== undefined) {
          // Local edits stay on top of the server's values.
          local.mergeRecord(record);
          if (key !== undefined) pending.delete(key);
          next.push(local);
          continue;
        }
        const existing = key === undefined ? undefined : present?.get(key);
        if (existing !== undefined) {
          existing.mergeRecord(record);
          continue;
        }
        next.push(record);
      }
    }
    // Edited records not on the loaded page stay pending for the next sync.
    const listed = pending.size === 0 ? undefined : new Set(next);
    const offPage = [...pending.values()].filter((record) => !listed?.has(record));
    for (const record of previous) record.unjoin(this);
    for (const record of this.#offPage) record.unjoin(this);
    for (let i = 0; i < next.length; i++) next[i]?.join(this);
    for (const record of offPage) record.join(this);
    for (const record of this.#removed) record.join(this);
    this.#all = next;
    this.#offPage = offPage;
    this.#byId = null;
    this.refresh();
  }

  /** Load page n (1-based). */
  loadPage(page: number, options: LoadOptions = {}): Promise<M[]> {
    return this.load({ ...options, page });
  }

  nextPage(options: LoadOptions = {}): Promise<M[]> {
    return this.loadPage(this.currentPage + 1, options);
  }

  previousPage(options: LoadOptions = {}): Promise<M[]> {
    return this.loadPage(Math.max(1, this.currentPage - 1), options);
  }

  /** The number of pages at the last load's total. */
  getPageCount(): number {
    return this.pageSize === 0 ? 1 : Math.max(1, Math.ceil(this.getTotalCount() / this.pageSize));
  }

  // ---- sorting, filtering, grouping --------------------------------------------------------

  /**
   * Sort by a property (calling it again for the same property without a direction flips it),
   * or by a list of sorters. Remote: reloads the first page; local: sorts now.
   */
  sort(property: string, direction?: Direction): Promise<M[]>;
  sort(sorters: Sorter[]): Promise<M[]>;
  sort(propertyOrSorters: string | Sorter[], direction?: Direction): Promise<M[]> {
    if (typeof propertyOrSorters === 'string') {
      const first = this.sorters[0];
      const dir = direction ?? (first?.property === propertyOrSorters && first.direction !== 'DESC' ? 'DESC' : 'ASC');
      this.sorters = [{ property: propertyOrSorters, direction: dir }];
    } else {
      this.sorters = propertyOrSorters;
    }
    return this.afterQueryChange(this.remoteSort);
  }

  /** Filter on a property (replacing a filter on the same property), or add a list of filters. */
  filter(property: string, value: unknown, operator?: Filter['operator']): Promise<M[]>;
  filter(filters: Filter[]): Promise<M[]>;
  filter(propertyOrFilters: string | Filter[], value?: unknown, operator?: Filter['operator']): Promise<M[]> {
    const added: Filter[] =
      typeof propertyOrFilters === 'string'
        ? [{ property: propertyOrFilters, value, ...(operator !== undefined ? { operator } : {}) }]
        : propertyOrFilters;
    const replaced = new Set(added.map((filter) => filter.property));
    this.filters = [...this.filters.filter((filter) => !replaced.has(filter.property)), ...added];
    this.currentPage = 1;
    return this.afterQueryChange(this.remoteFilter);
  }

  clearFilter(): Promise<M[]> {
    this.filters = [];
    this.currentPage = 1;
    return this.afterQueryChange(this.remoteFilter);
  }

  group(property: string, direction: Direction = 'ASC'): Promise<M[]> {
    this.groupField = property;
    this.groupDir = direction;
    return this.afterQueryChange(this.remoteGroup);
  }

  clearGrouping(): Promise<M[]> {
    this.groupField = undefined;
    return this.afterQueryChange(this.remoteGroup);
  }

  /** The groups of the records (by `groupField`), in order. */
  getGroups(): Group<M>[] {
    const field = this.groupField;
    if (field === undefined) return [];
    const groups = new Map<unknown, M[]>();
    for (const record of this.visible) {
      const name = record.readField(field);
      const key = comparable(name);
      const list = groups.get(key);
      if (list) list.push(record);
      else groups.set(key, [record]);
    }
    return [...groups.values()].map((records) => ({ name: records[0]?.readField(field), records }));
  }

  private afterQueryChange(remote: boolean): Promise<M[]> {
    if (remote) {
      this.currentPage = 1;
      return this.load();
    }
    this.refresh();
    this.fire('datachanged', { store: this });
    return Promise.resolve(this.getRange());
  }

  /** Apply the local sorters, grouping and filters. */
  private refresh(): void {
    const valueOf = (record: M, property: string): unknown => record.readField(property);
    const sorters: Sorter[] = [];
    if (!this.remoteGroup && this.groupField !== undefined) sorters.push({ property: this.groupField, direction: this.groupDir });
    sorters.push(...(this.remoteSort ? this.sorters.filter((sorter) => sorter.sorterFn !== undefined) : this.sorters));
    if (sorters.length > 0) this.#all.sort(comparator(sorters, valueOf));
    const filters = this.remoteFilter ? this.filters.filter((filter) => filter.filterFn !== undefined) : this.filters;
    this.#view = filters.length === 0 ? null : filterItems(this.#all, filters, valueOf);
  }

  // ---- syncing -----------------------------------------------------------------------------

  /**
   * Send every unsynced change in one Batch: new records are created, edited ones updated,
   * removed ones destroyed. Resolves with the Batch; on any failure rejects with a BatchError:
   * what succeeded is committed, what failed stays pending for the next sync. A sync called
   * while one runs waits for it, then sends only what is still pending.
   */
  sync(options: SyncOptions = {}): Promise<Batch> {
    const run = this.#syncing.then(() => this.runSync(options));
    this.#syncing = run.catch(() => undefined);
    return run;
  }

  /** True while a sync is running. */
  get isSyncing(): boolean {
    return this.#syncDepth > 0;
  }

  private async runSync(options: SyncOptions): Promise<Batch> {
    const create = this.getNewRecords().filter((record) => !record.saving);
    // Removed while their create was unconfirmed: created (confirmed) first, then destroyed.
    for (const record of this.#removed) if (record.phantom && record.createSent && !record.saving) create.push(record);
    const update = this.getUpdatedRecords().filter((record) => !record.saving);
    const destroy = this.#removed.filter((record) => (!record.phantom || record.createSent) && !record.erased && !record.saving);
    // An option left undefined takes the Batch's default.
    const batch = new Batch({ concurrency: options.concurrency, pauseOnException: options.pauseOnException });
    if (create.length + update.length + destroy.length === 0 || !this.fire('beforesync', { store: this, create, update, destroy })) {
      return batch.run([], () => Promise.resolve());
    }
    this.#syncDepth++;
    try {
      const work = this.getProxy().batch(
        { create, update, destroy },
        {
          ...options,
          onOperationComplete: (operation) => {
            if (!operation.wasSuccessful()) return;
            // The server's total changed by what was created or destroyed (until the next load says).
            if (this.#totalCount !== undefined && operation.action !== 'update') {
              this.#totalCount = Math.max(0, this.#totalCount + (operation.action === 'create' ? 1 : -1) * operation.records.length);
            }
            this.fire('write', { store: this, operation });
          },
        },
      );
      for (const record of [...create, ...update, ...destroy]) record.trackWrite(work);
      const done = await work;
      this.fire('datachanged', { store: this });
      const errors = done.exceptions.map((operation) => operation.error).filter((error) => error !== undefined);
      if (done.hasException()) {
        const error = new BatchError(done, errors);
        this.fire('exception', { store: this, error, operation: done.exceptions[0] });
        throw error;
      }
      return done;
    } finally {
      this.#syncDepth--;
    }
  }

  private queueAutoSync(): void {
    if (!this.autoSync || this.#autoSyncQueued) return;
    this.#autoSyncQueued = true;
    queueMicrotask(() => {
      this.#autoSyncQueued = false;
      this.sync().catch(() => undefined); // reported through the exception event
    });
  }
}

defineOptions(Store.prototype, 'Store', storeSchema);
