/**
 * rest-proxy/react: a Store and a record as React state.
 *
 *     const { records, loading, error } = useStore(store);
 *     const user = useRecord(record); // user.get('name'), user.dirty, user.errors
 *     const { pending, failed, paused } = useOutbox(outbox); // rest-proxy/offline's Outbox
 *
 * Both hooks are `useSyncExternalStore` over the core's `subscribe` / `getSnapshot`: a snapshot
 * is a frozen object that is replaced only when something visible changed, so a component
 * renders again only then, and all the changes of one synchronous run make one render.
 * @module rest-proxy/react
 */
import { useCallback, useSyncExternalStore } from 'react';
import { recordOrNone, storeOf, type ModelClassFor } from './bindings/checks.js';
import { outboxOf, type OutboxSnapshot, type OutboxSource } from './bindings/outbox.js';
import type { ChainedStore, ChainedStoreSnapshot, Model, ModelClass, RecordSnapshot, Store, StoreSnapshot } from './index.js';
import type { BufferedSnapshot, BufferedStore } from './buffered.js';

export type { ModelClassFor, OutboxSnapshot };

/**
 * The snapshot of a store (`records`, `total`, `page`, `pageCount`, `loading`, `syncing`,
 * `hasChanges`, `error`), kept up to date. Renders again when it changes, which includes a
 * visible change of any of the store's records. The server snapshot (SSR) is the store as it is
 * when rendered. A BufferedStore (rest-proxy/buffered) gives its visible snapshot (`rows`, `count`, ...).
 * @throws TypeError when `store` is not a Store.
 */
export function useStore<M extends Model>(store: Store<M>): StoreSnapshot<M>;
export function useStore<M extends Model>(store: ChainedStore<M>): ChainedStoreSnapshot<M>;
export function useStore<M extends Model>(store: BufferedStore<M>): BufferedSnapshot<M>;
export function useStore<M extends Model>(store: Store<M> | ChainedStore<M> | BufferedStore<M>): StoreSnapshot<M> | ChainedStoreSnapshot<M> | BufferedSnapshot<M> {
  const checked = storeOf(store);
  const subscribe = useCallback((onChange: () => void) => follow(checked, onChange), [checked]);
  const snapshot = (): StoreSnapshot<M> | ChainedStoreSnapshot<M> | BufferedSnapshot<M> => checked.getSnapshot();
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}

/**
 * The snapshot of a record (`get(name)`, `values`, `dirty`, `phantom`, `saving`, `erased`,
 * `errors`), kept up to date: an edit, a save starting and ending, the server's field errors, a
 * store load that brings new values all render again. `undefined` or `null` (nothing selected)
 * gives `undefined`.
 *
 * Give the model class as second argument to check the record's model (a TypeError when it is
 * another one) and to type a record known only as a `Model`: `useRecord(store.getAt(0), User)`.
 * @throws TypeError when `record` is not a record, or not one of `model`.
 */
export function useRecord<M extends Model<object>>(record: M): RecordSnapshot<M>;
export function useRecord<M extends Model<object>>(record: M | null | undefined): RecordSnapshot<M> | undefined;
export function useRecord<R extends Model<object>, M extends Model<object>>(record: R, model: ModelClassFor<R, M>): RecordSnapshot<M>;
export function useRecord<R extends Model<object>, M extends Model<object>>(record: R | null | undefined, model: ModelClassFor<R, M>): RecordSnapshot<M> | undefined;
export function useRecord(record: unknown, model?: ModelClass<Model<object>>): RecordSnapshot<Model<object>> | undefined {
  const checked = recordOrNone(record, model);
  const subscribe = useCallback((onChange: () => void) => (checked === undefined ? nothing : follow(checked, onChange)), [checked]);
  const snapshot = (): RecordSnapshot<Model<object>> | undefined => checked?.getSnapshot();
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}

/**
 * The snapshot of an Outbox of rest-proxy/offline (`pending`, `sending`, `failed`, `paused`,
 * `leader`, `durable`, `oldestPendingAt`, `otherScopes`), kept up to date, as `useStore` gives a
 * store's. Renders again when it changes.
 * @throws TypeError when `outbox` is not an Outbox.
 */
export function useOutbox(outbox: OutboxSource): OutboxSnapshot {
  const checked = outboxOf(outbox);
  const subscribe = useCallback((onChange: () => void) => follow(checked, onChange), [checked]);
  return useSyncExternalStore(subscribe, checked.getSnapshot, checked.getSnapshot);
}

function nothing(): () => void {
  return nothing;
}

/**
 * Subscribe for React. Our `subscribe` calls its listener at once with the current snapshot;
 * React compares snapshots itself after subscribing, so that first call is not passed on.
 */
function follow(source: { subscribe(listener: () => void): () => void }, onChange: () => void): () => void {
  let started = false;
  const unsubscribe = source.subscribe(() => {
    if (started) onChange();
  });
  started = true;
  return unsubscribe;
}
