import type { BatchError } from '../errors/BatchError.js';
import { ProxyError } from '../errors/ProxyError.js';
import { extensions } from '../model/extensions.js';
import { now } from '../model/internal.js';
import { ignore } from '../model/save.js';
import { Model, type DataOf, type ModelClass, type ModelInit } from '../model/Model.js';
import type { Batch } from '../operation/Batch.js';
import type { Operation } from '../operation/Operation.js';
import type { Direction, Filter } from '../operation/types.js';
import type { Proxy } from '../proxy/Proxy.js';
import { View, type Subscriber } from '../util/notify.js';
import { applyOptions, defineOptions, describeValue, isPlainObject, type Stored } from '../util/options.js';
import { dev } from '../util/dev.js';
import { filtersWith, localArrangement, sortersOf } from './arrange.js';
import { HELD, REMOTE, SHOWN, StoreBase, VIEW } from './base.js';
import { checkFieldNames } from './fieldNames.js';
import { sameSnapshot, snapshotOf, storeSchema, type FieldName, type FilterOf, type Group, type LoadOptions, type SorterOf, type StoreConfig, type StoreDefaults, type StoreEvents, type StoreSnapshot, type SyncOptions } from './options.js';
import { freshness, type Freshness, type StoreState } from './freshness.js';
import { autoLoadOptions, claimProxy, Loads, readOperation } from './load.js';
import { sinceLoad, type SinceLoad } from './pending.js';
import { keyOf } from './list.js';
import { StoreRecords, UNLIST } from './records.js';
import { SHARED, Syncs, type SyncShare } from './sync.js';
import type { RecordView } from './view.js';

export type { FieldName, FilterOf, Group, LoadOptions, SorterOf, StoreConfig, StoreEvents, StoreSnapshot, SyncOptions };

const gone = (model: ModelClass<Model<object>>, what: string): TypeError => new TypeError(`Store of ${model.getEntityName()}: ${what}() after destroy()${dev('; make a new Store')}`);

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

  #totalCount: number | undefined;
  readonly #loads: Loads<M>;
  readonly #syncs: Syncs<M>;
  #autoSyncQueued = false;
  #error: ProxyError | BatchError | undefined;
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
    // The sorters, filters and group field applied locally (not those the remote* options send).
    if (!this.remoteSort) checkFieldNames(this.model, 'sorters', this.sorters);
    if (!this.remoteFilter) checkFieldNames(this.model, 'filters', this.filters);
    if (!this.remoteGroup && this.groupField !== undefined) checkFieldNames(this.model, 'groupField', [{ property: this.groupField }]);
    this.#records = new StoreRecords<M>({
      store: this,
      model: () => this.model,
      since: () => this.#loads.since,
      updated: (record, operation, names) => this.hasListeners('update') && this.fire('update', { store: this, record, operation, modifiedFieldNames: [...names] }),
      removed: (records, indexes) => {
        this.#refresh();
        this.fire('remove', { store: this, records, indexes });
        this.fire('datachanged', { store: this });
      },
      arrange: () => this.#refresh(),
      edited: () => this.#queueAutoSync(),
      changed: () => this.#view.changed(),
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
      changed: () => this.#view.changed(),
    });
    this.#fresh = freshness<M>(this, this.#loads, (operation) => this.#loaded(operation, {}, sinceLoad()), () => this.#view.changed(), () => this.#records.page());
    this.#syncs = new Syncs<M>({
      pending: () => this.#records.pending(),
      removed: () => this.#records.changes.removed,
      proxy: () => this.getProxy(),
      before: (create, update, destroy) => this.fire('beforesync', { store: this, create, update, destroy }),
      wrote: (operation) => {
        // The server's total: more by what was created, fewer by what was destroyed (until the next load says).
        if (this.#totalCount !== undefined && operation.action !== 'update') this.#totalCount = Math.max(0, this.#totalCount + (operation.action === 'create' ? 1 : -1) * operation.records.length);
        this.fire('write', { store: this, operation });
      },
      ended: (_batch, error) => {
        this.#error = error;
        this.fire('datachanged', { store: this });
        if (error !== undefined) this.fire('exception', { store: this, error, operation: error.batch.exceptions[0] });
      },
      changed: () => this.#view.changed(),
    });
    if (this.proxy) claimProxy(this.proxy, this.model);
    if (data !== undefined) {
      if (!Array.isArray(data)) throw new TypeError(`Store: data must be an array${dev(' of records or objects')}, got ${describeValue(data)}`);
      this.#records.insert(0, data);
      this.#refresh();
    }
    if (this.initialState !== undefined) this.hydrate(this.initialState);
    const auto = autoLoadOptions(this);
    if (auto) queueMicrotask(() => this.#fresh.isStale && this.load(auto).catch(ignore));
  }

  /** The proxy used: the store's own, else the model's. */
  getProxy(): Proxy { return claimProxy(this.proxy ?? this.model.getProxy(), this.model); }

  // ---- the collection ----------------------------------------------------------------------

  /** True while a load is in flight. */
  get loading(): boolean { return this.#loads.running; }

  /** The total the server reported at the last load (for paging), else the number of records. */
  getTotalCount(): number { return this.#totalCount ?? this.#records.list.all.length; }

  /** The record with this id, among all records (also those a local filter hides). */
  getById(id: unknown): M | undefined { return this.#records.list.find(keyOf(id)); }

  /** @internal */
  [SHOWN](): M[] { return this.#records.list.view.shown(); }
  /** @internal */
  [HELD](): readonly M[] { return this.#records.list.view.ordered(); }
  /** @internal */
  [VIEW](): RecordView<M> { return this.#records.list.view; }

  #insert(index: number, items: ReadonlyArray<M | ModelInit<DataOf<M>>> | M | ModelInit<DataOf<M>>): M[] {
    const added = this.#records.insert(index, items);
    if (added.length === 0) return added;
    this.#refresh();
    this.fire('add', { store: this, records: added, index: added[0] === undefined ? -1 : this[SHOWN]().indexOf(added[0]) });
    this.fire('datachanged', { store: this });
    this.#queueAutoSync();
    return added;
  }

  /** Add records (records or plain data) at the end. Returns the records added. */
  add(records: M | ModelInit<DataOf<M>> | ReadonlyArray<M | ModelInit<DataOf<M>>>): M[] {
    if (this.#destroyed) throw gone(this.model, 'add');
    return this.#insert(this.#records.list.all.length, records);
  }

  /** Insert records at an index. Returns the records inserted. */
  insert(index: number, records: M | ModelInit<DataOf<M>> | ReadonlyArray<M | ModelInit<DataOf<M>>>): M[] {
    if (this.#destroyed) throw gone(this.model, 'insert');
    if (!Number.isInteger(index) || index < 0) throw new TypeError(`Store.insert: the index must be a non-negative integer, got ${describeValue(index)}`);
    // Before the record shown at `index` (past the last shown: at the end).
    const target = this[SHOWN]()[index];
    return this.#insert(target === undefined ? this.#records.list.all.length : this.#records.list.all.indexOf(target), records);
  }

  /**
   * Remove records. Saved ones are kept for the next sync to destroy; a new one is just dropped,
   * unless its create is in flight or may have been applied (it is then destroyed once created).
   */
  remove(records: M | readonly M[]): M[] { return this.#records.take(Array.isArray(records) ? records : [records], true); }

  /** @internal Unlist records without marking them for destroy (an association store's members follow their keys). */
  [UNLIST](records: readonly M[]): void { this.#records.take(records, false); }

  removeAt(index: number, count = 1): M[] { return this.remove(this[SHOWN]().slice(index, index + count)); }

  removeAll(): M[] { return this.remove(this.#records.list.all); }

  // ---- changes -----------------------------------------------------------------------------

  /** New records (phantom): a sync creates them. */
  getNewRecords(): M[] { return this.#records.list.all.filter((record) => record.phantom && !record.erased); }
  /** Saved records with unsaved edits: a sync updates them. */
  getUpdatedRecords(): M[] { return this.#records.changes.updated(this.#records.list.all); }
  /** Removed saved records: a sync destroys them. */
  getRemovedRecords(): M[] { return [...this.#records.prune()]; }
  /** Whether anything is waiting to be synced. */
  hasChanges(): boolean { return this.#records.hasChanges(); }
  /** Take every edit as saved and forget pending removals (no request). New records stay new. */
  commitChanges(): void { this.#records.commitAll(); }

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
  load(options: LoadOptions = {}): Promise<M[]> { return this.#destroyed ? Promise.reject(gone(this.model, 'load')) : this.#fresh.load(options); }

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
    const notModified = this.#fresh.answered(operation, options);
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
  getPageCount(): number { return this.pageSize === 0 ? 1 : Math.max(1, Math.ceil(this.getTotalCount() / this.pageSize)); }

  // ---- sorting, filtering, grouping --------------------------------------------------------

  /**
   * Sort by a property (calling it again for the same property without a direction flips it),
   * or by a list of sorters. Remote: reloads the first page; local: sorts now.
   */
  sort(property: FieldName<M>, direction?: Direction): Promise<M[]>;
  sort(sorters: SorterOf<M>[]): Promise<M[]>;
  sort(propertyOrSorters: FieldName<M> | SorterOf<M>[], direction?: Direction): Promise<M[]> {
    const sorters = sortersOf(this.sorters, propertyOrSorters, direction);
    if (!this.remoteSort) checkFieldNames(this.model, 'sort', sorters);
    this.sorters = sorters;
    return this.#afterQueryChange(this.remoteSort);
  }

  /** Filter on a property (replacing a filter on the same property), or add a list of filters. */
  filter(property: FieldName<M>, value: unknown, operator?: Filter['operator']): Promise<M[]>;
  filter(property: string, value: unknown, operator: 'search'): Promise<M[]>;
  filter(filters: FilterOf<M>[]): Promise<M[]>;
  filter(propertyOrFilters: string | FilterOf<M>[], value?: unknown, operator?: Filter['operator']): Promise<M[]> {
    const { filters, added } = filtersWith(this.filters, propertyOrFilters, value, operator);
    if (!this.remoteFilter) checkFieldNames(this.model, 'filter', added);
    this.filters = filters;
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
  getGroups(): Group<M>[] { return this.groupField === undefined ? [] : this.#records.list.view.groups(this.groupField); }

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
    this.#records.list.view.arrange(...localArrangement(this), force);
    this.#view.changed();
  }

  // ---- syncing -----------------------------------------------------------------------------

  /**
   * Send every unsynced change in one Batch: new records are created, edited ones updated,
   * removed ones destroyed. It first waits for the writes in flight of those records (a save,
   * another store's sync), then sends what is still pending: a sync that resolves has sent every
   * change made before it was called. On any failure rejects with a BatchError: what succeeded is
   * committed, what failed stays pending for the next sync. Syncs of one store run one after the other.
   */
  sync(options: SyncOptions = {}): Promise<Batch> { return this.#destroyed ? Promise.reject(gone(this.model, 'sync')) : this.#syncs.run(options); }

  /** @internal A sync of others (a session's) writes the store's records: it shows syncing, then its outcome. */
  [SHARED](): SyncShare<M> { return this.#syncs.share(); }

  /** True while a sync is running. */
  get isSyncing(): boolean { return this.#syncs.running; }

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
    this.#fresh.stop(true);
    this.#records.list.view.followers?.release(); // its live summaries and chained stores
    this.#records.release();
    this.dropListeners();
    this.#view.clear();
    this.#view.changed();
  }

  // ---- subscriptions -----------------------------------------------------------------------

  /**
   * Hear of every visible change (records and their order, a record's values, total, loading,
   * syncing, the last error): `listener` is called at once with the current snapshot, then once
   * per change batch, in a later microtask (a load of 10,000 records notifies a few times, not per
   * record). Returns the function that unsubscribes. Svelte can use a store as a store (`$store`).
   */
  subscribe(listener: Subscriber<StoreSnapshot<M>>): () => void { return this.#fresh.watch(this.#view.add(listener)); }

  /** What the store looks like now: the same object until something visible changes. */
  getSnapshot(): StoreSnapshot<M> { return this.#view.get(); }

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
