import { ProxyError } from '../errors/ProxyError.js';
import type { Operation } from '../operation/Operation.js';
import { Request } from '../operation/Request.js';
import { ACTIONS, type Filter, type Grouper, type Sorter } from '../operation/types.js';
import { defineOptions, is, isPlainObject, option, paramOption, type OptionSchema } from '../util/options.js';
import { appendQuery } from '../util/url.js';
import { Proxy, proxySchema, type ProxyConfig } from './Proxy.js';

/** Params sent with a request: a value, or an array for a repeated key. */
export type Params = Record<string, unknown>;

export interface ServerProxyConfig extends ProxyConfig {
  /** The base url of the collection. @example '/api/users' or 'https://api.example.com/users' */
  url?: string;
  /** A url per action, winning over `url`. @example { read: '/users/search' } */
  api?: Partial<Record<'create' | 'read' | 'update' | 'destroy', string>>;
  /** Params sent with every request (the operation's own params win). Default `{}`. */
  extraParams?: Params;
  /** Add a cache buster to reads (GET). Default true. Writes never carry one. */
  noCache?: boolean;
  /** The cache buster's param name; its value is `Date.now()`. Default `'_dc'`. */
  cacheString?: string;
  /** Milliseconds before a request fails with kind 'timeout' (`0`: never). Default 30000. */
  timeout?: number;
  /** The page number param (1-based, see `firstPage`); `undefined`, `null` or `''` leaves it out. Default `'page'`. @example { pageParam: '_page' } */
  pageParam?: string | null;
  /** The index of the first record param; `undefined`, `null` or `''` leaves it out. Default `'start'`. @example { startParam: 'offset' } */
  startParam?: string | null;
  /** The page size param; `undefined`, `null` or `''` leaves it out. Default `'limit'`. @example { limitParam: 'per_page' } */
  limitParam?: string | null;
  /** The number the server gives its first page: 1 (default) or 0 (Spring). */
  firstPage?: number;
  /** The sort param (JSON of the sorters, see `encodeSorters`); `null` leaves it out. Default `'sort'`. */
  sortParam?: string | null;
  /** The filter param (JSON of the filters, see `encodeFilters`); `null` leaves it out. Default `'filter'`. */
  filterParam?: string | null;
  /** The group param (JSON of the grouper); `null` leaves it out. Default `'group'`. */
  groupParam?: string | null;
  /** The direction param of `simpleSortMode`. Default `'dir'`. */
  directionParam?: string | null;
  /** The direction param of `simpleGroupMode`. Default `'groupDir'`. */
  groupDirectionParam?: string | null;
  /** The param carrying the id of a read by id when the id is not in the path. Default `'id'`. */
  idParam?: string | null;
  /** Send `sort=<property>&dir=<ASC|DESC>` instead of JSON. Default false. */
  simpleSortMode?: boolean;
  /** Send `group=<property>&groupDir=<ASC|DESC>` instead of JSON. Default false. */
  simpleGroupMode?: boolean;
  /**
   * Turn the sorters into params yourself (replaces `sortParam`/`encodeSorters`), for servers
   * with their own convention. @example (sorters) => ({ ordering: sorters.map(...).join(',') })
   */
  serializeSorters?: (sorters: Sorter[]) => Params;
  /** Turn the filters into params yourself (replaces `filterParam`/`encodeFilters`). */
  serializeFilters?: (filters: Filter[]) => Params;
}

const isApi = {
  expect: 'an object mapping create, read, update and destroy to urls',
  test: (v: unknown) =>
    isPlainObject(v) &&
    Object.entries(v).every(([key, url]) => ACTIONS.some((a) => a === key) && (url === undefined || typeof url === 'string')),
};
const isTimeout = { expect: 'a number of milliseconds (0 or more)', test: (v: unknown) => typeof v === 'number' && v >= 0 && Number.isFinite(v) };

export const serverSchema: OptionSchema = {
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
  directionParam: paramOption('dir'),
  groupDirectionParam: paramOption('groupDir'),
  idParam: paramOption('id'),
  simpleSortMode: option(is.boolean, () => false),
  simpleGroupMode: option(is.boolean, () => false),
  serializeSorters: option(is.function),
  serializeFilters: option(is.function),
};

/** A param name that is actually sent (`undefined`, `null` and `''` turn a param off). */
export function sent(name: string | null | undefined): name is string {
  return typeof name === 'string' && name !== '';
}

/**
 * The simple mode of sorting and grouping: `sort=name&dir=ASC`; `sort=name ASC` when the
 * direction param has the same name; `sort=name` when it is not sent. `value` makes the param's
 * value of the list of strings: the list itself for the sorters, its one item for the grouper.
 */
function putSimple(params: Params, param: string, directionParam: string | null | undefined, items: readonly Grouper[], value: (values: string[]) => unknown): void {
  const direction = (item: Grouper): string => item.direction ?? 'ASC';
  if (!sent(directionParam)) {
    params[param] = value(items.map((item) => item.property));
  } else if (directionParam === param) {
    params[param] = value(items.map((item) => `${item.property} ${direction(item)}`));
  } else {
    params[param] = value(items.map((item) => item.property));
    params[directionParam] = value(items.map(direction));
  }
}

/**
 * A proxy that talks to a server: urls, params for paging, sorting, filtering and grouping,
 * and the cache buster. AjaxProxy sends what it builds.
 */
export class ServerProxy extends Proxy {
  static override className = 'ServerProxy';
  static override optionSchema: OptionSchema = serverSchema;

  /** {@inheritDoc ServerProxyConfig.url} */
  declare url: string | undefined;
  /** {@inheritDoc ServerProxyConfig.api} */
  declare api: Partial<Record<'create' | 'read' | 'update' | 'destroy', string>>;
  /** {@inheritDoc ServerProxyConfig.extraParams} */
  declare extraParams: Params;
  /** {@inheritDoc ServerProxyConfig.noCache} */
  declare noCache: boolean;
  /** {@inheritDoc ServerProxyConfig.cacheString} */
  declare cacheString: string;
  /** {@inheritDoc ServerProxyConfig.timeout} */
  declare timeout: number;
  /** {@inheritDoc ServerProxyConfig.pageParam} */
  declare pageParam: string | null | undefined;
  /** {@inheritDoc ServerProxyConfig.startParam} */
  declare startParam: string | null | undefined;
  /** {@inheritDoc ServerProxyConfig.limitParam} */
  declare limitParam: string | null | undefined;
  /** {@inheritDoc ServerProxyConfig.firstPage} */
  declare firstPage: number;
  /** {@inheritDoc ServerProxyConfig.sortParam} */
  declare sortParam: string | null | undefined;
  /** {@inheritDoc ServerProxyConfig.filterParam} */
  declare filterParam: string | null | undefined;
  /** {@inheritDoc ServerProxyConfig.groupParam} */
  declare groupParam: string | null | undefined;
  /** {@inheritDoc ServerProxyConfig.directionParam} */
  declare directionParam: string | null | undefined;
  /** {@inheritDoc ServerProxyConfig.groupDirectionParam} */
  declare groupDirectionParam: string | null | undefined;
  /** {@inheritDoc ServerProxyConfig.idParam} */
  declare idParam: string | null | undefined;
  /** {@inheritDoc ServerProxyConfig.simpleSortMode} */
  declare simpleSortMode: boolean;
  /** {@inheritDoc ServerProxyConfig.simpleGroupMode} */
  declare simpleGroupMode: boolean;
  /** {@inheritDoc ServerProxyConfig.serializeSorters} */
  declare serializeSorters: ServerProxyConfig['serializeSorters'];
  /** {@inheritDoc ServerProxyConfig.serializeFilters} */
  declare serializeFilters: ServerProxyConfig['serializeFilters'];

  constructor(config: ServerProxyConfig = {}) {
    super(config);
  }

  /** Build the Request for an operation: merged params, then the url (see `buildUrl`). */
  buildRequest(operation: Operation): Request {
    const params = { ...this.extraParams, ...operation.params, ...this.getParams(operation) };
    const request = new Request({
      operation,
      action: operation.action,
      params,
      headers: { ...operation.headers },
      url: operation.url,
    });
    operation.request = request;
    this.buildUrl(request);
    return request;
  }

  /**
   * The url to start from: `request.url`, then `api[action]`, then `url`. Fails with kind
   * 'config' when there is none.
   */
  getUrl(request: Request): string {
    if (request.url !== undefined && request.url !== '' && !request.isBuilt) {
      request.sourceUrl ??= request.url;
      return request.url;
    }
    if (request.sourceUrl !== undefined) return request.sourceUrl;
    const url = this.api[request.action] || this.url;
    if (url === undefined || url === '') {
      throw new ProxyError(
        'config',
        `${request.action} failed: no url is configured; give the proxy a url (e.g. { url: '/users' }) or an api entry for "${request.action}"`,
        { operation: request.operation, request },
      );
    }
    request.sourceUrl = url;
    return url;
  }

  /**
   * The url of the request, set on `request.url` and returned: at this level the url from
   * `getUrl` with the cache buster (reads only). Subclasses that override it build their url,
   * put it on `request.url` and call `super.buildUrl(request)` last. Calling it again on the same
   * request gives the same url.
   */
  buildUrl(request: Request): string {
    let url = this.getUrl(request);
    if (this.noCache && request.action === 'read' && this.cacheString !== '') {
      request.cacheBuster ??= Date.now();
      url = appendQuery(url, `${encodeURIComponent(this.cacheString)}=${request.cacheBuster}`);
    }
    request.setBuiltUrl(url);
    return url;
  }

  /**
   * The params generated for an operation: paging (0 is sent), sorters, filters, grouper, and
   * for a read by id the `idParam`. Writes get none.
   */
  getParams(operation: Operation): Params {
    const params: Params = {};
    if (operation.action !== 'read') return params;
    if (operation.page !== undefined && sent(this.pageParam)) params[this.pageParam] = operation.page - 1 + this.firstPage;
    if (operation.start !== undefined && sent(this.startParam)) params[this.startParam] = operation.start;
    if (operation.limit !== undefined && sent(this.limitParam)) params[this.limitParam] = operation.limit;

    const grouper = operation.grouper;
    if (grouper && sent(this.groupParam)) {
      if (this.simpleGroupMode) putSimple(params, this.groupParam, this.groupDirectionParam, [grouper], (values) => values[0]);
      else params[this.groupParam] = JSON.stringify({ property: grouper.property, direction: grouper.direction ?? 'ASC' });
    }

    const sorters = operation.sorters;
    if (sorters.length > 0) {
      const local = sorters.find((sorter) => sorter.sorterFn !== undefined);
      if (local) throw new ProxyError('config', `read failed: the sorter on "${local.property}" has a sorterFn, which runs locally only and cannot be sent to the server; sort locally (remoteSort: false) or drop the function`, { operation });
      if (this.serializeSorters) {
        Object.assign(params, this.serializeSorters(sorters));
      } else if (sent(this.sortParam)) {
        if (this.simpleSortMode) putSimple(params, this.sortParam, this.directionParam, sorters, (values) => values);
        else params[this.sortParam] = this.encodeSorters(sorters);
      }
    }

    const filters = operation.filters;
    if (filters.length > 0) {
      const local = filters.find((filter) => filter.filterFn !== undefined);
      if (local) throw new ProxyError('config', `read failed: the filter on "${local.property}" has a filterFn, which runs locally only and cannot be sent to the server; filter locally (remoteFilter: false) or use property/operator/value`, { operation });
      if (this.serializeFilters) Object.assign(params, this.serializeFilters(filters));
      else if (sent(this.filterParam)) params[this.filterParam] = this.encodeFilters(filters);
    }

    if (operation.id !== undefined && sent(this.idParam)) params[this.idParam] = operation.id;
    return params;
  }

  /** `[{"property":"name","direction":"ASC"}]`. Override for another encoding. */
  encodeSorters(sorters: Sorter[]): string {
    return JSON.stringify(sorters.map((sorter) => ({ property: sorter.property, direction: sorter.direction ?? 'ASC' })));
  }

  /** `[{"property":"name","value":"Ed"}]`, with `"operator"` only where a filter has one (JSON leaves out undefined). */
  encodeFilters(filters: Filter[]): string {
    return JSON.stringify(filters.map((filter) => ({ property: filter.property, value: filter.value, operator: filter.operator })));
  }
}

defineOptions(ServerProxy.prototype, 'ServerProxy', serverSchema);
