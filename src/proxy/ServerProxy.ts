import { ProxyError } from '../errors/ProxyError.js';
import { localOnly, noUrl } from '../errors/messages.js';
import type { Operation } from '../operation/Operation.js';
import { Request } from '../operation/Request.js';
import type { Filter, Grouper, Sorter } from '../operation/types.js';
import { defineOptions, type OptionSchema, type Stored } from '../util/options.js';
import { appendQuery } from '../util/url.js';
import { serverSchema, type Params, type ServerProxyConfig } from './options/server.js';
import { Proxy } from './Proxy.js';

export type { Params, ServerProxyConfig };

type ServerDefaults = 'api' | 'extraParams' | 'noCache' | 'cacheString' | 'timeout' | 'firstPage' | 'simpleSortMode' | 'simpleGroupMode';

// The option properties come from ServerProxyConfig (declared once there, with their documentation).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the members come from the config
export interface ServerProxy extends Omit<Stored<ServerProxyConfig, ServerDefaults>, keyof Proxy> {}

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
  const together = directionParam === param;
  params[param] = value(items.map((item) => (together ? `${item.property} ${direction(item)}` : item.property)));
  if (!together && sent(directionParam)) params[directionParam] = value(items.map(direction));
}

/**
 * A proxy that talks to a server: urls, params for paging, sorting, filtering and grouping,
 * and the cache buster. AjaxProxy sends what it builds.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class ServerProxy extends Proxy {
  static override className = 'ServerProxy';
  static override optionSchema: OptionSchema = serverSchema;

  constructor(config: ServerProxyConfig = {}) {
    super(config);
  }

  /** Build the Request for an operation: merged params, then the url (see `buildUrl`). */
  buildRequest(operation: Operation): Request {
    const params = { ...this.extraParams, ...operation.params, ...this.getParams(operation) };
    const request = new Request({ operation, params, headers: { ...operation.headers }, url: operation.url });
    operation.request = request;
    this.buildUrl(request);
    return request;
  }

  /**
   * The url to start from: `request.url`, then `api[action]`, then `url`. Fails with kind
   * 'config' when there is none.
   */
  getUrl(request: Request): string {
    if (request.url && !request.isBuilt) {
      request.sourceUrl ??= request.url;
      return request.url;
    }
    if (request.sourceUrl !== undefined) return request.sourceUrl;
    const url = this.api[request.action] || this.url;
    if (!url) {
      throw new ProxyError('config', noUrl(request.action), { operation: request.operation, request });
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
    // A value goes under its param when there is one and the param is sent.
    const put = (name: string | null | undefined, value: unknown): void => {
      if (value !== undefined && sent(name)) params[name] = value;
    };
    const page = operation.page;
    put(this.pageParam, page === undefined ? page : page - 1 + this.firstPage);
    put(this.startParam, operation.start);
    put(this.limitParam, operation.limit);

    const grouper = operation.grouper;
    if (grouper && sent(this.groupParam)) {
      if (this.simpleGroupMode) putSimple(params, this.groupParam, this.groupDirectionParam, [grouper], (values) => values[0]);
      else params[this.groupParam] = JSON.stringify({ property: grouper.property, direction: grouper.direction ?? 'ASC' });
    }

    const summary = operation.summary;
    put(this.summaryParam, summary?.length ? JSON.stringify(summary) : undefined);
    const sorters = operation.sorters;
    if (sorters.length > 0) {
      const local = sorters.find((sorter) => sorter.sorterFn !== undefined);
      if (local) throw new ProxyError('config', localOnly('sorter', local.property), { operation });
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
      if (local) throw new ProxyError('config', localOnly('filter', local.property), { operation });
      if (this.serializeFilters) Object.assign(params, this.serializeFilters(filters));
      else if (sent(this.filterParam)) params[this.filterParam] = this.encodeFilters(filters);
    }

    put(this.idParam, operation.id);
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
