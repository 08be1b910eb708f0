/**
 * ChainedStore (API.md section 12): a second view over a source store's records, the same
 * objects, with its own sort, filter and grouping, kept as section 8 says (what changed, not the
 * whole set). It holds no records of its own and has no proxy: it loads and syncs nothing; adds
 * and removes go to the source. The source holds it weakly (follow.ts).
 */
import type { DataOf, Model, ModelClass, ModelInit } from '../model/Model.js';
import type { Direction, Filter, Sorter } from '../operation/types.js';
import { View, type Subscriber } from '../util/notify.js';
import { describeValue, isPlainObject } from '../util/options.js';
import { HELD, SHOWN, StoreBase, VIEW } from './base.js';
import { checkFieldNames } from './fieldNames.js';
import { followersOf, type Follower } from './follow.js';
import type { FieldName, FilterOf, Group, LoadOptions, SorterOf } from './options.js';
import type { Store } from './Store.js';
import type { RecordView } from './view.js';
import { ChainedView } from './chainedView.js';
import type { RemoteSummary } from './summaryTypes.js';

export interface ChainedStoreConfig<M extends Model> {
  /** The Store or ChainedStore whose shown records this one shows. */
  source: Store<M> | ChainedStore<M>;
  sorters?: SorterOf<M>[];
  filters?: FilterOf<M>[];
  groupField?: FieldName<M> | undefined;
  groupDir?: Direction;
}

export interface ChainedStoreEvents<M extends Model> {
  /** What it shows changed (the source's records, its own sort, filter or grouping). */
  datachanged: { store: ChainedStore<M> };
}

/** What a chained store looks like now: a new object only when something visible changed. */
export interface ChainedStoreSnapshot<M extends Model = Model> {
  readonly store: ChainedStore<M>;
  readonly records: readonly M[];
  readonly total: number;
  readonly loading: boolean;
}

const OPTIONS = new Set(['source', 'sorters', 'filters', 'groupField', 'groupDir']);

export class ChainedStore<M extends Model = Model> extends StoreBase<M, ChainedStoreEvents<M>> {
  declare model: ModelClass<M>;
  sorters: SorterOf<M>[];
  filters: FilterOf<M>[];
  declare groupField?: FieldName<M> | undefined;
  declare groupDir: Direction;
  readonly #source: Store<M> | ChainedStore<M>;
  readonly #parent: RecordView<M>;
  readonly #view: ChainedView<M>;
  readonly #snapshot = new View<ChainedStoreSnapshot<M>>(() => Object.freeze({ store: this, records: this.#view.records(), total: this.getCount(), loading: this.#sourceLoading() }), (a, b) => a.records === b.records && a.loading === b.loading);
  /** While this store has subscribers: its subscription to the source (which then counts as shown, section 13), and how many. */
  #watch: (() => void) | undefined;
  #subscribers = 0;
  readonly #follower: Follower<M>;
  #stop: () => void;
  #also: ((record: M) => boolean) | undefined;
  #destroyed = false;

  constructor(config: ChainedStoreConfig<M>) {
    super();
    if (!isPlainObject(config)) throw new TypeError(`ChainedStore: expected a config object with a source, got ${describeValue(config)}`);
    for (const name of Object.keys(config)) if (!OPTIONS.has(name)) throw new TypeError(`ChainedStore: unknown option "${name}" (a chained store loads nothing; options: ${[...OPTIONS].join(', ')})`);
    const { source } = config;
    if (!(source instanceof StoreBase)) throw new TypeError(`ChainedStore: source must be a Store or a ChainedStore, got ${describeValue(source)}`);
    this.#source = source;
    this.model = source.model;
    this.sorters = [...(config.sorters ?? [])];
    this.filters = [...(config.filters ?? [])];
    this.groupField = config.groupField;
    this.groupDir = config.groupDir ?? 'ASC';
    checkFieldNames(this.model, 'sorters', this.sorters);
    checkFieldNames(this.model, 'filters', this.filters);
    if (this.groupField !== undefined) checkFieldNames(this.model, 'groupField', [{ property: this.groupField }]);
    const parent = (this.#parent = source[VIEW]());
    this.#view = new ChainedView<M>(parent.all);
    // The source's filters, while it has any (none: nothing to ask it).
    const also = (): ((record: M) => boolean) | undefined => (parent.filtering ? (record) => parent.passes(record) : undefined);
    this.#also = also();
    const view = this.#view;
    const changed = (): void => this.#snapshot.changed();
    // Each change of the source's records, told to this view (whose own followers hear it in turn).
    this.#follower = {
      touched: (record) => (view.touched(record), changed()),
      added: (records) => (view.added(records, true), changed()),
      removed: (records) => (view.removed(records), changed()),
      reset: (retested) => {
        // The source's filters changed: a new test (a retest). Made again: the same one, unless the source now has filters or none (then made again here too).
        if (retested) this.#also = also();
        else if (!this.#also !== !parent.filtering) {
          this.#also = also();
          view.invalidate();
        }
        this.#arrange(!retested, retested ? parent.shown() : undefined);
        this.fire('datachanged', { store: this });
      },
      release: () => this.destroy(),
    };
    this.#stop = followersOf(parent).add(this.#follower);
    this.#arrange(true);
  }

  /** The store whose records this one shows. */
  get source(): Store<M> | ChainedStore<M> {
    return this.#source;
  }

  /** The source's: true while it loads. */
  get loading(): boolean {
    return this.#source.loading;
  }

  /** @internal */
  [SHOWN](): M[] { return this.#view.shown(); }
  /** @internal */
  [HELD](): readonly M[] { return this.#source[SHOWN](); }
  /** @internal */
  [VIEW](): RecordView<M> { return this.#view; }

  /** The source's record with this id (section 6's rule: also one a filter hides). */
  getById(id: unknown): M | undefined {
    return this.#source.getById(id);
  }

  /** The source's: it loads nothing of its own. */
  override getRemoteSummary(): RemoteSummary<M> | undefined { return this.#source.getRemoteSummary(); }

  /** Its count: it has no server total of its own. */
  getTotalCount(): number {
    return this.getCount();
  }

  /** The groups of the records shown (by `groupField`), in order. */
  getGroups(): Group<M>[] {
    return this.groupField === undefined ? [] : this.#view.groups(this.groupField);
  }

  // ---- its own sort, filter and grouping (always local) -----------------------------------

  /** Sort by a property (again without a direction: flipped) or by a list of sorters. */
  sort(property: FieldName<M>, direction?: Direction): Promise<M[]>;
  sort(sorters: SorterOf<M>[]): Promise<M[]>;
  sort(propertyOrSorters: FieldName<M> | SorterOf<M>[], direction?: Direction): Promise<M[]> {
    let sorters = propertyOrSorters;
    if (typeof sorters === 'string') {
      const first = this.sorters[0];
      sorters = [{ property: sorters, direction: direction ?? (first?.property === sorters && first.direction !== 'DESC' ? 'DESC' : 'ASC') }];
    }
    checkFieldNames(this.model, 'sort', sorters);
    this.sorters = sorters;
    return this.#changed();
  }

  /** Filter on a property (replacing a filter on the same property), or add a list of filters. */
  filter(property: FieldName<M>, value: unknown, operator?: Filter['operator']): Promise<M[]>;
  filter(filters: FilterOf<M>[]): Promise<M[]>;
  filter(propertyOrFilters: FieldName<M> | FilterOf<M>[], value?: unknown, operator?: Filter['operator']): Promise<M[]> {
    const added: FilterOf<M>[] = typeof propertyOrFilters === 'string' ? [{ property: propertyOrFilters, value, ...(operator !== undefined ? { operator } : {}) }] : propertyOrFilters;
    checkFieldNames(this.model, 'filter', added);
    const replaced = new Set(added.map((filter) => filter.property));
    this.filters = [...this.filters.filter((filter) => !replaced.has(filter.property)), ...added];
    return this.#changed();
  }

  clearFilter(): Promise<M[]> {
    this.filters = [];
    return this.#changed();
  }

  group(property: FieldName<M>, direction: Direction = 'ASC'): Promise<M[]> {
    checkFieldNames(this.model, 'group', [{ property }]);
    this.groupField = property;
    this.groupDir = direction;
    return this.#changed();
  }

  clearGrouping(): Promise<M[]> {
    this.groupField = undefined;
    return this.#changed();
  }

  #changed(): Promise<M[]> {
    if (this.#destroyed) return Promise.reject(this.#gone('sort, filter or group'));
    this.#arrange(false);
    this.fire('datachanged', { store: this });
    return Promise.resolve(this.getRange());
  }

  /** Its grouping, then its sorters (none: the source's order), its filters after the source's (`within`: the records the source shows now). */
  #arrange(force: boolean, within?: readonly M[]): void {
    const sorters: Sorter[] = this.groupField === undefined ? [] : [{ property: this.groupField, direction: this.groupDir }];
    sorters.push(...(this.sorters.length > 0 || this.groupField !== undefined ? this.sorters : this.#parent.sorters));
    this.#view.arrange(sorters, this.filters, force, this.#also, within);
    this.#snapshot.changed();
  }

  // ---- writes go to the source -------------------------------------------------------------

  /** Add records to the source (they show here if this store's filters pass them). */
  add(records: M | ModelInit<DataOf<M>> | ReadonlyArray<M | ModelInit<DataOf<M>>>): M[] {
    if (this.#destroyed) throw this.#gone('add');
    return this.#source.add(records);
  }

  /** Insert records into the source, before the one shown here at `index` (at its end past the last). */
  insert(index: number, records: M | ModelInit<DataOf<M>> | ReadonlyArray<M | ModelInit<DataOf<M>>>): M[] {
    if (this.#destroyed) throw this.#gone('insert');
    const target = this.getAt(index);
    const at = target === undefined ? -1 : this.#source.indexOf(target);
    return at === -1 ? this.#source.add(records) : this.#source.insert(at, records);
  }

  /** Remove records from the source (a sync of the source destroys them). */
  remove(records: M | readonly M[]): M[] {
    if (this.#destroyed) throw this.#gone('remove');
    return this.#source.remove(records);
  }

  removeAt(index: number, count = 1): M[] {
    return this.remove(this.getRange(index, index + count - 1));
  }

  /** Remove what this store shows from the source. */
  removeAll(): M[] {
    return this.remove(this.getRange());
  }

  /** The source's reload. */
  reload(options?: LoadOptions): Promise<M[]> {
    return this.#source.reload(options);
  }

  // ---- subscriptions and release -----------------------------------------------------------

  /** Hear of every visible change, once per synchronous run (section 8); returns the function that unsubscribes. */
  subscribe(listener: Subscriber<ChainedStoreSnapshot<M>>): () => void {
    const stop = this.#snapshot.add(listener);
    // Shown here is shown by the source: its triggers and stale timer run (section 13), and its loading shows here.
    if (this.#subscribers++ === 0 && !this.#destroyed) this.#watch = this.#source.subscribe(() => this.#follow());
    let done = false;
    return () => {
      if (done) return;
      done = true;
      stop();
      if (--this.#subscribers === 0) this.#unwatch();
    };
  }

  getSnapshot(): ChainedStoreSnapshot<M> {
    this.#follow();
    return this.#snapshot.get();
  }

  /** The source's `loading` changed (a load started or ended): a new snapshot. */
  #follow(): void {
    if (this.#snapshot.get().loading !== this.#sourceLoading()) this.#snapshot.changed();
  }

  /** The source's snapshot's `loading` (a read in flight with nothing shown), its snapshot made only while it loads. */
  #sourceLoading(): boolean {
    return this.#source.loading && this.#source.getSnapshot().loading;
  }

  #unwatch(): void {
    this.#watch?.();
    this.#watch = undefined;
  }

  /** Stop following the source and drop listeners and summaries; the source and its records are untouched. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#stop();
    this.#unwatch();
    this.#view.followers?.release();
    this.dropListeners();
    this.#snapshot.clear();
  }

  /** @internal Vue's reactive() and ref() leave it as it is, as a Store (a getter: nothing runs when the module loads, so an app without ChainedStore does not bundle it). */
  get __v_skip(): boolean {
    return true;
  }

  #gone(what: string): TypeError {
    return new TypeError(`ChainedStore of ${this.model.getEntityName()}: ${what}() after destroy()`);
  }
}
