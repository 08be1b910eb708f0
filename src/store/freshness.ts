/**
 * Freshness is a policy on top of `load()`, never a second load path: `staleTime` says when the
 * page shown is stale, the triggers (focus, reconnect, an interval) decide when to `refetch()`,
 * and a refetch is a load of what the last load loaded that never discards and joins a read in
 * flight. The triggers act only on a store someone shows (a subscriber), and each is wired only
 * when its option asks for it. A 304 (src/http/conditional.ts) changes nothing but `fetchedAt`.
 */
import type { Model } from '../model/Model.js';
import { Operation } from '../operation/Operation.js';
import { ResultSet } from '../operation/ResultSet.js';
import type { Filter, Sorter } from '../operation/types.js';
import { focusManager, onlineManager } from '../util/managers.js';
import { describeValue, isPlainObject } from '../util/options.js';
import type { Loads } from './load.js';
import type { LoadOptions } from './options.js';
import type { Store } from './Store.js';

/** What `store.dehydrate()` gives and `initialState` / `store.hydrate()` take. */
export interface StoreState {
  readonly entity: string;
  readonly version: 1;
  /** The page's rows as the server last confirmed them (no edits, no new records). */
  readonly rows: Record<string, unknown>[];
  readonly total: number;
  readonly page: number;
  readonly sorters: Sorter[];
  readonly filters: Filter[];
  readonly params: Record<string, unknown>;
  readonly etag: string | undefined;
  readonly url: string | undefined;
  readonly fetchedAt: number;
}

/** @internal What each persisted read cache (rest-proxy/offline's ReadCache) offers a store. */
export const persistTargets = new WeakMap<object, PersistHooks>();

export interface PersistHooks {
  /** The stored page for this key, if any (never rejects). */
  read(key: string): Promise<StoreState | undefined>;
  /** Store what a load brought (asynchronously; `ticket` tells the scope the load was sent under). */
  write(key: string, state: StoreState, ticket: unknown): void;
  /** What `write` needs to know that the scope did not change since the load was sent. */
  ticket(): unknown;
}

export function persistHooks(value: unknown): PersistHooks | undefined {
  const cache: unknown = isPlainObject(value) ? value.cache : undefined;
  return typeof cache === 'object' && cache !== null ? persistTargets.get(cache) : undefined;
}

const ignore = (): void => undefined;

function sameQuery(a: LoadOptions, b: LoadOptions): boolean {
  const key = ({ page, start, limit, params, addRecords, discardChanges }: LoadOptions): string => JSON.stringify([page, start, limit, params ?? {}, addRecords === true, discardChanges === true]);
  return key(a) === key(b);
}

export class Freshness<M extends Model> {
  /** Epoch ms of the last answer (200 or 304), null before any. */
  fetchedAt: number | null = null;
  /** The page shown came from a read cache: stale until a load answers. */
  restored = false;
  /** The url (cache buster aside) and ETag of the answer the page came from. */
  validator: { url: string; etag: string } | undefined = undefined;
  /** Settles once the persisted page was read (true: one was shown). */
  readonly restoredPromise: Promise<boolean>;
  /** What the last load asked for (refetch loads it again); undefined before any load. */
  #last: LoadOptions | undefined = undefined;
  #inflight: { options: LoadOptions; promise: Promise<M[]>; refetch: boolean } | undefined = undefined;
  #watchers = 0;
  #stops: (() => void)[] = [];
  #staleTimer: ReturnType<typeof setTimeout> | undefined = undefined;
  #ticket: unknown = undefined;
  readonly #persist: PersistHooks | undefined;

  constructor(
    private readonly store: Store<M>,
    private readonly loads: Loads<M>,
    /** Apply an answer as a load (hydrate, restore). */
    private readonly apply: (operation: Operation) => void,
    private readonly changed: () => void,
  ) {
    this.#persist = persistHooks(store.persist);
    this.restoredPromise = this.#persist === undefined ? Promise.resolve(false) : this.#restore(this.#persist);
  }

  get isStale(): boolean {
    if (this.fetchedAt === null || this.restored) return true;
    const staleTime = this.store.staleTime;
    return Date.now() - this.fetchedAt >= staleTime;
  }

  /** Whether anything is shown that a load brought (a page loaded, restored or hydrated). */
  get shows(): boolean {
    return this.fetchedAt !== null || this.restored;
  }

  /** A load: a refetch in flight asking for the same joins it; loads wait for the persisted page. */
  load(options: LoadOptions): Promise<M[]> {
    const inflight = this.#inflight;
    if (inflight?.refetch === true && sameQuery(inflight.options, options) && options.signal === undefined) return inflight.promise;
    return this.#run(options, false);
  }

  #run(options: LoadOptions, refetch: boolean): Promise<M[]> {
    const { signal: _signal, ...asked } = options;
    const run = (): Promise<M[]> => {
      this.#last = asked;
      this.#ticket = this.#persist?.ticket();
      return this.loads.run(options);
    };
    const promise = this.#persist === undefined ? run() : this.restoredPromise.then(run);
    const entry = { options: asked, promise, refetch };
    this.#inflight = entry;
    const forget = (): void => {
      if (this.#inflight === entry) this.#inflight = undefined;
    };
    promise.then(forget, forget);
    return promise;
  }

  /** Load again what the last load loaded, in the background; joins a read in flight. */
  refetch(): Promise<M[]> {
    return this.#inflight?.promise ?? this.#run({ ...this.#last, addRecords: false, discardChanges: false }, true);
  }

  /** Called first by the store's answer: true for a 304 (nothing else changes). */
  answered(operation: Operation): boolean {
    this.fetchedAt = Date.now();
    this.restored = false;
    this.#armStale();
    if (operation.notModified === true) {
      this.changed();
      return true;
    }
    this.validator = operation.validated;
    return false;
  }

  /** The answer was applied: the read cache keeps the page (a load of all pages off, or one page). */
  applied(): void {
    if (this.#persist !== undefined && this.store.persist !== undefined) this.#persist.write(this.store.persist.key, this.dehydrate(), this.#ticket);
  }

  dehydrate(): StoreState {
    const store = this.store;
    const rows = store.getRange().filter((record) => !record.phantom).map((record) => ({ ...record.getData(), ...record.modified }));
    return {
      entity: store.model.getEntityName(), version: 1, rows, total: store.getTotalCount(), page: store.currentPage,
      sorters: store.sorters.filter((sorter) => sorter.sorterFn === undefined).map((sorter) => ({ ...sorter })),
      filters: store.filters.filter((filter) => filter.filterFn === undefined).map((filter) => ({ ...filter })),
      params: { ...this.#last?.params }, etag: this.validator?.etag, url: this.validator?.url, fetchedAt: this.fetchedAt ?? Date.now(),
    };
  }

  /** Apply a dehydrated page as a load of its rows (ignored when older than what is shown). */
  hydrate(state: StoreState, restored = false): boolean {
    const store = this.store;
    const entity = store.model.getEntityName();
    if (!isPlainObject(state) || state.version !== 1 || !Array.isArray(state.rows)) throw new TypeError(`Store of ${entity}: hydrate expects what dehydrate() gave (version 1), got ${describeValue(state)}`);
    if (state.entity !== entity) throw new TypeError(`Store of ${entity}: hydrate was given the state of ${describeValue(state.entity)}`);
    const at = Math.min(Number(state.fetchedAt) || 0, Date.now());
    if (this.fetchedAt !== null && at < this.fetchedAt) return false;
    if (Array.isArray(state.sorters)) store.sorters = state.sorters;
    if (Array.isArray(state.filters)) store.filters = state.filters;
    this.#last = { params: { ...state.params } };
    const operation = new Operation({ action: 'read', page: state.page, params: { ...state.params } });
    operation.setSuccessful(new ResultSet({ records: state.rows, total: state.total }));
    this.apply(operation);
    this.fetchedAt = at;
    this.restored = restored;
    this.validator = typeof state.etag === 'string' && typeof state.url === 'string' ? { url: state.url, etag: state.etag } : undefined;
    this.#armStale();
    this.changed();
    return true;
  }

  async #restore(persist: PersistHooks): Promise<boolean> {
    const key = this.store.persist?.key ?? '';
    const state = await persist.read(key).catch(ignore);
    if (state === undefined || this.fetchedAt !== null) return false;
    try {
      return this.hydrate(state, true);
    } catch {
      return false;
    }
  }

  // ---- the triggers: only while someone shows the store --------------------------------------

  /** A subscriber came: the triggers run while there is one. Returns the unsubscribe to call. */
  watch(unsubscribe: () => void): () => void {
    if (this.#watchers++ === 0) this.#start();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      unsubscribe();
      if (--this.#watchers === 0) this.stop();
    };
  }

  /** Whether the store should start its first load (autoLoad): not when it shows a page still fresh. */
  mustLoad(): boolean {
    return !this.shows || this.isStale;
  }

  #trigger(stale: boolean): void {
    if (this.#watchers > 0 && this.#last !== undefined && (!stale || this.isStale)) this.refetch().catch(ignore);
  }

  #start(): void {
    const store = this.store;
    const stops = this.#stops;
    if (store.refetchOnFocus) stops.push(focusManager.subscribe((focused) => focused && this.#trigger(true)));
    if (store.refetchOnReconnect) stops.push(onlineManager.subscribe((online) => online && this.#trigger(true)));
    const every = store.refetchInterval;
    if (every > 0) {
      const timer = setInterval(() => {
        if (store.refetchIntervalInBackground || (focusManager.isFocused() && onlineManager.isOnline())) this.#trigger(false);
      }, every);
      stops.push(() => clearInterval(timer));
    }
    this.#armStale();
  }

  /** Tell subscribers once when the page turns stale by age. */
  #armStale(): void {
    clearTimeout(this.#staleTimer);
    this.#staleTimer = undefined;
    const staleTime = this.store.staleTime;
    if (this.#watchers === 0 || this.fetchedAt === null || this.restored || staleTime === 0 || staleTime === Infinity) return;
    const left = this.fetchedAt + staleTime - Date.now();
    if (left > 0) this.#staleTimer = setTimeout(() => this.changed(), left);
  }

  /** No subscriber any more, or the store is destroyed: no listener, no timer. */
  stop(): void {
    for (const stop of this.#stops.splice(0)) stop();
    clearTimeout(this.#staleTimer);
    this.#staleTimer = undefined;
  }
}
