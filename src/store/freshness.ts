/**
 * Freshness is a policy on top of `load()`, never a second load path: `staleTime` says when the
 * page shown is stale, the triggers (focus, reconnect, an interval) decide when to `refetch()`,
 * and a refetch is a load of what the last load loaded that never discards and joins a read in
 * flight. The triggers act only on a store someone shows (a subscriber), and each is wired only
 * when its option asks for it. A 304 (src/http/conditional.ts) changes nothing but `fetchedAt`.
 */
import type { Model, ModelClass } from '../model/Model.js';
import { Operation } from '../operation/Operation.js';
import { ResultSet } from '../operation/ResultSet.js';
import type { Filter, Sorter } from '../operation/types.js';
import { focusManager, onlineManager } from '../util/managers.js';
import { dev } from '../util/dev.js';
import { describeValue, isPlainObject } from '../util/options.js';
import { REMOTE } from './base.js';
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

/** @internal What each read cache (rest-proxy/offline's ReadCache) does for a store persisting through it under `key`. */
export const persistTargets = new WeakMap<object, (key: string, store: Persisted, query: PersistedQuery) => Persisting>();

/** What a read cache sees of a store's query: a page kept for another query is not that store's page. */
export interface PersistedQuery {
  readonly model: ModelClass<Model<object>>;
  readonly remoteSort: boolean;
  readonly remoteFilter: boolean;
  readonly sorters: readonly Sorter[];
  readonly filters: readonly Filter[];
}

/** What a read cache sees of a store's freshness. */
export interface Persisted {
  readonly fetchedAt: number | null;
  hydrate(state: StoreState, restored: boolean): boolean;
  dehydrate(): StoreState;
}

/** What a read cache does for a store: restore its page, hold its loads until then, keep what they bring. */
export interface Persisting {
  /** Settles once the stored page was read (true: one is shown). Never rejects. */
  readonly restored: Promise<boolean>;
  /** Run a load once the stored page was read (its answer is kept only if the scope did not change meanwhile). */
  send<T>(start: () => Promise<T>): Promise<T>;
  /** A load's answer was applied: keep the page. */
  applied(): void;
}

const ignore = (): void => undefined;
const query = (options: LoadOptions): string => JSON.stringify([options.page, options.start, options.limit, options.params, options.addRecords === true, options.discardChanges === true]);

/** A store's freshness: what the Store's one-line methods and its snapshot call. */
export interface Freshness<M extends Model> {
  /** The url (cache buster aside) and ETag of the answer the page came from. */
  readonly validator: { url: string; etag: string } | undefined;
  /** Epoch ms of the last answer (200 or 304), null before any. */
  readonly fetchedAt: number | null;
  /** Whether a page is shown that a load brought (loaded, restored or hydrated). */
  readonly shows: boolean;
  /** No page shown, a restored one, or past `staleTime` (autoLoad loads only then). */
  readonly isStale: boolean;
  /** Settles once the persisted page was read (true: one is shown). */
  readonly restored: Promise<boolean>;
  /** A load: one asking for what a refetch in flight asks for joins it; loads wait for the persisted page. */
  load(options: LoadOptions): Promise<M[]>;
  /** Load again what the last load loaded (never discarding); joins a read in flight. */
  refetch(): Promise<M[]>;
  /**
   * An answer came (called first): true for a 304, which changes nothing else. A discarding load
   * answered 304 takes in the page the server sent again, without the changes it discards.
   */
  answered(operation: Operation, options: LoadOptions): boolean;
  /** The answer was applied: the read cache keeps the page. */
  applied(): void;
  dehydrate(): StoreState;
  /** Apply a dehydrated page as a load of its rows; false when older than what is shown. */
  hydrate(state: StoreState, restored?: boolean): boolean;
  /** A subscriber came (the triggers run while there is one): returns the unsubscribe to call. */
  watch(unsubscribe: () => void): () => void;
  /** No subscriber any more, or destroyed (`destroyed`: for good, nothing is hydrated then): no listener, no timer. */
  stop(destroyed?: boolean): void;
}

/**
 * The freshness of `store`: `loads` runs its loads, `apply` takes an answer in as a load
 * (hydrate, restore), `changed` tells subscribers, `page` gives the records of the page as the
 * server sent it (those a local filter hides and those removed since included, new ones not).
 */
export function freshness<M extends Model>(store: Store<M>, loads: Loads<M>, apply: (operation: Operation) => void, changed: () => void, page: () => M[]): Freshness<M> {
  let fetchedAt: number | null = null;
  /** The page shown came from a read cache: stale until a load answers. */
  let restoredPage = false;
  let validator: Freshness<M>['validator'];
  /** What the last load asked for (refetch loads it again); undefined before any load. */
  let last: LoadOptions | undefined;
  let inflight: { options: LoadOptions; promise: Promise<M[]>; refetch: boolean } | undefined;
  let watchers = 0;
  let stops: (() => void)[] = [];
  let staleTimer: ReturnType<typeof setTimeout> | undefined;
  let destroyed = false;

  const run = (options: LoadOptions, refetch: boolean): Promise<M[]> => {
    const { signal: _signal, ...asked } = options;
    const start = (): Promise<M[]> => {
      last = asked;
      return loads.run(options);
    };
    const promise = persisting ? persisting.send(start) : start();
    const entry = { options: asked, promise, refetch };
    inflight = entry;
    const forget = (): void => {
      if (inflight === entry) inflight = undefined;
    };
    promise.then(forget, forget);
    return promise;
  };
  /** Tell subscribers once when the page turns stale by age. */
  const armStale = (): void => {
    clearTimeout(staleTimer);
    const left = watchers === 0 || self.isStale ? 0 : Number(fetchedAt) + store.staleTime - Date.now();
    staleTimer = left > 0 && left !== Infinity ? setTimeout(changed, left) : undefined;
  };
  const trigger = (stale: boolean): void => {
    if (watchers > 0 && last !== undefined && (!stale || self.isStale)) self.refetch().catch(ignore);
  };
  const back = (now: boolean): void => {
    if (now) trigger(true);
  };
  const start = (): void => {
    if (store.refetchOnFocus) stops.push(focusManager.subscribe(back));
    if (store.refetchOnReconnect) stops.push(onlineManager.subscribe(back));
    if (store.refetchInterval > 0) {
      const timer = setInterval(() => {
        if (store.refetchIntervalInBackground || (focusManager.isFocused() && onlineManager.isOnline())) trigger(false);
      }, store.refetchInterval);
      stops.push(() => clearInterval(timer));
    }
    armStale();
  };

  const self: Freshness<M> = {
    get validator() { return validator; },
    get fetchedAt() { return fetchedAt; },
    get shows() { return fetchedAt !== null || restoredPage; },
    get isStale() { return fetchedAt === null || restoredPage || Date.now() - fetchedAt >= store.staleTime; },
    get restored() { return persisting?.restored ?? Promise.resolve(false); },
    load(options) {
      return inflight?.refetch === true && options.signal === undefined && query(inflight.options) === query(options) ? inflight.promise : run(options, false);
    },
    refetch: () => inflight?.promise ?? run({ ...last, addRecords: false, discardChanges: false }, true),
    answered(operation, options) {
      fetchedAt = Date.now();
      restoredPage = false;
      armStale();
      // After an appending load, the page shown came from several answers: none validates it.
      if (operation.notModified !== true) validator = options.addRecords ? undefined : operation.validated;
      else if (options.discardChanges) operation.resultSet = new ResultSet({ records: self.dehydrate().rows, total: store.getTotalCount(), summary: store[REMOTE] });
      else {
        changed();
        return true;
      }
      return false;
    },
    applied: () => persisting?.applied(),
    dehydrate: () => ({
      entity: store.model.getEntityName(), version: 1,
      rows: page().map((record) => ({ ...record.getData(), ...record.modified })),
      total: store.getTotalCount(), page: store.currentPage,
      sorters: store.sorters.filter((sorter) => !sorter.sorterFn),
      filters: store.filters.filter((filter) => !filter.filterFn),
      params: { ...last?.params }, etag: validator?.etag, url: validator?.url, fetchedAt: fetchedAt ?? Date.now(),
    }),
    hydrate(state, restoring = false) {
      const entity = store.model.getEntityName();
      if (!isPlainObject(state) || state.version !== 1 || !Array.isArray(state.rows) || state.entity !== entity) {
        throw new TypeError(`Store of ${entity}: hydrate ${dev('expects what dehydrate() of a store of this model gave (version 1)', 'expects a state of this model')}, got ${describeValue(state)}`);
      }
      const at = Math.min(Number(state.fetchedAt) || 0, Date.now());
      if (destroyed || (fetchedAt !== null && at < fetchedAt)) return false;
      store.sorters = state.sorters;
      store.filters = state.filters;
      last = { params: { ...state.params } };
      const operation = new Operation({ action: 'read', page: state.page, params: last.params });
      operation.setSuccessful(new ResultSet({ records: state.rows, total: state.total }));
      // The page's validator, kept as a load's answer keeps its own.
      operation.validated = typeof state.etag === 'string' && typeof state.url === 'string' ? { url: state.url, etag: state.etag } : undefined;
      apply(operation);
      fetchedAt = at;
      restoredPage = restoring;
      armStale();
      changed();
      return true;
    },
    watch(unsubscribe) {
      if (watchers++ === 0) start();
      let done = false;
      return () => {
        if (done) return;
        done = true;
        unsubscribe();
        if (--watchers === 0) self.stop();
      };
    },
    stop(gone) {
      destroyed ||= gone === true;
      for (const stop of stops) stop();
      stops = [];
      armStale();
    },
  };
  const persist = store.persist;
  // Called only after construction (loads, answers): the read cache's part, when `persist` names one.
  const persisting: Persisting | undefined = persist && persistTargets.get(persist.cache)?.(persist.key, self, store);
  return self;
}
