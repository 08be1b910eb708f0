/**
 * BufferedStore (rest-proxy/buffered): a huge remote collection read page by page as a grid
 * scrolls. A facade that speaks rows over a page map (pageMap.ts: LRU, generations), a read
 * queue (queue.ts: what is on screen first) and local offsets (offsets.ts: adds and removes
 * shift the rows without a re-read). Its records are the model's: they save, destroy and sync
 * through the core's write path, one record per id.
 */
import type { BatchError } from '../errors/BatchError.js';
import { ProxyError } from '../errors/ProxyError.js';
import { isModelClass, type DataOf, type Model, type ModelClass, type ModelInit } from '../model/Model.js';
import type { Batch } from '../operation/Batch.js';
import type { Direction, Filter } from '../operation/types.js';
import type { Proxy } from '../proxy/Proxy.js';
import type { FieldName, FilterOf, SorterOf, SyncOptions } from '../store/options.js';
import { keyOf } from '../store/list.js';
import { Syncs } from '../store/sync.js';
import { Observable } from '../util/events.js';
import { View, type Subscriber } from '../util/notify.js';
import { bufferedOptions, filtersWith, isPlaceholder, sameSnapshot, sortersFor, type BufferedOptions, type BufferedSnapshot, type BufferedStoreConfig, type Placeholder } from './options.js';
import { LocalOffsets } from './offsets.js';
import { PageMap, type Page } from './pageMap.js';
import { ReadQueue } from './queue.js';
import { checkRange, rowsOf, zoneOf } from './ranges.js';
import { BufferedRecords, unsaved } from './records.js';
import { BufferedEdits } from './edits.js';
import { BufferedReads, type BufferedStoreEvents } from './reads.js';

export type { BufferedStoreEvents };

function ignore(): void {
  // reported through the exception event and the snapshot's error
}

/**
 * A sparse, bounded view of a remote collection: `getRange` answers at once with records and
 * placeholders, `setVisibleRange` loads what is on screen first then prefetches, far pages are
 * purged. Sort and filter are remote. New records go on top; edits save and sync as any store's.
 */
export class BufferedStore<M extends Model = Model> extends Observable<BufferedStoreEvents<M>> {
  /** The Model class of the records. */
  readonly model: ModelClass<M>;
  /** The store's own proxy, when it has one (else the model's: see getProxy). */
  readonly proxy: Proxy | undefined;
  readonly pageSize: number;
  readonly leadingBufferZone: number;
  readonly trailingBufferZone: number;
  readonly cacheSize: number;
  readonly maxConcurrentRequests: number;
  readonly params: Record<string, unknown>;
  /** Sync after every change (add, edit, remove). */
  autoSync: boolean;
  #sorters: SorterOf<M>[];
  #filters: FilterOf<M>[];
  readonly #pages = new PageMap<M>();
  readonly #queue = new ReadQueue();
  readonly #offsets = new LocalOffsets<M>();
  readonly #records: BufferedRecords<M>;
  readonly #reads: BufferedReads<M>;
  readonly #syncs: Syncs<M>;
  readonly #edits: BufferedEdits<M>;
  /** The visible range, and whether it last moved forward. */
  #range: { start: number; end: number } | undefined = undefined;
  #forward = true;
  #error: ProxyError | BatchError | undefined = undefined;
  #destroyed = false;
  #autoSyncQueued = false;
  /** The rows of the last snapshot made: an edit of one of them changes the snapshot. */
  #shown: readonly (M | Placeholder)[] = [];
  readonly #view = new View<BufferedSnapshot<M>>(() => this.#snapshot(), sameSnapshot);

  constructor(config: BufferedStoreConfig<M> = {}) {
    super();
    const options: BufferedOptions<M> = bufferedOptions<M>(config);
    ({ model: this.model, proxy: this.proxy, pageSize: this.pageSize, params: this.params, autoSync: this.autoSync } = options);
    ({ leadingBufferZone: this.leadingBufferZone, trailingBufferZone: this.trailingBufferZone, cacheSize: this.cacheSize, maxConcurrentRequests: this.maxConcurrentRequests } = options);
    ({ sorters: this.#sorters, filters: this.#filters } = options);
    if (this.proxy && this.proxy.model === undefined && isModelClass(this.model)) this.proxy.model = this.model;
    this.#records = new BufferedRecords<M>({
      model: () => this.model,
      proxy: () => this.proxy,
      edited: (record, names) => {
        this.fire('update', { store: this, record, operation: 'edit', modifiedFieldNames: [...names] });
        this.#queueAutoSync();
        this.#recordChanged(record);
      },
      committed: (record, names, operation) => {
        this.fire('update', { store: this, record, operation, modifiedFieldNames: [...names] });
        this.#recordChanged(record);
      },
      erased: (record) => this.#edits.erased(record),
      changed: (record) => this.#recordChanged(record),
      settled: (record) => this.#edits.settled(record),
      relisted: (record) => this.#edits.relist(record),
    });
    this.#reads = new BufferedReads<M>({
      store: this, options, pages: this.#pages,
      queue: this.#queue, offsets: this.#offsets, records: this.#records,
      query: () => ({ sorters: [...this.#sorters], filters: [...this.#filters], params: { ...this.params } }),
      proxy: () => this.getProxy(),
      pinned: (page, held) => this.#queue.visible(page) || held.rows.some(unsaved),
      zone: () => this.#zone(),
      error: (error, operation) => {
        this.#error = error;
        if (error !== undefined) this.fire('exception', { store: this, error, operation });
      },
      changed: () => this.#view.changed(),
      fire: (name, payload) => this.fire(name, payload),
    });
    this.#edits = new BufferedEdits<M>({
      store: this, offsets: this.#offsets, records: this.#records, reads: this.#reads,
      shifted: () => this.#shifted(),
      edited: () => this.#queueAutoSync(),
      fire: (name, payload) => this.fire(name, payload),
    });
    this.#syncs = new Syncs<M>({
      pending: () => [...new Set([...this.getNewRecords(), ...this.#records.updated(), ...this.#records.prune()])],
      removed: () => [...this.#records.removed.keys()],
      proxy: () => this.getProxy(),
      before: (create, update, destroy) => this.fire('beforesync', { store: this, create, update, destroy }),
      wrote: (operation) => this.fire('write', { store: this, operation }),
      ended: (_batch, error) => {
        this.#error = error;
        if (error !== undefined) this.fire('exception', { store: this, error, operation: error.batch.exceptions[0] });
        this.#view.changed();
      },
      changed: () => this.#view.changed(),
    });
  }

  #gone(method: string): TypeError {
    return new TypeError(`BufferedStore of ${this.model.getEntityName()}: ${method}() after destroy(); make a new BufferedStore`);
  }

  #live(method: string): void {
    if (this.#destroyed) throw this.#gone(method);
  }

  /** The proxy used: the store's own, else the model's. */
  getProxy(): Proxy {
    const proxy = this.proxy ?? this.model.getProxy();
    if (proxy.model === undefined && isModelClass(this.model)) proxy.model = this.model;
    return proxy;
  }

  /** The sorters sent with every page read (change them with `sort()`). */
  get sorters(): readonly SorterOf<M>[] {
    return this.#sorters;
  }

  /** The filters sent with every page read (change them with `filter()`, `clearFilter()`). */
  get filters(): readonly FilterOf<M>[] {
    return this.#filters;
  }

  // ---- rows ----------------------------------------------------------------------------------

  /** The rows a grid lays out: the total when known; in grow mode, one page past the furthest full page read. */
  getCount(): number {
    const server = this.#reads.serverCount();
    return server === undefined ? this.#offsets.added.length : server + this.#reads.moved();
  }

  /** The server's total (of the generation's first answer), plus rows added, minus rows removed since; undefined while unknown. */
  getTotalCount(): number | undefined {
    const total = this.#reads.total;
    return total === undefined ? undefined : total + this.#reads.moved();
  }

  /** The page numbers held, ascending. */
  getCachedPages(): number[] {
    return this.#pages.numbers();
  }

  /** The last row index of a range from `start` to `end`: clipped to the rows laid out once a first answer came. */
  #clip(end: number): number {
    return this.#reads.counted ? Math.min(end, this.getCount() - 1) : end;
  }

  /** The rows from `start` to `end`; `ask`: the pages missing are read (and every page shown counts as used). */
  #rows(start: number, end: number, ask: boolean): (M | Placeholder)[] {
    return rowsOf(this.#pages, this.#offsets, this.pageSize, start, this.#clip(end), ask ? this.#seen : undefined);
  }

  readonly #seen = (number: number, page: Page<M> | undefined): void => this.#ask(number, page);

  #ask(number: number, page: Page<M> | undefined): void {
    if (page !== undefined) this.#pages.touch(page);
    if (page === undefined || page.stale) this.#reads.ask(number);
  }

  /**
   * The rows from `start` to `end` (both included; clipped to the rows laid out), each a record or
   * a Placeholder; the pages missing are read (no prefetch).
   * @throws RangeError for a negative, non-integer or reversed range.
   */
  getRange(start: number, end: number): (M | Placeholder)[] {
    this.#live('getRange');
    checkRange('getRange', start, end);
    return this.#rows(start, end, true);
  }

  /** The pages of `getRange(start, end)`, read; resolves with the records of the range once all are loaded (a reload's kept pages replaced). */
  loadRange(start: number, end: number): Promise<M[]> {
    try {
      this.#live('loadRange');
      checkRange('loadRange', start, end);
    } catch (error) {
      return Promise.reject(error);
    }
    const pages = new Set<number>();
    rowsOf(this.#pages, this.#offsets, this.pageSize, start, this.#clip(end), (number, page) => {
      this.#ask(number, page);
      if (page === undefined || page.stale) pages.add(number);
    });
    return this.#reads.wait(pages, () => this.#rows(start, end, false).filter((row): row is M => !isPlaceholder(row)));
  }

  /** The record at `index` when cached (or new), else undefined; never a request. */
  getAt(index: number): M | undefined {
    checkRange('getAt', index);
    const [row] = this.#rows(index, index, false);
    return row === undefined || isPlaceholder(row) ? undefined : row;
  }

  /** The record with this id among the cached rows and the records with unsaved changes; never a request. */
  getById(id: unknown): M | undefined {
    const key = keyOf(id);
    const record = key === undefined ? undefined : this.#records.byId.get(key);
    return record === undefined || this.#records.removed.has(record) ? undefined : record;
  }

  /** The index of a cached (or new) record; -1 when not cached. */
  indexOf(record: M): number {
    const top = this.#offsets.added.indexOf(record);
    if (top !== -1) return top;
    const server = this.#reads.serverIndexOf(record);
    return server === undefined ? -1 : this.#offsets.indexOf(server);
  }

  // ---- the visible range ---------------------------------------------------------------------

  /**
   * The rows on screen: their pages load first, then the leading zone (in the direction of
   * travel) and the trailing zone, nearest first.
   * @throws RangeError for a negative, non-integer or reversed range.
   */
  setVisibleRange(start: number, end: number): void {
    this.#live('setVisibleRange');
    checkRange('setVisibleRange', start, end);
    const before = this.#range;
    this.#forward = before === undefined || start >= before.start;
    this.#range = { start, end };
    this.#queue.failed.clear();
    this.#queue.setZone(this.#zone());
    for (const page of this.#queue.order()) this.#pages.use(page);
    this.#view.changed();
    this.#reads.schedule();
  }

  #zone(): ReturnType<typeof zoneOf> {
    const range = this.#range;
    if (range === undefined) return { visible: [], leading: [], trailing: [] };
    const rows = { pageSize: this.pageSize, offsets: this.#offsets, count: this.#reads.counted ? this.getCount() : Infinity };
    return zoneOf(rows, range.start, range.end, this.#forward, this.leadingBufferZone, this.trailingBufferZone);
  }

  // ---- sort, filter, reload --------------------------------------------------------------------

  /** Sort on the server (a new generation); resolves when the visible pages are loaded. */
  sort(property: FieldName<M>, direction?: Direction): Promise<M[]>;
  sort(sorters: SorterOf<M>[]): Promise<M[]>;
  sort(propertyOrSorters: FieldName<M> | SorterOf<M>[], direction?: Direction): Promise<M[]> {
    this.#sorters = sortersFor(this.#sorters, propertyOrSorters, direction);
    return this.#generation(false, 'sort');
  }

  /** Filter on the server (replacing a filter on the same property); resolves when the visible pages are loaded. */
  filter(property: FieldName<M>, value: unknown, operator?: Filter['operator']): Promise<M[]>;
  filter(filters: FilterOf<M>[]): Promise<M[]>;
  filter(propertyOrFilters: FieldName<M> | FilterOf<M>[], value?: unknown, operator?: Filter['operator']): Promise<M[]> {
    this.#filters = filtersWith(this.#filters, propertyOrFilters, value, operator);
    return this.#generation(false, 'filter', false);
  }

  clearFilter(): Promise<M[]> {
    this.#filters = [];
    return this.#generation(false, 'clearFilter', false);
  }

  /** Read again from the first answer on (a new generation, same sort and filter). */
  load(): Promise<M[]> {
    return this.#generation(false, 'load');
  }

  /** Read the rows again, keeping those on screen until their replacements arrive (edits on top). */
  reload(): Promise<M[]> {
    return this.#generation(true, 'reload');
  }

  /** `sameRows`: the server reads the same rows (not a filter change). */
  #generation(keepShown: boolean, method: string, sameRows = true): Promise<M[]> {
    if (this.#destroyed) return Promise.reject(this.#gone(method));
    this.#reads.restart(keepShown, sameRows);
    const range = this.#range ?? { start: 0, end: this.pageSize - 1 };
    return this.loadRange(range.start, range.end);
  }

  // ---- edits ---------------------------------------------------------------------------------

  /** Add records (records or plain data) on top: index 0, before earlier adds; no request. Returns the records added. */
  add(records: M | ModelInit<DataOf<M>> | ReadonlyArray<M | ModelInit<DataOf<M>>>): M[] {
    this.#live('add');
    return this.#edits.add(records);
  }

  /** Take rows out at once (later rows shift up; no request): `sync()` destroys the saved ones. */
  remove(records: M | readonly M[]): M[] {
    this.#live('remove');
    return this.#edits.remove(records);
  }

  /** Remove the row at `index` when it is loaded. */
  removeAt(index: number): M[] {
    const record = this.getAt(index);
    return record === undefined ? [] : this.remove(record);
  }

  /** Rows moved: the zones follow, a grid hears of it. */
  #shifted(): void {
    this.#queue.setZone(this.#zone());
    this.#view.changed();
    this.#reads.schedule();
  }

  #recordChanged(record: M): void {
    if (this.#shown.includes(record)) this.#view.changed(true);
  }

  /** New records: a sync creates them. */
  getNewRecords(): M[] {
    return this.#edits.news();
  }

  /** Saved records with unsaved edits: a sync updates them. */
  getUpdatedRecords(): M[] {
    return this.#records.updated();
  }

  /** Removed saved records: a sync destroys them. */
  getRemovedRecords(): M[] {
    return this.#records.prune();
  }

  /** Take every edit as saved and forget pending removals (no request). New records stay new. */
  commitChanges(): void {
    this.#edits.commit();
    this.#view.changed();
  }

  /** Undo every unsynced change: new records go, edits are undone, removed rows come back. */
  rejectChanges(): void {
    this.#edits.reject();
  }

  /** Send every unsynced change in one Batch (section 6): creates, updates, destroys. */
  sync(options: SyncOptions = {}): Promise<Batch> {
    return this.#destroyed ? Promise.reject(this.#gone('sync')) : this.#syncs.run(options);
  }

  #queueAutoSync(): void {
    if (!this.autoSync || this.#autoSyncQueued) return;
    this.#autoSyncQueued = true;
    queueMicrotask(() => {
      this.#autoSyncQueued = false;
      if (!this.#destroyed) this.sync().catch(ignore);
    });
  }

  // ---- subscriptions, release ----------------------------------------------------------------

  #snapshot(): BufferedSnapshot<M> {
    const range = this.#range;
    const rows = range === undefined ? [] : this.#rows(range.start, range.end, false);
    this.#shown = rows;
    const loading = range !== undefined && this.#queue.loading();
    return Object.freeze({ start: range?.start ?? -1, end: range?.end ?? -1, rows: Object.freeze(rows), count: this.getCount(), total: this.getTotalCount(), loading, error: this.#error });
  }

  /** What a grid shows: the same object until something visible changed (a prefetched page does not). */
  getSnapshot(): BufferedSnapshot<M> {
    return this.#view.get();
  }

  /** Hear of every visible change: `listener` is called at once, then once per change batch. Returns the unsubscribe. */
  subscribe(listener: Subscriber<BufferedSnapshot<M>>): () => void {
    return this.#view.add(listener);
  }

  /** Abort the reads in flight, release every record; later calls are a TypeError. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#reads.stop();
    this.#records.releaseAll(this.#offsets.added);
    this.#offsets.added = [];
    this.#offsets.reset();
    this.dropListeners();
    this.#view.clear();
  }
}

// Read by rest-proxy/react and /vue, which take a BufferedStore without importing this module.
Object.defineProperty(BufferedStore.prototype, Symbol.for('rest-proxy.buffered'), { value: true });
// Vue's reactive() and ref() leave the store as it is (as for a Store).
Object.defineProperty(BufferedStore.prototype, '__v_skip', { value: true });
