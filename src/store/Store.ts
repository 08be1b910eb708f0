import type { BatchError } from '../errors/BatchError.js';
import { ProxyError } from '../errors/ProxyError.js';
import { extensions } from '../model/extensions.js';
import { belongsTo, now, unjoin } from '../model/internal.js';
import { isModelClass, Model, type DataOf, type ModelClass, type ModelInit } from '../model/Model.js';
import type { Batch } from '../operation/Batch.js';
import type { Operation } from '../operation/Operation.js';
import type { Direction, Filter, Sorter } from '../operation/types.js';
import type { Proxy } from '../proxy/Proxy.js';
import { View, type Subscriber } from '../util/notify.js';
import { applyOptions, defineOptions, describeValue, isPlainObject, type Stored } from '../util/options.js';
import { dev } from '../util/dev.js';
import { HELD, REMOTE, SHOWN, StoreBase, VIEW } from './base.js';
import { checkFieldNames } from './fieldNames.js';
import { sameSnapshot, snapshotOf, storeSchema, type FieldName, type FilterOf, type Group, type LoadOptions, type SorterOf, type StoreConfig, type StoreDefaults, type StoreEvents, type StoreSnapshot, type SyncOptions } from './options.js';
import { keyOf } from './list.js';
import { freshness, type Freshness, type StoreState } from './freshness.js';
import { Loads, readOperation } from './load.js';
import { sinceLoad, type SinceLoad } from './pending.js';
import { StoreRecords, toDestroy, UNLIST } from './records.js';
import { SHARED, Syncs, type SyncShare } from './sync.js';
import type { RecordView } from './view.js';

export type { FieldName, FilterOf, Group, LoadOptions, SorterOf, StoreConfig, StoreEvents, StoreSnapshot, SyncOptions };

function ignore(): void {
  // reported through the exception event and the snapshot's error
}

function gone(model: ModelClass<Model<object>>, what: string): TypeError {
  return new TypeError(`Store of ${model.getEntityName()}: ${what}() after destroy()${dev('; make a new Store')}`);
}

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
export class Store<M extends Model = Model> extends StoreBase<M, StoreEvents<M>> {
  /** The page last loaded (1-based). */
  currentPage = 1;

  #totalCount: number | undefined = undefined;
  readonly #loads: Loads<M>;
  readonly #syncs: Syncs<M>;
  #autoSyncQueued = false;
  #error: ProxyError | BatchError | undefined = undefined;
  #destroyed = false;
  /** What the store shows, and its listeners. The records are the view's: a new array only when something shown changed. */
  readonly #view: View<StoreSnapshot<M>> = new View(() => snapshotOf(this, this.#error, this.#records.list.view.records(), this.#fresh), sameSnapshot);
  /** The records held (listed, removed, off the page) and what the store does when they change. */
  readonly #records: StoreRecords<M>;
  readonly #fresh: Freshness<M>;

  constructor(config: StoreConfig<M> = {}) {
    super();
    const { data, ...rest } = isPlainObject(config) ? config : { data: undefined };
    applyOptions(this, 'Store', storeSchema, isPlainObject(config) ? rest : config);
    this.session ??= extensions.defaultSession?.(this.model);
    if (!this.remoteSort) checkFieldNames(this.model, 'sorters', this.sorters);
    if (!this.remoteFilter) checkFieldNames(this.model, 'filters', this.filters);
    if (!this.remoteGroup && this.groupField !== undefined) checkFieldNames(this.model, 'groupField', [{ property: this.groupField }]);
    this.#records = new StoreRecords<M>({
      store: this,
      model: () => this.model,
      proxy: () => this.proxy,
      since: () => this.#loads.since,
      emit: (name, payload) => this.fire(name, payload),
      hears: (name) => this.hasListeners(name),
      refresh: () => this.#refresh(),
      edited: () => this.#queueAutoSync(),
      changed: (record) => {
        if (record !== undefined && this.#records.listed(record)) this.#records.list.view.touched(record);
        this.#view.changed();
      },
    });
    this.#loads = new Loads<M>({
      operation: (options, signal) => readOperation(this, options, signal, this.#fresh.validator),
      proxy: () => this.getProxy(),
      before: (operation) => this.fire('beforeload', { store: this, operation }),
      loaded: (operation, options, since) => this.#loaded(operation, options, since),
      called: () => ({ at: now(), pending: new Set([...this.getNewRecords(), ...this.#records.changes.removed]) }),
      failed: (operation, error) => {
        if (error instanceof ProxyError) {
          this.#error = error;
          this.fire('exception', { store: this, error, operation });
        }
        this.fire('load', { store: this, records: [], operation, successful: false });
      },
      changed: () => this.#changed(),
    });
    this.#fresh = freshness<M>(this, this.#loads, (operation) => this.#loaded(operation, {}, sinceLoad()), () => this.#changed());
    this.#syncs = new Syncs<M>({
      pending: () => this.#records.pending(),
      removed: () => this.#records.changes.removed,
      proxy: () => this.getProxy(),
      before: (create, update, destroy) => this.fire('beforesync', { store: this, create, update, destroy }),
      wrote: (operation) => {
        // The server's total changed by what was created or destroyed (until the next load says).
        if (this.#totalCount !== undefined && operation.action !== 'update') {
          this.#totalCount = Math.max(0, this.#totalCount + (operation.action === 'create' ? 1 : -1) * operation.records.length);
        }
        this.fire('write', { store: this, operation });
      },
      ended: (_batch, error) => {
        this.#error = error;
        this.fire('datachanged', { store: this });
        if (error !== undefined) this.fire('exception', { store: this, error, operation: error.batch.exceptions[0] });
      },
      changed: () => this.#changed(),
    });
    if (this.proxy && this.proxy.model === undefined && isModelClass(this.model)) this.proxy.model = this.model;
    if (data !== undefined) {
      if (!Array.isArray(data)) throw new TypeError(`Store: data must be an array of records or objects, got ${describeValue(data)}`);
      this.#insert(this.#records.list.all.length, data, false);
    }
    if (this.initialState !== undefined) this.hydrate(this.initialState);
    if (this.autoLoad !== false) {
      if (this.proxy === undefined && this.model.proxy === undefined) {
        throw new TypeError(`Store: autoLoad needs a proxy, and neither the store nor its model (${this.model.getEntityName()}) has one${dev('; give the store a proxy, or the model a static proxy')}`);
      }
      const options = this.autoLoad === true ? {} : this.autoLoad;
      queueMicrotask(() => {
        if (this.#fresh.mustLoad()) this.load(options).catch(ignore);
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

  /** True while a load is in flight. */
  get loading(): boolean {
    return this.#loads.running;
  }

  /** The total the server reported at the last load (for paging), else the number of records. */
  getTotalCount(): number {
    return this.#totalCount ?? this.#records.list.all.length;
  }

  /** The record with this id, among all records (also those a local filter hides). */
  getById(id: unknown): M | undefined {
    const key = keyOf(id);
    return key === undefined ? undefined : this.#records.list.find(key);
  }

  /** @internal */
  [SHOWN](): M[] { return this.#records.list.visible; }
  /** @internal */
  [HELD](): readonly M[] { return this.#records.list.view.ordered(); }
  /** @internal */
  [VIEW](): RecordView<M> { return this.#records.list.view; }

  #insert(index: number, items: ReadonlyArray<M | ModelInit<DataOf<M>>> | M | ModelInit<DataOf<M>>, fireEvents: boolean): M[] {
    const added = this.#records.insert(index, items);
    if (added.length === 0) return added;
    this.#refresh();
    if (fireEvents) {
      this.fire('add', { store: this, records: added, index: added[0] === undefined ? -1 : this.#records.list.visible.indexOf(added[0]) });
      this.fire('datachanged', { store: this });
      this.#queueAutoSync();
    }
    return added;
  }

  /** Add records (records or plain data) at the end. Returns the records added. */
  add(records: M | ModelInit<DataOf<M>> | ReadonlyArray<M | ModelInit<DataOf<M>>>): M[] {
    if (this.#destroyed) throw gone(this.model, 'add');
    return this.#insert(this.#records.list.all.length, records, true);
  }

  /** Insert records at an index. Returns the records inserted. */
  insert(index: number, records: M | ModelInit<DataOf<M>> | ReadonlyArray<M | ModelInit<DataOf<M>>>): M[] {
    if (this.#destroyed) throw gone(this.model, 'insert');
    if (!Number.isInteger(index) || index < 0) throw new TypeError(`Store.insert: the index must be a non-negative integer, got ${describeValue(index)}`);
    const target = this.#records.list.visible[index];
    const at = target === undefined ? this.#records.list.all.length : this.#records.list.all.indexOf(target);
    return this.#insert(at, records, true);
  }

  /**
   * Remove records. Saved ones are kept for the next sync to destroy; a new one is just dropped,
   * unless its create is in flight or may have been applied (it is then destroyed once created).
   */
  remove(records: M | readonly M[]): M[] {
    return this.#take(records, true);
  }

  #take(records: M | readonly M[], destroy: boolean): M[] {
    const taken = this.#records.list.take(new Set<M>(Array.isArray(records) ? records : [records]));
    if (taken.length === 0) return [];
    for (const { record, at } of taken) {
      if (destroy && toDestroy(record)) {
        this.#records.changes.remove(record, at);
      } else {
        unjoin(record, this.#records.owner);
      }
    }
    const removed = taken.map(({ record }) => record);
    this.#refresh();
    this.fire('remove', { store: this, records: removed, indexes: taken.map(({ shownAt }) => shownAt) });
    this.fire('datachanged', { store: this });
    if (destroy) this.#queueAutoSync();
    return removed;
  }

  /** @internal Unlist records without marking them for destroy (an association store's members follow their keys). */
  [UNLIST](records: readonly M[]): void { this.#take(records, false); }

  removeAt(index: number, count = 1): M[] {
    return this.remove(this.#records.list.visible.slice(index, index + count));
  }

  removeAll(): M[] {
    return this.remove([...this.#records.list.all]);
  }

  // ---- changes -----------------------------------------------------------------------------

  /** New records (phantom): a sync creates them. */
  getNewRecords(): M[] {
    return this.#records.list.all.filter((record) => record.phantom && !record.erased);
  }

  /** Saved records with unsaved edits: a sync updates them. */
  getUpdatedRecords(): M[] {
    return this.#records.changes.updated(this.#records.list.all);
  }

  /** Removed saved records: a sync destroys them. */
  getRemovedRecords(): M[] {
    return [...this.#records.prune()];
  }

  /** Whether anything is waiting to be synced. */
  hasChanges(): boolean {
    const { list, changes, owner } = this.#records;
    // The listed records that may be dirty are kept aside: no look at every record per snapshot.
    return list.view.anyDirty((record) => belongsTo(record, owner)) || changes.offPage.some((record) => record.dirty) || this.#records.prune().some((record) => !record.erased);
  }

  /** Take every edit as saved and forget pending removals (no request). New records stay new. */
  commitChanges(): void {
    for (const record of this.getUpdatedRecords()) record.commit();
    for (const record of this.#records.changes.clear()) unjoin(record, this.#records.owner);
    this.#changed();
  }

  /**
   * Undo every unsynced change: new records go, edits are undone, removed records come back. A
   * new record whose create may have been applied goes as with remove(): destroyed once confirmed.
   * A removed record whose DELETE may have been applied stays removed: the next sync confirms it.
   */
  rejectChanges(): void {
    this.#records.rejectAll(this.getNewRecords());
    this.#refresh(true);
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
  load(options: LoadOptions = {}): Promise<M[]> {
    return this.#destroyed ? Promise.reject(gone(this.model, 'load')) : this.#fresh.load(options);
  }

  /** Load again what the last load loaded, in the background: never discards, joins a read in flight. */
  refetch(): Promise<M[]> { return this.#destroyed ? Promise.reject(gone(this.model, 'refetch')) : this.#fresh.refetch(); }
  /** The page shown, JSON-serialisable, for `initialState` or `hydrate()` (server rendering). */
  dehydrate(): StoreState { return this.#fresh.dehydrate(); }
  /** Show a dehydrated page as a load of its rows (a state older than what is shown is ignored). */
  hydrate(state: StoreState): void { this.#fresh.hydrate(state); }
  /** Settles once the persisted page (`persist`) was read: true when one is shown. Never rejects. */
  get restored(): Promise<boolean> { return this.#fresh.restored; }

  #loaded(operation: Operation, options: LoadOptions, since: SinceLoad<M>): M[] {
    // rest-proxy/offline: the records its outbox restored join the store first, their edits on top of the load.
    const notModified = this.#fresh.answered(operation);
    this.#error = undefined;
    if (notModified) return this.getRange();
    extensions.outboxOf?.(this.model)?.restore<M>(this, operation);
    const records = this.#records.adopt(operation.resultSet?.records ?? []);
    const listed = this.#records.applyLoad(records, options, since);
    this.#totalCount = operation.resultSet?.total ?? records.length;
    this[REMOTE] = operation.resultSet?.summary;
    if (operation.page !== undefined) this.currentPage = operation.page;
    this.#fresh.applied();
    this.fire('load', { store: this, records: listed, operation, successful: true });
    this.fire('datachanged', { store: this });
    return listed;
  }

  /** Load again what the last load asked for (page, start, limit, params; given options win; never loaded: page 1). */
  reload(options: LoadOptions = {}): Promise<M[]> { return this.load({ ...this.#loads.last, ...options }); }

  /** Load page n (1-based). */
  loadPage(page: number, options: LoadOptions = {}): Promise<M[]> { return this.load({ ...options, page }); }

  nextPage(options: LoadOptions = {}): Promise<M[]> { return this.loadPage(this.currentPage + 1, options); }

  previousPage(options: LoadOptions = {}): Promise<M[]> { return this.loadPage(Math.max(1, this.currentPage - 1), options); }

  /** The number of pages at the last load's total. */
  getPageCount(): number {
    return this.pageSize === 0 ? 1 : Math.max(1, Math.ceil(this.getTotalCount() / this.pageSize));
  }

  // ---- sorting, filtering, grouping --------------------------------------------------------

  /**
   * Sort by a property (calling it again for the same property without a direction flips it),
   * or by a list of sorters. Remote: reloads the first page; local: sorts now.
   */
  sort(property: FieldName<M>, direction?: Direction): Promise<M[]>;
  sort(sorters: SorterOf<M>[]): Promise<M[]>;
  sort(propertyOrSorters: FieldName<M> | SorterOf<M>[], direction?: Direction): Promise<M[]> {
    let sorters = propertyOrSorters;
    if (typeof sorters === 'string') {
      const first = this.sorters[0];
      sorters = [{ property: sorters, direction: direction ?? (first?.property === sorters && first.direction !== 'DESC' ? 'DESC' : 'ASC') }];
    }
    if (!this.remoteSort) checkFieldNames(this.model, 'sort', sorters);
    this.sorters = sorters;
    return this.#afterQueryChange(this.remoteSort);
  }

  /** Filter on a property (replacing a filter on the same property), or add a list of filters. */
  filter(property: FieldName<M>, value: unknown, operator?: Filter['operator']): Promise<M[]>;
  filter(property: string, value: unknown, operator: 'search'): Promise<M[]>;
  filter(filters: FilterOf<M>[]): Promise<M[]>;
  filter(propertyOrFilters: string | FilterOf<M>[], value?: unknown, operator?: Filter['operator']): Promise<M[]> {
    const added: Filter[] = typeof propertyOrFilters === 'string' ? [{ property: propertyOrFilters, value, ...(operator !== undefined ? { operator } : {}) }] : propertyOrFilters;
    if (!this.remoteFilter) checkFieldNames(this.model, 'filter', added);
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

  group(property: FieldName<M>, direction: Direction = 'ASC'): Promise<M[]> {
    if (!this.remoteGroup) checkFieldNames(this.model, 'group', [{ property }]);
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
    return field === undefined ? [] : this.#records.list.view.groups(field);
  }

  #afterQueryChange(remote: boolean): Promise<M[]> {
    if (remote) {
      this.currentPage = 1;
      return this.load();
    }
    this.#refresh(true);
    this.fire('datachanged', { store: this });
    return Promise.resolve(this.getRange());
  }

  /** Apply the local sorters, grouping and filters (`force`: made again though they did not change). */
  #refresh(force = false): void {
    const sorters: Sorter[] = [];
    if (!this.remoteGroup && this.groupField !== undefined) sorters.push({ property: this.groupField, direction: this.groupDir });
    sorters.push(...(this.remoteSort ? this.sorters.filter((sorter) => sorter.sorterFn !== undefined) : this.sorters));
    this.#records.list.arrange(sorters, this.remoteFilter ? this.filters.filter((filter) => filter.filterFn !== undefined) : this.filters, force);
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
    return this.#destroyed ? Promise.reject(gone(this.model, 'sync')) : this.#syncs.run(options);
  }

  /** @internal A sync of others (a session's) writes the store's records: it shows syncing, then its outcome. */
  [SHARED](): SyncShare<M> { return this.#syncs.share(); }

  /** True while a sync is running. */
  get isSyncing(): boolean {
    return this.#syncs.running;
  }

  #queueAutoSync(): void {
    if (!this.autoSync || this.#autoSyncQueued) return;
    this.#autoSyncQueued = true;
    queueMicrotask(() => {
      this.#autoSyncQueued = false;
      this.sync().catch(ignore);
    });
  }

  // ---- releasing --------------------------------------------------------------------------

  /**
   * Release the store: its records stop referring to it, its listeners and subscribers are
   * dropped, a load in flight rejects as superseded, and it lists nothing; `load`, `sync`, `add`
   * and `insert` are then a TypeError. Unsynced changes are not sent (records keep their edits).
   */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#loads.stop();
    this.#fresh.stop();
    this.#records.list.view.followers?.release(); // its live summaries and chained stores
    this.#records.release();
    this.dropListeners();
    this.#view.clear();
    this.#changed();
  }

  // ---- subscriptions -----------------------------------------------------------------------

  #changed(): void {
    this.#view.changed();
  }

  /**
   * Hear of every visible change (records and their order, a record's values, total, loading,
   * syncing, the last error): `listener` is called at once with the current snapshot, then once
   * per change batch, in a later microtask (a load of 10,000 records notifies a few times, not per
   * record). Returns the function that unsubscribes. Svelte can use a store as a store (`$store`).
   */
  subscribe(listener: Subscriber<StoreSnapshot<M>>): () => void {
    return this.#fresh.watch(this.#view.add(listener));
  }

  /** What the store looks like now: the same object until something visible changes. */
  getSnapshot(): StoreSnapshot<M> {
    return this.#view.get();
  }

  static {
    // Setting an option property (pageSize, sorters, ...) tells subscribers when the snapshot shows it.
    defineOptions(Store.prototype, 'Store', storeSchema, (store) => {
      if (#view in store) store.#view.changed();
    });
  }
}

// Vue's reactive() and ref() leave a store as it is, as markRaw would: the store tells its own
// changes (subscribe, or rest-proxy/vue's useStore), and a deep proxy over its records would only slow them down.
Object.defineProperty(Store.prototype, '__v_skip', { value: true });
