/** The options and the public types of a BufferedStore, declared once (API.md section 11). */
import type { BatchError } from '../errors/BatchError.js';
import type { ProxyError } from '../errors/ProxyError.js';
import { isModelClass, Model, type ModelClass } from '../model/Model.js';
import { Proxy } from '../proxy/Proxy.js';
import { createProxy, type ProxyTypeConfig } from '../proxy/registry.js';
import type { RestProxyConfig } from '../proxy/RestProxy.js';
import type { Direction, Filter } from '../operation/types.js';
import type { FieldName, FilterOf, SorterOf } from '../store/options.js';
import { describeValue, isPlainObject } from '../util/options.js';

/** The options of a BufferedStore; each is afterwards a read-only property of the same name. */
export interface BufferedStoreConfig<M extends Model = Model> {
  /** The Model class of the records. Default `Model` (untyped). */
  model?: ModelClass<M>;
  /** A proxy (or config) to use instead of the model's. Default the model's proxy. @example { url: '/api/orders', preset: 'rails' } */
  proxy?: Proxy | ProxyTypeConfig | RestProxyConfig | undefined;
  /** Rows per page: one GET reads one whole page. A positive integer (a buffered store always pages). Default 100. */
  pageSize?: number;
  /** Rows read ahead of the visible range, in the direction of travel. Default 200. */
  leadingBufferZone?: number;
  /** Rows read behind the visible range. Default 50. */
  trailingBufferZone?: number;
  /** Pages held at most (besides visible ones and ones with unsaved edits): an integer >= 1, or `Infinity`. Default 20. */
  cacheSize?: number;
  /** Page reads in flight at most: an integer >= 1, or `Infinity`. Default 2. */
  maxConcurrentRequests?: number;
  /** The sorters, sent with every page read. @example [{ property: 'date', direction: 'DESC' }] */
  sorters?: SorterOf<M>[];
  /** The filters, sent with every page read. @example [{ property: 'status', value: 'open' }] */
  filters?: FilterOf<M>[];
  /** Params sent with every page read. @example { tenant: 7 } */
  params?: Record<string, unknown>;
  /** Sync after every change (add, edit, remove). Default false. */
  autoSync?: boolean;
  /** Always true: a buffered store sorts on the server (anything else is a TypeError). */
  remoteSort?: true;
  /** Always true: a buffered store filters on the server (anything else is a TypeError). */
  remoteFilter?: true;
}

/** A row not loaded yet: its index. Frozen; `isPlaceholder(value)` tells it from a record. */
export interface Placeholder {
  readonly index: number;
}

class PlaceholderRow implements Placeholder {
  constructor(readonly index: number) {
    Object.freeze(this);
  }
}

/** A placeholder for the row at `index`. */
export function placeholder(index: number): Placeholder {
  return new PlaceholderRow(index);
}

/** Whether a row of `getRange` is a placeholder (not loaded yet) rather than a record. */
export function isPlaceholder(value: unknown): value is Placeholder {
  return value instanceof PlaceholderRow;
}

/** What a grid shows of a BufferedStore (see BufferedStore#getSnapshot). */
export interface BufferedSnapshot<M extends Model = Model> {
  /** The visible range (both included); -1 and -1 before `setVisibleRange`. */
  readonly start: number;
  readonly end: number;
  /** `getRange(start, end)` of the visible range, records and placeholders. */
  readonly rows: readonly (M | Placeholder)[];
  /** The rows a grid lays out (see getCount). */
  readonly count: number;
  /** The total (see getTotalCount); undefined while unknown. */
  readonly total: number | undefined;
  /** True while a visible page is being read. */
  readonly loading: boolean;
  /** The error of the last page read or sync that failed, until one succeeds. */
  readonly error: ProxyError | BatchError | undefined;
}

/** The options as the store holds them, checked and with their defaults. */
export interface BufferedOptions<M extends Model> {
  model: ModelClass<M>;
  proxy: Proxy | undefined;
  pageSize: number;
  leadingBufferZone: number;
  trailingBufferZone: number;
  cacheSize: number;
  maxConcurrentRequests: number;
  sorters: SorterOf<M>[];
  filters: FilterOf<M>[];
  params: Record<string, unknown>;
  autoSync: boolean;
}

const REFUSED: Record<string, string> = {
  data: 'a BufferedStore reads its rows from the server, page by page',
  groupField: 'a BufferedStore does not group',
  autoLoad: 'a BufferedStore reads the pages setVisibleRange, getRange or loadRange ask for',
  remoteGroup: 'a BufferedStore does not group',
  session: 'a BufferedStore keeps its own records',
};

function fail(name: string, expect: string, value: unknown): never {
  throw new TypeError(`BufferedStore: ${name} must be ${expect}, got ${describeValue(value)}`);
}

function count(name: string, value: unknown, fallback: number, least: number, infinite: boolean): number {
  if (value === undefined) return fallback;
  if (infinite && value === Infinity) return value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < least) fail(name, `an integer >= ${least}${infinite ? ' or Infinity' : ''}`, value);
  return value;
}

function list<T>(name: string, value: unknown, what: string, test: (item: unknown) => item is T): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(test)) fail(name, what, value);
  return [...value];
}

/** A sorter or filter on a property (sent to the server: no function). */
function onProperty<T>(item: unknown): item is T {
  return isPlainObject(item) && typeof item.property === 'string';
}

function isModel<M extends Model>(value: unknown): value is ModelClass<M> {
  return isModelClass(value);
}

/** Check a config: a bad option is a TypeError naming it. */
export function bufferedOptions<M extends Model>(config: unknown): BufferedOptions<M> {
  if (config !== undefined && !isPlainObject(config)) throw new TypeError(`BufferedStore: the config must be an object, got ${describeValue(config)}`);
  const given: Record<string, unknown> = config ?? {};
  const known = ['model', 'proxy', 'pageSize', 'leadingBufferZone', 'trailingBufferZone', 'cacheSize', 'maxConcurrentRequests', 'sorters', 'filters', 'params', 'autoSync', 'remoteSort', 'remoteFilter'];
  for (const [name, value] of Object.entries(given)) {
    const refused = REFUSED[name];
    if (refused !== undefined) throw new TypeError(`BufferedStore: ${name} is not an option: ${refused}`);
    if (!known.includes(name)) throw new TypeError(`BufferedStore: unknown option "${name}"`);
    if ((name === 'remoteSort' || name === 'remoteFilter') && value !== undefined && value !== true) fail(name, 'true (a BufferedStore sorts and filters on the server)', value);
  }
  const { model = Model, proxy, params, autoSync = false } = given;
  if (!isModel<M>(model)) fail('model', 'a Model class', model);
  if (proxy !== undefined && !(proxy instanceof Proxy) && !isPlainObject(proxy)) fail('proxy', 'a proxy or a proxy config', proxy);
  if (params !== undefined && !isPlainObject(params)) fail('params', 'an object', params);
  if (typeof autoSync !== 'boolean') fail('autoSync', 'a boolean', autoSync);
  if (given.pageSize === 0) fail('pageSize', 'a positive integer (a buffered store always pages)', 0);
  return {
    model,
    proxy: proxy === undefined ? undefined : proxy instanceof Proxy ? proxy : createProxy({ type: 'rest', ...proxy }),
    pageSize: count('pageSize', given.pageSize, 100, 1, false),
    leadingBufferZone: count('leadingBufferZone', given.leadingBufferZone, 200, 0, false),
    trailingBufferZone: count('trailingBufferZone', given.trailingBufferZone, 50, 0, false),
    cacheSize: count('cacheSize', given.cacheSize, 20, 1, true),
    maxConcurrentRequests: count('maxConcurrentRequests', given.maxConcurrentRequests, 2, 1, true),
    sorters: list('sorters', given.sorters, 'an array of { property, direction? }', onProperty<SorterOf<M>>),
    filters: list('filters', given.filters, 'an array of { property, value, operator? }', onProperty<FilterOf<M>>),
    params: { ...params },
    autoSync,
  };
}

/** Two snapshots that show the same: rows by identity (placeholders by index), the rest by value. */
export function sameSnapshot<M extends Model>(a: BufferedSnapshot<M>, b: BufferedSnapshot<M>): boolean {
  if (a.start !== b.start || a.end !== b.end || a.count !== b.count || a.total !== b.total || a.loading !== b.loading || a.error !== b.error || a.rows.length !== b.rows.length) return false;
  for (let at = 0; at < a.rows.length; at++) {
    const x = a.rows[at];
    const y = b.rows[at];
    if (x !== y && !(isPlaceholder(x) && isPlaceholder(y) && x.index === y.index)) return false;
  }
  return true;
}

/** The sorters of `sort(property, direction?)` (the same property again without a direction flips it) or `sort(sorters)`. */
export function sortersFor<M extends Model>(current: readonly SorterOf<M>[], sorters: FieldName<M> | SorterOf<M>[], direction: Direction | undefined): SorterOf<M>[] {
  if (typeof sorters !== 'string') return [...sorters];
  const first = current[0];
  return [{ property: sorters, direction: direction ?? (first?.property === sorters && first.direction !== 'DESC' ? 'DESC' : 'ASC') }];
}

/** The filters after `filter(...)`: a filter on a property replaces the one on the same property. */
export function filtersWith<M extends Model>(current: readonly FilterOf<M>[], filters: FieldName<M> | FilterOf<M>[], value: unknown, operator: Filter['operator']): FilterOf<M>[] {
  const added: FilterOf<M>[] = typeof filters === 'string' ? [{ property: filters, value, ...(operator !== undefined ? { operator } : {}) }] : filters;
  const replaced = new Set(added.map((filter) => filter.property));
  return [...current.filter((filter) => !replaced.has(filter.property)), ...added];
}
