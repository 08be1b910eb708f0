/**
 * rest-proxy/vue: a Store and a record as Vue refs.
 *
 *     const users = useStore(store);                // users.value.records, .loading, .error
 *     const user = useRecord(() => props.record);   // user.value.get('name'), .dirty, .errors
 *
 * Each composable returns a readonly shallow ref that holds the core's snapshot (a frozen object
 * replaced only when something visible changed) and follows it through `subscribe`; the
 * subscription ends with the effect scope it was made in (a component's `setup`, an
 * `effectScope`). Stores and records need no `reactive()`: Vue leaves them as they are.
 * @module rest-proxy/vue
 */
import { getCurrentScope, isRef, onScopeDispose, shallowReadonly, shallowRef, toValue, watch, type MaybeRefOrGetter, type ShallowRef } from 'vue';
import { Model, Store, type DataOf, type ModelClass, type RecordSnapshot, type StoreSnapshot } from './index.js';

/**
 * The snapshot of a store (`records`, `total`, `page`, `pageCount`, `loading`, `syncing`,
 * `hasChanges`, `error`) in a readonly shallow ref. It changes when the store changes visibly,
 * which includes a visible change of any of its records. Give a ref or a getter to follow
 * whichever store it holds.
 * @throws TypeError when `store` is not a Store.
 */
export function useStore<M extends Model>(store: MaybeRefOrGetter<Store<M>>): Readonly<ShallowRef<StoreSnapshot<M>>> {
  return follow(() => storeOf<M>(toValue(store)), isRef(store) || typeof store === 'function');
}

/**
 * Accepts a record whose type may be of model `M`: a record of `M`, or one typed wider (the
 * untyped `Model`, `Model<object>`), never a record of another typed model.
 */
export type MayBeRecordOf<R, M> =
  Record<string, unknown> extends DataOf<R> ? unknown : [DataOf<M>] extends [DataOf<R>] ? unknown : { readonly 'the record is of another model': DataOf<R> };

/**
 * The snapshot of a record (`get(name)`, `values`, `dirty`, `phantom`, `saving`, `erased`,
 * `errors`) in a readonly shallow ref: an edit, a save starting and ending, the server's field
 * errors, a store load that brings new values all replace it. Give a getter (`() => props.record`)
 * or a ref to follow whichever record it holds: a record given as it is stays the one followed.
 *
 * Give the model class as second argument to check the record's model (a TypeError when it is
 * another one) and to type a record known only as a `Model`: `useRecord(store.getAt(0), User)`.
 * @throws TypeError when `record` is not a record, or not one of `model`.
 */
export function useRecord<M extends Model<object>>(record: MaybeRefOrGetter<M>): Readonly<ShallowRef<RecordSnapshot<M>>>;
export function useRecord<M extends Model<object>, R extends Model<object>>(record: MaybeRefOrGetter<R & MayBeRecordOf<R, M>>, model: ModelClass<M>): Readonly<ShallowRef<RecordSnapshot<M>>>;
export function useRecord<M extends Model<object>>(record: unknown, model?: ModelClass<M>): Readonly<ShallowRef<RecordSnapshot<M>>> | Readonly<ShallowRef<RecordSnapshot<Model<object>>>> {
  const dynamic = isRef(record) || typeof record === 'function';
  if (model === undefined) return follow(() => recordOf(toValue(record)), dynamic);
  return follow(() => recordOfModel(toValue(record), model), dynamic);
}

interface Source<S> {
  subscribe(listener: (snapshot: S) => void): () => void;
  getSnapshot(): S;
}

/**
 * A shallow ref that follows the snapshot of `read()` until the current effect scope ends;
 * `dynamic`: `read` reads a ref or a getter, and the ref follows the source it gives next.
 */
function follow<S>(read: () => Source<S>, dynamic: boolean): Readonly<ShallowRef<S>> {
  const first = read();
  const snapshot = shallowRef<S>(first.getSnapshot());
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

// Vue's ref() and reactive() leave a store and a record as they are (the core marks them raw, as
// markRaw does): this tells Vue's types so, so that `ref(store).value` is typed as the Store
// itself rather than as a copy of its shape without its private members.
declare module '@vue/reactivity' {
  interface RefUnwrapBailTypes {
    restProxy: { getSnapshot(): { readonly store: object } | { readonly record: object } };
  }
}

// ---- argument checks (the same in rest-proxy/react) --------------------------------------------

function storeOf<M extends Model>(value: Store<M>): Store<M> {
  if (value instanceof Store) return value;
  throw new TypeError(`useStore: expected a Store, got ${describe(value, 'sync')}`);
}

function recordOf(value: unknown): Model<object> {
  if (value instanceof Model) return value;
  throw new TypeError(`useRecord: expected a record (a Model), got ${describe(value, 'save')}`);
}

function recordOfModel<M extends Model<object>>(value: unknown, model: ModelClass<M>): M {
  if (!isModelClass(model)) throw new TypeError(`useRecord: the second argument must be a Model class, got ${describe(model, 'save')}`);
  if (value instanceof model) return value;
  throw new TypeError(`useRecord: expected a record of ${modelName(model)}, got ${describe(value, 'save')}`);
}

function isModelClass(value: unknown): boolean {
  return typeof value === 'function' && (value === Model || value.prototype instanceof Model);
}

/** The name messages use: the entity name, else the class name (which a minifier may have changed). */
function modelName(model: { getEntityName(): string; name: string }): string {
  const entity = model.getEntityName();
  return entity !== 'Record' ? entity : model.name || 'an unnamed Model';
}

/**
 * What a wrong argument is. One with our methods (`method`: `sync` for a Store, `save` for a
 * record) but not our class comes from another copy of the package.
 */
function describe(value: unknown, method: 'sync' | 'save'): string {
  if (value instanceof Store) return 'a Store';
  if (value instanceof Model) return `a record of ${modelName(value.getModelClass())}`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value !== 'object' || value === null) return String(value);
  const copy = typeof Reflect.get(value, method) === 'function' && typeof Reflect.get(value, 'getSnapshot') === 'function';
  return copy ? 'one from another copy of rest-proxy: import rest-proxy and its bindings from one copy of the package' : `an object (${String(value.constructor?.name ?? 'Object')})`;
}
