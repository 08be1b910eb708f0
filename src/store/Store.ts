import { BatchError } from '../errors/BatchError.js';
import { ProxyError } from '../errors/ProxyError.js';
import { LOAD } from '../errors/messages.js';
import { belongsTo, join, unjoin, type RecordOwner } from '../model/internal.js';
import { isModelClass, Model, recordFromServer, takeServerRecord, type DataOf, type ModelClass, type ModelInit } from '../model/Model.js';
import { claimWrites } from '../model/writes.js';
import { mayExist } from '../model/writeState.js';
import { Batch, type BatchConfig } from '../operation/Batch.js';
import { Operation } from '../operation/Operation.js';
import { WRITE_STATE } from '../operation/protocol.js';
import type { Direction, Filter, Sorter } from '../operation/types.js';
import { Proxy } from '../proxy/Proxy.js';
import { createProxy, type ProxyTypeConfig } from '../proxy/registry.js';
import type { RestProxyConfig } from '../proxy/RestProxy.js';
import { Observable } from '../util/events.js';
import { filterItems } from '../util/filtering.js';
import { schedule, Subscribers, type Subscriber } from '../util/notify.js';
import { applyOptions, defineOptions, describeValue, is, isPlainObject, option, type Schema, type Stored } from '../util/options.js';
import { comparable, comparator } from '../util/sorting.js';
import { mergeLoaded, sinceLoad, type SinceLoad } from './pending.js';

/** The options of a Store; each is afterwards a property of the same name. */
export interface StoreConfig<M extends Model> {
  /** The Model class of the records. Default `Model` (untyped). */
  model?: ModelClass<M>;
  /**
   * A proxy (or config) to use instead of the model's. A config without `type` makes a
   * RestProxy. Default the model's proxy. @example { url: '/api/admins', preset: 'rails' }
   */
  proxy?: Proxy | ProxyTypeConfig | RestProxyConfig | undefined;
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
  groupField?: string | undefined;
  /** The direction of the groups. Default `'ASC'`. */
  groupDir?: Direction;
  /** Load as soon as the store is made (true, or the load options). Needs a proxy. Default false. */
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
  /** A load or a sync failed: `error.kind` tells a ProxyError (a load) from a BatchError (`'batch'`, a sync). */
  exception: { store: Store<M>; error: ProxyError | BatchError; operation: Operation | undefined };
}

/** A group of records with the same value of the group field. */
export interface Group<M> {
  name: unknown;
  records: M[];
}

/** What a store looks like now, for a UI: a new object only when something visible changed. */
export interface StoreSnapshot<M extends Model = Model> {
  readonly store: Store<M>;
  /** The records shown (local filters applied), in order. */
  readonly records: readonly M[];
  /** The total the server reported at the last load, else the number of records. */
  readonly total: number;
  readonly page: number;
  readonly pageCount: number;
  readonly loading: boolean;
  readonly syncing: boolean;
  /** Whether anything waits to be synced (new, edited or removed records). */
  readonly hasChanges: boolean;
  /** The error of the last load or sync that failed, until one succeeds (never a superseded load). */
  readonly error: ProxyError | BatchError | undefined;
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

const storeSchema = {
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
} satisfies Schema<Omit<StoreConfig<Model>, 'data'>>;

function idKey(record: Model<object>): string | undefined {
  const id = record.getId();
  return id === undefined || id === null || id === '' ? undefined : String(id);
}

function ignore(): void {
  // reported through the exception event and the snapshot's error
}

type StoreDefaults = 'pageSize' | 'remoteSort' | 'remoteFilter' | 'remoteGroup' | 'sorters' | 'filters' | 'groupDir' | 'autoLoad' | 'autoSync';

// The option properties come from StoreConfig (declared once there, with their documentation).
export interface Store<M extends Model = Model> extends Omit<Stored<StoreConfig<M>, StoreDefaults>, 'data' | 'model' | 'proxy'> {
  /** The Model class of the records. */
  model: ModelClass<M>;
  /** The store's own proxy, when it has one (else the model's is used: see getProxy). */
  proxy: Proxy | undefined;
}

/**
 * A collection of records of one model, loaded, paged, sorted, filtered and grouped through its
 * proxy, and saved with `sync()`. Unsynced changes are never dropped by a load, and a load never
 * undoes a write that completed after it was sent.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Store<M extends Model = Model> extends Observable<StoreEvents<M>> implements Iterable<M> {
  /** The page last loaded (1-based). */
  currentPage = 1;

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
  #loading = false;
  #loadController: AbortController | undefined = undefined;
  /** What completed since the load in flight was sent. */
  #since: SinceLoad<M> | undefined = undefined;
  #syncing: Promise<unknown> = Promise.resolve();
  #syncDepth = 0;
  #autoSyncQueued = false;
  #error: ProxyError | BatchError | undefined = undefined;
  #subscribers: Subscribers<StoreSnapshot<M>> | undefined = undefined;
  #snapshot: StoreSnapshot<M> | undefined = undefined;
  #fresh = false;
  /** How the store hears of its records' changes (kept off its public face). */
  readonly #owner: RecordOwner;

  constructor(config: StoreConfig<M> = {}) {
    super();
    const { data, ...rest } = isPlainObject(config) ? config : { data: undefined };
    applyOptions(this, 'Store', storeSchema, isPlainObject(config) ? rest : config);
    this.#owner = {
      proxy: () => this.proxy,
      afterEdit: (record, names) => this.#afterEdit(record, names),
      afterCommit: (record, names, created) => this.#afterCommit(record, names, created),
      afterReject: (record) => this.#afterReject(record),
      afterErase: (record) => this.#afterErase(record),
      afterChange: () => this.#changed(),
    };
    if (this.proxy && this.proxy.model === undefined && isModelClass(this.model)) this.proxy.model = this.model;
    if (data !== undefined) {
      if (!Array.isArray(data)) throw new TypeError(`Store: data must be an array of records or objects, got ${describeValue(data)}`);
      this.#insert(this.#all.length, this.#toRecords(data), false);
    }
    if (this.autoLoad !== false) {
      if (this.proxy === undefined && this.model.proxy === undefined) {
        throw new TypeError(`Store: autoLoad needs a proxy, and neither the store nor its model (${this.model.getEntityName()}) has one; give the store a proxy, or the model a static proxy`);
      }
      const options = this.autoLoad === true ? {} : this.autoLoad;
      queueMicrotask(() => {
        this.load(options).catch(ignore);
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

  get #visible(): M[] {
    return this.#view ?? this.#all;
  }

  /** True while a load is in flight. */
  get loading(): boolean {
    return this.#loading;
  }

  getCount(): number {
    return this.#visible.length;
  }

  /** The total the server reported at the last load (for paging), else the number of records. */
  getTotalCount(): number {
    return this.#totalCount ?? this.#all.length;
  }

  getAt(index: number): M | undefined {
    return this.#visible[index];
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
    return this.#visible.indexOf(record);
  }

  /** The records from `start` to `end`, both included (all by default). */
  getRange(start = 0, end?: number): M[] {
    const list = this.#visible;
    return list.slice(start, end === undefined ? list.length : end + 1);
  }

  [Symbol.iterator](): Iterator<M> {
    return this.#visible[Symbol.iterator]();
  }

  #toRecords(items: ReadonlyArray<M | ModelInit<DataOf<M>>> | M | ModelInit<DataOf<M>>): M[] {
    const list = Array.isArray(items) ? items : [items];
    return list.map((item: unknown) => {
      if (item instanceof this.model) return item;
      const name = this.model.getEntityName();
      if (item instanceof Model) throw new TypeError(`Store of ${name}: cannot add a record of ${item.getModelClass().getEntityName()}; make a record of the store's model instead`);
      if (!isPlainObject(item)) throw new TypeError(`Store of ${name}: expected a record or an object of values, got ${describeValue(item)}`);
      return new this.model(item);
    });
  }

  #insert(index: number, records: M[], fireEvents: boolean): M[] {
    const added: M[] = [];
    const batch = new Set<M>();
    for (const record of records) {
      if (batch.has(record)) continue;
      const removedAt = this.#removed.indexOf(record);
      if (belongsTo(record, this.#owner) && removedAt === -1 && !this.#offPage.includes(record)) continue; // already here
      const key = idKey(record);
      const holder = key === undefined ? undefined : this.getById(key);
      if (holder !== undefined && holder !== record) throw new TypeError(`Store of ${this.model.getEntityName()}: a record with id ${key} is already in the store`);
      if (removedAt !== -1) this.#removed.splice(removedAt, 1);
      batch.add(record);
      added.push(record);
    }
    if (added.length === 0) return [];
    const at = Math.max(0, Math.min(index, this.#all.length));
    this.#all.splice(at, 0, ...added);
    for (const record of added) {
      join(record, this.#owner);
      this.#index(record);
    }
    this.#refresh();
    if (fireEvents) {
      this.fire('add', { store: this, records: added, index: added[0] === undefined ? -1 : this.#visible.indexOf(added[0]) });
      this.fire('datachanged', { store: this });
      this.#queueAutoSync();
    }
    return added;
  }

  /** Keep the id map (when built) up to date for one record. */
  #index(record: M): void {
    const key = idKey(record);
    if (this.#byId !== null && key !== undefined) this.#byId.set(key, record);
  }

  #unindex(record: M): void {
    const key = idKey(record);
    if (this.#byId !== null && key !== undefined && this.#byId.get(key) === record) this.#byId.delete(key);
  }

  /** Add records (records or plain data) at the end. Returns the records added. */
  add(records: M | ModelInit<DataOf<M>> | ReadonlyArray<M | ModelInit<DataOf<M>>>): M[] {
    return this.#insert(this.#all.length, this.#toRecords(records), true);
  }

  /** Insert records at an index. Returns the records inserted. */
  insert(index: number, records: M | ModelInit<DataOf<M>> | ReadonlyArray<M | ModelInit<DataOf<M>>>): M[] {
    if (!Number.isInteger(index) || index < 0) throw new TypeError(`Store.insert: the index must be a non-negative integer, got ${describeValue(index)}`);
    const target = this.#visible[index];
    const at = target === undefined ? this.#all.length : this.#all.indexOf(target);
    return this.#insert(at, this.#toRecords(records), true);
  }

  /**
   * Remove records. Saved ones are kept for the next sync to destroy; a new one is just dropped,
   * unless its create is in flight or may have been applied (it is then destroyed once created).
   */
  remove(records: M | readonly M[]): M[] {
    const wanted = new Set<M>(Array.isArray(records) ? records : [records]);
    const removed: M[] = [];
    const indexes: number[] = [];
    const visible = this.#visible;
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
      this.#unindex(record);
      if ((!record.phantom || record.saving || mayExist(record[WRITE_STATE])) && !record.erased) {
        this.#removed.push(record);
        this.#removedAt.set(record, index);
      } else {
        unjoin(record, this.#owner);
      }
    });
    if (removed.length === 0) return [];
    this.#all = kept;
    this.#refresh();
    this.fire('remove', { store: this, records: removed, indexes });
    this.fire('datachanged', { store: this });
    this.#queueAutoSync();
    return removed;
  }

  removeAt(index: number, count = 1): M[] {
    return this.remove(this.#visible.slice(index, index + count));
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
    return this.#removed.length > 0 || this.#offPage.some((record) => record.dirty) || this.#all.some((record) => record.dirty && !record.erased);
  }

  /** Take every edit as saved and forget pending removals (no request). New records stay new. */
  commitChanges(): void {
    for (const record of this.getUpdatedRecords()) record.commit();
    for (const record of this.#removed) unjoin(record, this.#owner);
    this.#removed = [];
    this.#offPage = [];
    this.#changed();
  }

  /** Undo every unsynced change: new records go, edits are undone, removed records come back. */
  rejectChanges(): void {
    for (const record of this.getNewRecords()) {
      if (record.saving) continue;
      const index = this.#all.indexOf(record);
      if (index !== -1) this.#all.splice(index, 1);
      unjoin(record, this.#owner);
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
    this.#refresh();
    this.fire('datachanged', { store: this });
  }

  // ---- what the records tell their store ---------------------------------------------------

  #own(record: object): M | undefined {
    return record instanceof this.model ? record : undefined;
  }

  #afterEdit(record: object, names: readonly string[]): void {
    const own = this.#own(record);
    if (own === undefined) return;
    if (names.includes(this.model.idProperty)) this.#byId = null; // re-keyed on next lookup
    this.fire('update', { store: this, record: own, operation: 'edit', modifiedFieldNames: [...names] });
    this.#queueAutoSync();
  }

  #afterCommit(record: object, names: readonly string[], created: boolean): void {
    const own = this.#own(record);
    if (own === undefined) return;
    if (this.#since !== undefined) {
      if (created) this.#since.created.add(own);
      this.#since.written.add(own);
    }
    if (created) this.#replaceCopy(own);
    if (!this.#removed.includes(own)) this.#index(own); // a created record now has its server id
    const offPage = this.#offPage.indexOf(own);
    if (offPage !== -1 && !own.dirty) {
      this.#offPage.splice(offPage, 1);
      unjoin(own, this.#owner);
    }
    if (this.hasListeners('update')) this.fire('update', { store: this, record: own, operation: 'commit', modifiedFieldNames: [...names] });
  }

  /**
   * A created record whose id a load already brought (the load saw the row of a create that was
   * not confirmed yet): the user's record takes the copy's place, with the edits made to the copy.
   */
  #replaceCopy(own: M): void {
    const key = idKey(own);
    if (key === undefined) return;
    if (this.#byId === null) {
      const map = new Map<string, M>();
      for (const record of this.#all) {
        const id = record === own ? undefined : idKey(record);
        if (id !== undefined) map.set(id, record);
      }
      this.#byId = map;
    }
    const copy = this.#byId.get(key);
    if (copy === undefined || copy === own) return;
    const at = this.#all.indexOf(copy);
    if (at === -1) return;
    const visibleAt = this.#visible.indexOf(copy);
    this.#all.splice(at, 1);
    this.#byId.delete(key);
    unjoin(copy, this.#owner);
    if (copy.dirty && !copy.phantom) own.set(copy.getChanges());
    this.#refresh();
    this.fire('remove', { store: this, records: [copy], indexes: [visibleAt] });
    this.fire('datachanged', { store: this });
  }

  #afterReject(record: object): void {
    const own = this.#own(record);
    if (own !== undefined) this.fire('update', { store: this, record: own, operation: 'reject', modifiedFieldNames: [] });
  }

  #afterErase(record: object): void {
    const own = this.#own(record);
    if (own === undefined) return;
    const key = idKey(own);
    if (this.#since !== undefined && key !== undefined) this.#since.erased.add(key);
    unjoin(own, this.#owner);
    const removedAt = this.#removed.indexOf(own);
    if (removedAt !== -1) {
      // Removed from the store before, so not listed: no need to look for it (a sync that
      // destroys 2,000 of 100,000 records looked through all of them 2,000 times).
      this.#removed.splice(removedAt, 1);
      return;
    }
    const index = this.#all.indexOf(own);
    if (index === -1) return;
    const visibleIndex = this.#visible.indexOf(own);
    this.#all.splice(index, 1);
    this.#unindex(own);
    this.#refresh();
    this.fire('remove', { store: this, records: [own], indexes: [visibleIndex] });
    this.fire('datachanged', { store: this });
  }

  // ---- loading -----------------------------------------------------------------------------

  /**
   * Load records through the proxy. Resolves with the records loaded. A newer load supersedes
   * one still in flight, which rejects with kind 'abort' (`error.superseded`) and changes nothing.
   * A loaded record whose id the store holds updates that record (one object per id). Unsynced
   * changes survive: new, edited and removed records stay pending, and a held record with local
   * edits keeps them on top of the server's values (unless `discardChanges`). Writes that
   * completed after the load was sent are not undone by its answer.
   */
  async load(options: LoadOptions = {}): Promise<M[]> {
    if (typeof options !== 'object' || options === null) throw new TypeError(`Store.load: options must be an object, got ${describeValue(options)}`);
    const seq = ++this.#loadSeq;
    this.#loadController?.abort();
    const controller = new AbortController();
    this.#loadController = controller;
    const callerSignal = options.signal;
    const forward = (): void => controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener('abort', forward, { once: true });
    try {
      return await this.#runLoad(seq, controller, options);
    } finally {
      callerSignal?.removeEventListener('abort', forward);
    }
  }

  async #runLoad(seq: number, controller: AbortController, options: LoadOptions): Promise<M[]> {
    const paging = this.#paging(options);
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
    if (!this.fire('beforeload', { store: this, operation })) throw new ProxyError('abort', LOAD.cancelled, { operation });
    const since = sinceLoad<M>();
    this.#since = since;
    this.#setLoading(true);
    const superseded = (): ProxyError => new ProxyError('abort', LOAD.superseded, { operation, superseded: seq !== this.#loadSeq });
    const settle = (): void => {
      if (this.#since === since) this.#since = undefined;
      this.#loadController = undefined;
      this.#setLoading(false);
    };
    try {
      await this.getProxy().read(operation);
    } catch (error) {
      if (seq !== this.#loadSeq) throw superseded();
      settle();
      if (error instanceof ProxyError) {
        if (error.kind === 'abort') throw error;
        this.#error = error;
        this.fire('exception', { store: this, error, operation });
      }
      this.fire('load', { store: this, records: [], operation, successful: false });
      throw error;
    }
    if (seq !== this.#loadSeq || controller.signal.aborted) throw superseded();
    settle();
    const records = this.#adopt(operation.resultSet?.records ?? []);
    const listed = this.#applyLoad(records, options, since);
    this.#totalCount = operation.resultSet?.total ?? records.length;
    if (paging.page !== undefined) this.currentPage = paging.page;
    this.#error = undefined;
    this.fire('load', { store: this, records: listed, operation, successful: true });
    this.fire('datachanged', { store: this });
    return listed;
  }

  #setLoading(loading: boolean): void {
    if (this.#loading === loading) return;
    this.#loading = loading;
    this.#changed();
  }

  #paging(options: LoadOptions): { page?: number; start?: number; limit?: number } {
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
  #adopt(items: readonly unknown[]): M[] {
    const model = this.model;
    return items.map((item) => {
      if (item instanceof model) return item;
      if (item instanceof Model) return recordFromServer(model, item.getData());
      if (isPlainObject(item)) return recordFromServer(model, item);
      throw new ProxyError('parse', `the proxy read ${describeValue(item)} where a record was expected`);
    });
  }

  /** Merge a load's answer into the store (see mergeLoaded); returns the records it lists now. */
  #applyLoad(loaded: M[], options: LoadOptions, since: SinceLoad<M>): M[] {
    const previous = this.#all;
    const plan = mergeLoaded<M>(previous, loaded, {
      key: idKey,
      isNew: (record) => record.phantom,
      isDirty: (record) => record.dirty,
      removed: this.#removed,
      offPage: this.#offPage,
      since,
      discard: options.discardChanges === true,
      append: options.addRecords === true,
    });
    for (const record of plan.rejected) record.reject();
    for (const [held, fresh] of plan.updates) takeServerRecord(held, fresh);
    const kept = new Set<M>([...plan.list, ...plan.offPage, ...plan.removed]);
    for (const list of [previous, this.#offPage, this.#removed]) for (const record of list) if (!kept.has(record)) unjoin(record, this.#owner);
    for (const record of kept) join(record, this.#owner);
    this.#all = plan.list;
    this.#offPage = plan.offPage;
    this.#removed = plan.removed;
    this.#byId = null;
    this.#refresh();
    const held = new Map(plan.updates.map(([mine, fresh]) => [fresh, mine]));
    return held.size === 0 ? loaded : loaded.map((record) => held.get(record) ?? record);
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
    return this.#afterQueryChange(this.remoteSort);
  }

  /** Filter on a property (replacing a filter on the same property), or add a list of filters. */
  filter(property: string, value: unknown, operator?: Filter['operator']): Promise<M[]>;
  filter(filters: Filter[]): Promise<M[]>;
  filter(propertyOrFilters: string | Filter[], value?: unknown, operator?: Filter['operator']): Promise<M[]> {
    const added: Filter[] = typeof propertyOrFilters === 'string' ? [{ property: propertyOrFilters, value, ...(operator !== undefined ? { operator } : {}) }] : propertyOrFilters;
    const replaced = new Set(added.map((filter) => filter.property));
    this.filters = [...this.filters.filter((filter) => !replaced.has(filter.property)), ...added];
    this.currentPage = 1;
    return this.#afterQueryChange(this.remoteFilter);
  }

  clearFilter(): Promise<M[]> {
    this.filters = [];
    this.currentPage = 1;
    return this.#afterQueryChange(this.remoteFilter);
  }

  group(property: string, direction: Direction = 'ASC'): Promise<M[]> {
    this.groupField = property;
    this.groupDir = direction;
    return this.#afterQueryChange(this.remoteGroup);
  }

  clearGrouping(): Promise<M[]> {
    this.groupField = undefined;
    return this.#afterQueryChange(this.remoteGroup);
  }

  /** The groups of the records (by `groupField`), in order. */
  getGroups(): Group<M>[] {
    const field = this.groupField;
    if (field === undefined) return [];
    const groups = new Map<unknown, M[]>();
    for (const record of this.#visible) {
      const key = comparable(record.get(field));
      const list = groups.get(key);
      if (list) list.push(record);
      else groups.set(key, [record]);
    }
    return [...groups.values()].map((records) => ({ name: records[0]?.get(field), records }));
  }

  #afterQueryChange(remote: boolean): Promise<M[]> {
    if (remote) {
      this.currentPage = 1;
      return this.load();
    }
    this.#refresh();
    this.fire('datachanged', { store: this });
    return Promise.resolve(this.getRange());
  }

  /** Apply the local sorters, grouping and filters. */
  #refresh(): void {
    const valueOf = (record: M, property: string): unknown => record.get(property);
    const sorters: Sorter[] = [];
    if (!this.remoteGroup && this.groupField !== undefined) sorters.push({ property: this.groupField, direction: this.groupDir });
    sorters.push(...(this.remoteSort ? this.sorters.filter((sorter) => sorter.sorterFn !== undefined) : this.sorters));
    if (sorters.length > 0) this.#all.sort(comparator(sorters, valueOf));
    const filters = this.remoteFilter ? this.filters.filter((filter) => filter.filterFn !== undefined) : this.filters;
    this.#view = filters.length === 0 ? null : filterItems(this.#all, filters, valueOf);
    this.#changed();
  }

  // ---- syncing -----------------------------------------------------------------------------

  /**
   * Send every unsynced change in one Batch: new records are created, edited ones updated,
   * removed ones destroyed. It first waits for the writes in flight of those records (a save,
   * another store's sync), then sends what is still pending: a sync that resolves has sent every
   * change made before it was called. On any failure rejects with a BatchError: what succeeded is
   * committed, what failed stays pending for the next sync. Syncs of one store run one after the other.
   */
  sync(options: SyncOptions = {}): Promise<Batch> {
    const run = this.#syncing.then(() => this.#runSync(options));
    this.#syncing = run.catch(ignore);
    return run;
  }

  /** True while a sync is running. */
  get isSyncing(): boolean {
    return this.#syncDepth > 0;
  }

  async #runSync(options: SyncOptions): Promise<Batch> {
    // An option left undefined takes the Batch's default.
    const empty = (): Promise<Batch> => new Batch({ concurrency: options.concurrency, pauseOnException: options.pauseOnException }).run([], () => Promise.resolve());
    const candidates = [...this.#all.filter((record) => record.dirty && !record.erased), ...this.#offPage.filter((record) => record.dirty), ...this.#removed.filter((record) => !record.erased)];
    if (candidates.length === 0) return empty();
    let finish = ignore;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    this.#syncDepth++;
    this.#changed();
    try {
      // Their writes in flight first: a save of one of them, or another store's sync.
      const waits = claimWrites(candidates, done);
      if (waits.length > 0) await Promise.all(waits);
      const removed = new Set(this.#removed);
      const create: M[] = [];
      const update: M[] = [];
      const destroy: M[] = [];
      for (const record of candidates) {
        if (record.erased) continue;
        const state = record[WRITE_STATE];
        if (removed.has(record)) {
          // Removed while its create may have been applied: created (confirmed) first, then destroyed.
          if (mayExist(state)) create.push(record);
          if (!record.phantom || mayExist(state)) destroy.push(record);
        } else if (record.phantom) create.push(record);
        else if (record.dirty) update.push(record);
      }
      if (create.length + update.length + destroy.length === 0 || !this.fire('beforesync', { store: this, create, update, destroy })) return await empty();
      const batch = await this.getProxy().batch(
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
      this.fire('datachanged', { store: this });
      if (batch.hasException()) {
        const error = new BatchError(batch, batch.exceptions.map((operation) => operation.error).filter((error) => error !== undefined));
        this.#error = error;
        this.fire('exception', { store: this, error, operation: batch.exceptions[0] });
        throw error;
      }
      this.#error = undefined;
      return batch;
    } finally {
      finish();
      this.#syncDepth--;
      this.#changed();
    }
  }

  #queueAutoSync(): void {
    if (!this.autoSync || this.#autoSyncQueued) return;
    this.#autoSyncQueued = true;
    queueMicrotask(() => {
      this.#autoSyncQueued = false;
      this.sync().catch(ignore);
    });
  }

  // ---- subscriptions -----------------------------------------------------------------------

  /** Something visible changed: the snapshot is made again when next asked for, subscribers hear of it. */
  #changed(): void {
    this.#fresh = false;
    const subscribers = this.#subscribers;
    if (subscribers !== undefined && subscribers.list.length > 0) schedule(subscribers);
  }

  /**
   * Hear of every visible change (records and their order, a record's values, total, loading,
   * syncing, the last error): `listener` is called at once with the current snapshot, then once
   * per change batch, in a later microtask (a load of 10,000 records notifies a few times, not per
   * record). Returns the function that unsubscribes. Svelte can use a store as a store (`$store`).
   */
  subscribe(listener: Subscriber<StoreSnapshot<M>>): () => void {
    const subscribers = (this.#subscribers ??= new Subscribers(() => this.getSnapshot()));
    return subscribers.add(listener);
  }

  /** What the store looks like now: the same object until something visible changes. */
  getSnapshot(): StoreSnapshot<M> {
    const last = this.#snapshot;
    if (this.#fresh && last !== undefined) return last;
    const next: StoreSnapshot<M> = Object.freeze({
      store: this,
      records: Object.freeze(this.getRange()),
      total: this.getTotalCount(),
      page: this.currentPage,
      pageCount: this.getPageCount(),
      loading: this.#loading,
      syncing: this.isSyncing,
      hasChanges: this.hasChanges(),
      error: this.#error,
    });
    this.#snapshot = next;
    this.#fresh = true;
    return next;
  }
}

defineOptions(Store.prototype, 'Store', storeSchema);

// Vue's reactive() and ref() leave a store as it is, as markRaw would: the store tells its own
// changes (subscribe, or rest-proxy/vue's useStore), and a deep proxy over its records would only slow them down.
Object.defineProperty(Store.prototype, '__v_skip', { value: true });
