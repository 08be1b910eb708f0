/**
 * rest-proxy/vue: a Store and a record as Vue refs.
 *
 *     const users = useStore(store);                // users.value.records, .loading, .error
 *     const user = useRecord(() => props.record);   // user.value.get('name'), .dirty, .errors
 *     const outboxState = useOutbox(outbox);        // outboxState.value.pending, .failed, .paused
 *
 * Each composable returns a readonly shallow ref that holds the core's snapshot (a frozen object
 * replaced only when something visible changed) and follows it through `subscribe`; the
 * subscription ends with the effect scope it was made in (a component's `setup`, an
 * `effectScope`). Stores and records need no `reactive()`: Vue leaves them as they are.
 * @module rest-proxy/vue
 */
import { getCurrentScope, hasInjectionContext, inject, isRef, onScopeDispose, shallowReadonly, shallowRef, ssrContextKey, toValue, watch, type MaybeRefOrGetter, type ShallowRef } from 'vue';
import { recordOrNone, storeOf, type ModelClassFor } from './bindings/checks.js';
import { outboxOf, type OutboxSnapshot, type OutboxSource } from './bindings/outbox.js';
import type { ChainedStore, ChainedStoreSnapshot, Model, ModelClass, RecordSnapshot, Store, StoreSnapshot } from './index.js';
import type { BufferedSnapshot, BufferedStore } from './buffered.js';

export type { ModelClassFor, OutboxSnapshot };

/**
 * The snapshot of a store (`records`, `total`, `page`, `pageCount`, `loading`, `syncing`,
 * `hasChanges`, `error`) in a readonly shallow ref. It changes when the store changes visibly,
 * which includes a visible change of any of its records. Give a ref or a getter to follow
 * whichever store it holds. A BufferedStore (rest-proxy/buffered) gives its visible snapshot (`rows`, `count`, ...).
 * @throws TypeError when `store` is not a Store.
 */
export function useStore<M extends Model>(store: MaybeRefOrGetter<Store<M>>): Readonly<ShallowRef<StoreSnapshot<M>>>;
export function useStore<M extends Model>(store: MaybeRefOrGetter<ChainedStore<M>>): Readonly<ShallowRef<ChainedStoreSnapshot<M>>>;
export function useStore<M extends Model>(store: MaybeRefOrGetter<BufferedStore<M>>): Readonly<ShallowRef<BufferedSnapshot<M>>>;
export function useStore<M extends Model>(store: MaybeRefOrGetter<Store<M> | ChainedStore<M> | BufferedStore<M>>): Readonly<ShallowRef<StoreSnapshot<M> | ChainedStoreSnapshot<M> | BufferedSnapshot<M>>> {
  return follow<StoreSnapshot<M> | ChainedStoreSnapshot<M> | BufferedSnapshot<M>>(() => storeOf(toValue(store)), isRef(store) || typeof store === 'function');
}

/**
 * The snapshot of a record (`get(name)`, `values`, `dirty`, `phantom`, `saving`, `erased`,
 * `errors`) in a readonly shallow ref: an edit, a save starting and ending, the server's field
 * errors, a store load that brings new values all replace it. Give a getter (`() => props.record`)
 * or a ref to follow whichever record it holds: a record given as it is stays the one followed.
 * `undefined` or `null` (nothing selected) gives `undefined`, until the getter gives a record.
 *
 * Give the model class as second argument to check the record's model (a TypeError when it is
 * another one) and to type a record known only as a `Model`: `useRecord(store.getAt(0), User)`.
 * @throws TypeError when `record` is not a record, or not one of `model`.
 */
export function useRecord<M extends Model<object>>(record: MaybeRefOrGetter<M>): Readonly<ShallowRef<RecordSnapshot<M>>>;
export function useRecord<M extends Model<object>>(record: MaybeRefOrGetter<M | null | undefined>): Readonly<ShallowRef<RecordSnapshot<M> | undefined>>;
export function useRecord<R extends Model<object>, M extends Model<object>>(record: MaybeRefOrGetter<R>, model: ModelClassFor<R, M>): Readonly<ShallowRef<RecordSnapshot<M>>>;
export function useRecord<R extends Model<object>, M extends Model<object>>(record: MaybeRefOrGetter<R | null | undefined>, model: ModelClassFor<R, M>): Readonly<ShallowRef<RecordSnapshot<M> | undefined>>;
export function useRecord(record: unknown, model?: ModelClass<Model<object>>): Readonly<ShallowRef<RecordSnapshot<Model<object>> | undefined>> {
  return follow<RecordSnapshot<Model<object>> | undefined>(() => recordOrNone(toValue(record), model) ?? NOTHING, isRef(record) || typeof record === 'function');
}

/**
 * The snapshot of an Outbox of rest-proxy/offline (`pending`, `sending`, `failed`, `paused`,
 * `leader`, `durable`, `oldestPendingAt`, `otherScopes`) in a readonly shallow ref, replaced when
 * it changes; released with the effect scope.
 * @throws TypeError when `outbox` is not an Outbox.
 */
export function useOutbox(outbox: OutboxSource): Readonly<ShallowRef<OutboxSnapshot>> {
  const checked = outboxOf(outbox);
  const source: Source<OutboxSnapshot> = { subscribe: (listener) => checked.subscribe(() => listener(checked.getSnapshot())), getSnapshot: checked.getSnapshot };
  return follow(() => source, false);
}

function unsubscribed(): void {
  // nothing to end
}

/** What a ref follows while given no record: nothing, ever. */
const NOTHING: Source<undefined> = {
  subscribe(listener) {
    listener(undefined);
    return unsubscribed;
  },
  getSnapshot: () => undefined,
};

interface Source<S> {
  subscribe(listener: (snapshot: S) => void): () => void;
  getSnapshot(): S;
}

/**
 * A shallow ref that follows the snapshot of `read()` until the current effect scope ends;
 * `dynamic`: `read` reads a ref or a getter, and the ref follows the source it gives next.
 * During server rendering it only holds the snapshot: a page is rendered once there, and Vue
 * never ends the effect scope of a component it renders on the server.
 */
function follow<S>(read: () => Source<S>, dynamic: boolean): Readonly<ShallowRef<S>> {
  const first = read();
  const snapshot = shallowRef<S>(first.getSnapshot());
  if (renderingOnServer()) return shallowReadonly(snapshot);
  // subscribe calls the listener at once with the current snapshot (no update for the first
  // source; the snapshot of the next one when the source changes), then on every change.
  const listen = (source: Source<S>): (() => void) =>
    source.subscribe((next) => {
      snapshot.value = next;
    });
  let unsubscribe = listen(first);
  if (dynamic) {
    watch(read, (source) => {
      unsubscribe();
      unsubscribe = listen(source);
    }, { flush: 'sync' });
  }
  if (getCurrentScope()) onScopeDispose(() => unsubscribe());
  return shallowReadonly(snapshot);
}

/** Whether this runs in the setup of a component rendered by vue/server-renderer (which provides its context). */
function renderingOnServer(): boolean {
  return hasInjectionContext() && inject(ssrContextKey, null) !== null;
}

// Vue's ref() and reactive() leave a store and a record as they are (the core marks them raw, as
// markRaw does): this tells Vue's types so, so that `ref(store).value` is typed as the Store
// itself rather than as a copy of its shape without its private members.
declare module '@vue/reactivity' {
  interface RefUnwrapBailTypes {
    restProxy: { getSnapshot(): { readonly store: object } | { readonly record: object } };
  }
}
