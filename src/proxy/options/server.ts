/** The options of a proxy that talks to a server (ServerProxy), declared once. */
import { ACTIONS, type Filter, type Sorter } from '../../operation/types.js';
import { is, isPlainObject, option, paramOption, type Schema } from '../../util/options.js';
import { proxySchema, type ProxyConfig } from './proxy.js';
import { dev } from '../../util/dev.js';

/** Params sent with a request: a value, or an array for a repeated key. */
export type Params = Record<string, unknown>;

/** The longest timeout timers can wait for: 2^31 - 1 ms (about 24.8 days). */
export const MAX_TIMEOUT = 2 ** 31 - 1;

export interface ServerProxyConfig extends ProxyConfig {
  /** The base url of the collection. @example '/api/users' or 'https://api.example.com/users' */
  url?: string | undefined;
  /** A url per action, winning over `url`. @example { read: '/users/search' } */
  api?: Partial<Record<'create' | 'read' | 'update' | 'destroy', string>>;
  /** Params sent with every request (the operation's own params win). Default `{}`. */
  extraParams?: Params;
  /** Add a cache buster to reads (GET). Default true. Writes never carry one. */
  noCache?: boolean;
  /** The cache buster's param name; its value is `Date.now()`. Default `'_dc'`. */
  cacheString?: string;
  /**
   * Milliseconds before a request fails with kind 'timeout' (`0`: never). At most 2147483647
   * (2^31 - 1, about 24.8 days), the longest a timer can wait. Default 30000.
   */
  timeout?: number;
  /** The page number param (1-based, see `firstPage`); `undefined`, `null` or `''` leaves it out. Default `'page'`. @example { pageParam: '_page' } */
  pageParam?: string | null | undefined;
  /** The index of the first record param; `undefined`, `null` or `''` leaves it out. Default `'start'`. @example { startParam: 'offset' } */
  startParam?: string | null | undefined;
  /** The page size param; `undefined`, `null` or `''` leaves it out. Default `'limit'`. @example { limitParam: 'per_page' } */
  limitParam?: string | null | undefined;
  /** The number the server gives its first page: 1 (default) or 0 (Spring). */
  firstPage?: number;
  /** The sort param (JSON of the sorters, see `encodeSorters`); `null` leaves it out. Default `'sort'`. */
  sortParam?: string | null | undefined;
  /** The filter param (JSON of the filters, see `encodeFilters`); `null` leaves it out. Default `'filter'`. */
  filterParam?: string | null | undefined;
  /** The group param (JSON of the grouper); `null` leaves it out. Default `'group'`. */
  groupParam?: string | null | undefined;
  /** The summary param (JSON of the store's `remoteSummary`); `null` leaves it out. Default `'summary'`. */
  summaryParam?: string | null | undefined;
  /** The direction param of `simpleSortMode`. Default `'dir'`. */
  directionParam?: string | null | undefined;
  /** The direction param of `simpleGroupMode`. Default `'groupDir'`. */
  groupDirectionParam?: string | null | undefined;
  /** The param carrying the id of a read by id when the id is not in the path. Default `'id'`. */
  idParam?: string | null | undefined;
  /** Send `sort=<property>&dir=<ASC|DESC>` instead of JSON. Default false. */
  simpleSortMode?: boolean;
  /** Send `group=<property>&groupDir=<ASC|DESC>` instead of JSON. Default false. */
  simpleGroupMode?: boolean;
  /**
   * Turn the sorters into params yourself (replaces `sortParam`/`encodeSorters`), for servers
   * with their own convention. Default none. @example (sorters) => ({ ordering: sorters.map(...).join(',') })
   */
  serializeSorters?: ((sorters: Sorter[]) => Params) | undefined;
  /** Turn the filters into params yourself (replaces `filterParam`/`encodeFilters`). Default none. */
  serializeFilters?: ((filters: Filter[]) => Params) | undefined;
}

const isApi = {
  expect: `an object mapping ${dev('create, read, update and destroy', 'actions')} to urls`,
  test: (v: unknown) => isPlainObject(v) && Object.entries(v).every(([key, url]) => ACTIONS.some((a) => a === key) && (url === undefined || typeof url === 'string')),
};
const isTimeout = {
  expect: `a number of milliseconds from 0 (no timeout) to ${MAX_TIMEOUT}${dev(' (2^31 - 1, about 24.8 days: a longer timer fires at once)')}`,
  test: (v: unknown) => typeof v === 'number' && v >= 0 && v <= MAX_TIMEOUT,
};

export const serverSchema = {
  ...proxySchema,
  url: option(is.string),
  api: option(isApi, () => ({})),
  extraParams: option(is.plainObject, () => ({})),
  noCache: option(is.boolean, () => true),
  cacheString: option(is.string, () => '_dc'),
  timeout: option(isTimeout, () => 30000),
  pageParam: paramOption('page'),
  startParam: paramOption('start'),
  limitParam: paramOption('limit'),
  firstPage: option({ expect: '0 or 1', test: (v) => v === 0 || v === 1 }, () => 1),
  sortParam: paramOption('sort'),
  filterParam: paramOption('filter'),
  groupParam: paramOption('group'),
  summaryParam: paramOption('summary'),
  directionParam: paramOption('dir'),
  groupDirectionParam: paramOption('groupDir'),
  idParam: paramOption('id'),
  simpleSortMode: option(is.boolean, () => false),
  simpleGroupMode: option(is.boolean, () => false),
  serializeSorters: option(is.function),
  serializeFilters: option(is.function),
} satisfies Schema<ServerProxyConfig>;
