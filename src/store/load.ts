/**
 * How a store loads: a newer load supersedes one in flight (which rejects with kind 'abort',
 * `superseded`, and changes nothing); the writes that complete while a load is in flight are
 * noted, so that its answer does not undo them (see mergeLoaded).
 */
import { ProxyError } from '../errors/ProxyError.js';
import { LOAD } from '../errors/messages.js';
import { isModelClass, type Model, type ModelClass } from '../model/Model.js';
import { Link } from '../http/link.js';
import { Operation } from '../operation/Operation.js';
import type { Direction, Filter, Sorter, SummaryRequest } from '../operation/types.js';
import type { Proxy } from '../proxy/Proxy.js';
import { dev } from '../util/dev.js';
import { describeValue } from '../util/options.js';
import { summaryRequests, type LoadOptions } from './options.js';
import { sinceLoad, type SinceLoad } from './pending.js';

/** What a load needs of its store. */
export interface LoadHost<M extends Model<object>> {
  /** The read operation of a load: paging, remote sorters, filters and grouper. */
  operation(options: LoadOptions, link: Link): Operation;
  proxy(): Proxy;
  /** `beforeload`: false cancels the load. */
  before(operation: Operation): boolean;
  /** The answer arrived: take it in; returns the records listed. */
  loaded(operation: Operation, options: LoadOptions, since: SinceLoad<M>): M[];
  /** What a discarding load drops: the edit clock now, and the new and removed records now. */
  called(): NonNullable<SinceLoad<M>['called']>;
  /** The load failed (not aborted). */
  failed(operation: Operation, error: unknown): void;
  /** Whether a load is in flight changed. */
  changed(): void;
}

/** Which page, start and limit a load asks for: what it was given, else its page size and current page. */
export function pagingOf(options: LoadOptions, pageSize: number, currentPage: number): { page?: number; start?: number; limit?: number } {
  const { page, start, limit } = options;
  for (const name of ['page', 'start', 'limit'] as const) {
    const value = options[name];
    if (value !== undefined && (!Number.isInteger(value) || value < 0 || (name === 'page' && value < 1))) {
      throw new TypeError(`Store.load: ${name} must be a ${name === 'page' ? 'positive' : 'non-negative'} integer, got ${describeValue(value)}`);
    }
  }
  if (pageSize === 0 && page === undefined && start === undefined && limit === undefined) return {};
  const size = limit ?? (pageSize || undefined);
  const thePage = page ?? (start !== undefined && size ? Math.floor(start / size) + 1 : currentPage);
  const theStart = start ?? (size !== undefined ? (thePage - 1) * size : undefined);
  // Undefined where not asked (the operation takes undefined as not given): no literal spread, which V8 makes slow.
  return { page: thePage, start: theStart, limit: size };
}

/** What a store's read operation is made of. */
interface Query {
  pageSize: number; currentPage: number; remoteSort: boolean; remoteFilter: boolean; remoteGroup: boolean;
  sorters: readonly Sorter[]; filters: readonly Filter[]; groupField?: string | undefined; groupDir: Direction;
  remoteSummary?: Readonly<Record<string, SummaryRequest['summary'] | undefined>> | undefined;
}

/** The read operation of a store's load: paging, the remote sorters, filters and grouper (those with a function run after the load: they cannot be sent). */
/** `proxy`, given the store's model when it has none (a proxy serves one model). */
export function claimProxy(proxy: Proxy, model: unknown): Proxy {
  if (proxy.model === undefined && isModelClass(model)) proxy.model = model;
  return proxy;
}

/** The options `autoLoad` loads with (off: undefined); a TypeError when neither the store nor its model has a proxy. */
export function autoLoadOptions(store: { autoLoad: boolean | LoadOptions; proxy: Proxy | undefined; model: ModelClass<Model<object>> }): LoadOptions | undefined {
  if (store.autoLoad === false) return undefined;
  if (store.proxy === undefined && store.model.proxy === undefined) {
    throw new TypeError(`Store: autoLoad needs a proxy, and neither the store nor its model (${store.model.getEntityName()}) has one${dev('; give the store a proxy, or the model a static proxy')}`);
  }
  return store.autoLoad === true ? {} : store.autoLoad;
}

export function readOperation(store: Query, options: LoadOptions, link: Link, validator: Operation['validator']): Operation {
  const operation = new Operation({
    action: 'read',
    ...pagingOf(options, store.pageSize, store.currentPage),
    params: { ...options.params },
    sorters: store.remoteSort ? store.sorters.filter((sorter) => sorter.sorterFn === undefined) : [],
    filters: store.remoteFilter ? store.filters.filter((filter) => filter.filterFn === undefined) : [],
    grouper: store.remoteGroup && store.groupField !== undefined ? { property: store.groupField, direction: store.groupDir } : undefined,
    summary: summaryRequests(store.remoteSummary),
  });
  operation.link = link;
  operation.validator = validator;
  return operation;
}

export class Loads<M extends Model<object>> {
  #seq = 0;
  #controller: Link | undefined = undefined;
  /** What completed since the load in flight was sent. */
  #since: SinceLoad<M> | undefined = undefined;

  constructor(private readonly host: LoadHost<M>) {}

  /** True while a load is in flight. */
  get running(): boolean {
    return this.#controller !== undefined;
  }

  /** Notes of what completes while the load in flight runs (undefined when none runs). */
  get since(): SinceLoad<M> | undefined {
    return this.#since;
  }

  /** End the load in flight for good (the store is destroyed): it rejects as superseded and changes nothing. */
  stop(): void {
    this.#seq++;
    this.#controller?.abort();
    this.#controller = undefined;
    this.#since = undefined;
  }

  /** What the last load asked for (Store.reload asks it again); never loaded: page 1. */
  last: LoadOptions = { page: 1 };

  async run(options: LoadOptions): Promise<M[]> {
    if (typeof options !== 'object' || options === null) throw new TypeError(`Store.load: options must be an object, got ${describeValue(options)}`);
    const host = this.host;
    const controller = new Link();
    // Options refused, or a beforeload listener that says no: nothing changes, a load in flight goes on.
    const operation = host.operation(options, controller);
    if (!host.before(operation)) throw new ProxyError('abort', LOAD.cancelled, { operation });
    // One literal, the page undefined when a start was asked: spreading a literal made here
    // (`{ ...(cond ? { page } : { start }), limit }`) cost V8 2 us a load.
    this.last = { page: options.start === undefined ? operation.page : undefined, start: options.start, limit: operation.limit, params: options.params };
    const seq = ++this.#seq;
    this.#controller?.abort();
    this.#controller = controller;
    const callerSignal = options.signal;
    const forward = (): void => controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) forward();
    else callerSignal?.addEventListener('abort', forward);
    try {
      return await this.#once(seq, controller, operation, options);
    } finally {
      // One listener per load, removed when it settles: a signal shared by many loads keeps none.
      callerSignal?.removeEventListener('abort', forward);
    }
  }

  async #once(seq: number, controller: Link, operation: Operation, options: LoadOptions): Promise<M[]> {
    const host = this.host;
    const since = sinceLoad<M>(options.discardChanges === true ? host.called() : undefined);
    this.#since = since;
    host.changed();
    const superseded = (): ProxyError => new ProxyError('abort', LOAD.superseded, { operation, superseded: seq !== this.#seq });
    const settle = (): void => {
      if (this.#since === since) this.#since = undefined;
      if (this.#controller === controller) this.#controller = undefined;
      host.changed();
    };
    try {
      await host.proxy().read(operation);
    } catch (error) {
      if (seq !== this.#seq) throw superseded();
      settle();
      if (!(error instanceof ProxyError && error.kind === 'abort')) host.failed(operation, error);
      throw error;
    }
    if (seq !== this.#seq || controller.aborted) throw superseded();
    settle();
    try {
      return host.loaded(operation, options, since);
    } catch (error) {
      // An answer refused as a whole (a session's nested data of the wrong shape): nothing applied.
      host.failed(operation, error);
      throw error;
    }
  }
}
