/**
 * rest-proxy/react: a Store and a record as React state.
 *
 *     const { records, loading, error } = useStore(store);
 *     const user = useRecord(record); // user.get('name'), user.dirty, user.errors
 *
 * Both hooks are `useSyncExternalStore` over the core's `subscribe` / `getSnapshot`: a snapshot
 * is a frozen object that is replaced only when something visible changed, so a component
 * renders again only then, and all the changes of one synchronous run make one render.
 * @module rest-proxy/react
 */
import { useCallback, useSyncExternalStore } from 'react';
import { Model, Store, type DataOf, type ModelClass, type RecordSnapshot, type StoreSnapshot } from './index.js';

/**
 * The snapshot of a store (`records`, `total`, `page`, `pageCount`, `loading`, `syncing`,
 * `hasChanges`, `error`), kept up to date. Renders again when it changes, which includes a
 * visible change of any of the store's records. The server snapshot (SSR) is the store as it is
 * when rendered.
 * @throws TypeError when `store` is not a Store.
 */
export function useStore<M extends Model>(store: Store<M>): StoreSnapshot<M> {
  if (!(store instanceof Store)) throw new TypeError(`useStore: expected a Store, got ${describe(store, 'sync')}`);
  const subscribe = useCallback((onChange: () => void) => follow(store, onChange), [store]);
  const snapshot = (): StoreSnapshot<M> => store.getSnapshot();
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}

/**
 * Accepts a record whose type may be of model `M`: a record of `M`, or one typed wider (the
 * untyped `Model`, `Model<object>`), never a record of another typed model.
 */
export type MayBeRecordOf<R, M> =
  Record<string, unknown> extends DataOf<R> ? unknown : [DataOf<M>] extends [DataOf<R>] ? unknown : { readonly 'the record is of another model': DataOf<R> };

/**
 * The snapshot of a record (`get(name)`, `values`, `dirty`, `phantom`, `saving`, `erased`,
 * `errors`), kept up to date: an edit, a save starting and ending, the server's field errors, a
 * store load that brings new values all render again.
 *
 * Give the model class as second argument to check the record's model (a TypeError when it is
 * another one) and to type a record known only as a `Model`: `useRecord(store.getAt(0), User)`.
 * @throws TypeError when `record` is not a record, or not one of `model`.
 */
export function useRecord<M extends Model<object>>(record: M): RecordSnapshot<M>;
export function useRecord<M extends Model<object>, R extends Model<object>>(record: R & MayBeRecordOf<R, M>, model: ModelClass<M>): RecordSnapshot<M>;
export function useRecord<M extends Model<object>>(record: unknown, model?: ModelClass<M>): RecordSnapshot<M> | RecordSnapshot<Model<object>> {
  const checked = model === undefined ? recordOf(record) : recordOfModel(record, model);
  const subscribe = useCallback((onChange: () => void) => follow(checked, onChange), [checked]);
  const snapshot = (): RecordSnapshot<M> | RecordSnapshot<Model<object>> => checked.getSnapshot();
  return useSyncExternalStore(subscribe, snapshot, snapshot);
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

// ---- argument checks (the same in rest-proxy/vue) ------------------------------------------

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
