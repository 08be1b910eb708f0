/** The options and the public types of a Store, declared once. */
import type { BatchError } from '../errors/BatchError.js';
import type { ProxyError } from '../errors/ProxyError.js';
import { HOLD, type Identity } from '../model/extensions.js';
import { Model, type DataOf, type ModelClass, type ModelInit } from '../model/Model.js';
import { sameShown } from '../model/snapshot.js';
import type { BatchConfig } from '../operation/Batch.js';
import type { Operation } from '../operation/Operation.js';
import type { Direction, Filter, Sorter, SummaryRequest } from '../operation/types.js';
import { Proxy } from '../proxy/Proxy.js';
import { createProxy, type ProxyTypeConfig } from '../proxy/registry.js';
import type { RestProxyConfig } from '../proxy/RestProxy.js';
import { dev } from '../util/dev.js';
import { is, isPlainObject, option, type Schema } from '../util/options.js';
import type { Store } from './Store.js';
import { persistTargets, type Freshness, type StoreState } from './freshness.js';

/** The names of a model's fields (any string for a model that declares none). */
export type FieldName<M extends Model> = keyof DataOf<M> & string;

/** A sorter on one of the model's fields, or one with a `sorterFn` (which reaches anything). */
export type SorterOf<M extends Model> = (Sorter & { property: FieldName<M> }) | (Sorter & { sorterFn: NonNullable<Sorter['sorterFn']> });

/** A filter on one of the model's fields, or one with a `filterFn` or a `'search'` (which reach anything). */
export type FilterOf<M extends Model> = (Filter & { property: FieldName<M> }) | (Filter & { filterFn: NonNullable<Filter['filterFn']> }) | (Filter & { operator: 'search' });

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
  /** The sorters (on the model's fields). @example [{ property: 'name', direction: 'ASC' }] */
  sorters?: SorterOf<M>[];
  /** The filters (on the model's fields). @example [{ property: 'age', operator: '>=', value: 18 }] */
  filters?: FilterOf<M>[];
  /** Group the records by this field. Default none. */
  groupField?: FieldName<M> | undefined;
  /** The direction of the groups. Default `'ASC'`. */
  groupDir?: Direction;
  /** Load as soon as the store is made (true, or the load options). Needs a proxy. Default false. */
  autoLoad?: boolean | LoadOptions;
  /** Sync after every change (add, edit, remove). Default false. */
  autoSync?: boolean;
  /**
   * The server summaries each load asks for (sent as the proxy's `summaryParam`); the answer's
   * (the reader's `summaryRootProperty`) is `getRemoteSummary()`. @example { amount: 'sum' }
   */
  remoteSummary?: Partial<Record<FieldName<M>, SummaryRequest['summary']>> | undefined;
  /**
   * The `Session` (rest-proxy/associations) whose records the store lists: one record per id
   * across its stores. Default `Session.default` for a model with associations, else none (the
   * store keeps its own records).
   */
  session?: Identity | undefined;
  /** Ms after a load during which the page counts as fresh (no trigger refetches it); `Infinity`: never stale by age. Default 0. */
  staleTime?: number;
  /** Refetch a stale store someone shows when the page becomes visible again (`visibilitychange`). Default false. */
  refetchOnFocus?: boolean;
  /** Refetch a stale store someone shows when the network comes back. Default true. */
  refetchOnReconnect?: boolean;
  /** Refetch a store someone shows every so many ms (at least 1000); 0: never. Default 0. */
  refetchInterval?: number;
  /** Keep the interval going while the page is hidden or offline. Default false. */
  refetchIntervalInBackground?: boolean;
  /** Keep the last page in a `ReadCache` (rest-proxy/offline) under `key`: shown at once on the next start. */
  persist?: { cache: object; key: string } | undefined;
  /** A page `store.dehydrate()` gave (server rendering): shown at once, applied as a load. */
  initialState?: StoreState | undefined;
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
  /** A read is in flight and nothing is shown yet (no page loaded, restored or hydrated): show a spinner. */
  readonly loading: boolean;
  /** Any read in flight (a refetch behind the page shown included): at most a quiet marker. */
  readonly isFetching: boolean;
  /** Epoch ms of the last answer (200 or 304), null before any. */
  readonly fetchedAt: number | null;
  /** No page yet, a restored page, or older than `staleTime`. */
  readonly isStale: boolean;
  readonly syncing: boolean;
  /** Whether anything waits to be synced (new, edited or removed records). */
  readonly hasChanges: boolean;
  /** The error of the last load or sync that failed, until one succeeds (never a superseded load). */
  readonly error: ProxyError | BatchError | undefined;
  /** The sorters in force (the store's own list: read it, do not change it; `store.sort()` does). */
  readonly sorters: readonly Readonly<Sorter>[];
  /** The filters in force (the store's own list: read it, do not change it; `store.filter()` does). */
  readonly filters: readonly Readonly<Filter>[];
}

const isSorters = {
  expect: dev('an array of { property, direction? }', 'an array of sorters'),
  test: (v: unknown) => Array.isArray(v) && v.every((s) => isPlainObject(s) && (typeof s.property === 'string' || typeof s.sorterFn === 'function')),
};
const isFilters = {
  expect: dev('an array of { property, value, operator? }', 'an array of filters'),
  test: (v: unknown) => Array.isArray(v) && v.every((f) => isPlainObject(f) && (typeof f.property === 'string' || typeof f.filterFn === 'function')),
};
const isDirection = { expect: '"ASC" or "DESC"', test: (v: unknown) => v === 'ASC' || v === 'DESC' };

export const storeSchema = {
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
  session: option({ expect: 'a Session', test: (v) => HOLD in Object(v) }),
  staleTime: option({ expect: 'ms >= 0', test: (v) => typeof v === 'number' && v >= 0 }, () => 0),
  refetchOnFocus: option(is.boolean, () => false),
  refetchOnReconnect: option(is.boolean, () => true),
  refetchInterval: option({ expect: `0 or ms >= 1000${dev(' (seconds were likely meant)')}`, test: (v) => v === 0 || (typeof v === 'number' && v >= 1000 && v < Infinity) }, () => 0),
  refetchIntervalInBackground: option(is.boolean, () => false),
  persist: option({ expect: `{ cache, key }${dev(': cache a ReadCache (rest-proxy/offline), key a non-empty string')}`, test: (v) => isPlainObject(v) && persistTargets.has(Object(v.cache)) && typeof v.key === 'string' && v.key !== '' }),
  initialState: option(is.plainObject),
  remoteSummary: option({ expect: `an object of summary kinds${dev(' (sum, average, min, max, count)')} per field`, test: (v) => isPlainObject(v) && Object.values(v).every((kind) => /^(sum|average|min|max|count)$/.test(String(kind))) }),
} satisfies Schema<Omit<StoreConfig<Model>, 'data'>>;

/** The options that have a default (never undefined). */
export type StoreDefaults = 'pageSize' | 'remoteSort' | 'remoteFilter' | 'remoteGroup' | 'sorters' | 'filters' | 'groupDir' | 'autoLoad' | 'autoSync' | 'staleTime' | 'refetchOnFocus' | 'refetchOnReconnect' | 'refetchInterval' | 'refetchIntervalInBackground';

/** What a store looks like now (see Store.getSnapshot). */
export function snapshotOf<M extends Model>(store: Store<M>, error: ProxyError | BatchError | undefined, records: readonly M[], fresh: Freshness<M>): StoreSnapshot<M> {
  return Object.freeze({
    store,
    records,
    total: store.getTotalCount(),
    page: store.currentPage,
    pageCount: store.getPageCount(),
    loading: store.loading && !fresh.shows,
    isFetching: store.loading,
    fetchedAt: fresh.fetchedAt,
    isStale: fresh.isStale,
    syncing: store.isSyncing,
    hasChanges: store.hasChanges(),
    error,
    sorters: store.sorters,
    filters: store.filters,
  });
}

/** Two store snapshots that show the same: the same records array (the view makes a new one for a change), the rest by value. */
export function sameSnapshot<M extends Model>(a: StoreSnapshot<M>, b: StoreSnapshot<M>): boolean {
  return a.records === b.records && sameShown({ ...a, records: 0 }, { ...b, records: 0 });
}

/** The summaries a load asks the server for (a store's `remoteSummary`), as sent. */
export function summaryRequests(spec: Readonly<Record<string, SummaryRequest['summary'] | undefined>> | undefined): SummaryRequest[] | undefined {
  return spec && Object.entries(spec).flatMap(([property, summary]) => (summary ? [{ property, summary }] : []));
}
