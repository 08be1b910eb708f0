/**
 * What rest-proxy/react and rest-proxy/vue check of their arguments, with the same words: a
 * TypeError that says what was given instead (one from another copy of the package included).
 */
import { Model, type DataOf, type ModelClass } from '../model/Model.js';
import { StoreBase } from '../store/base.js';
import { describeValue } from '../util/options.js';

/**
 * The model class given with a record of type `R`: a class of `R`'s model, or of a narrower one
 * when `R` is wider (the untyped `Model`, `Model<object>`), never the class of another typed model.
 */
export type ModelClassFor<R, M extends Model<object>> = ModelClass<M> &
  (Record<string, unknown> extends DataOf<R> ? unknown : [DataOf<M>] extends [DataOf<R>] ? unknown : { readonly 'the record is of another model': DataOf<R> });

/** What rest-proxy/buffered marks its BufferedStore's prototype with: the bindings take one without importing it. */
const BUFFERED = Symbol.for('rest-proxy.buffered');

export function storeOf<S extends object>(value: S): S {
  // A ChainedStore is a StoreBase too (checked without importing ChainedStore: an app without one does not bundle it).
  if (value instanceof StoreBase || (typeof value === 'object' && value !== null && BUFFERED in value)) return value;
  throw new TypeError(`useStore: expected a Store, got ${describe(value, 'sync')}`);
}

export function recordOf(value: unknown): Model<object> {
  if (value instanceof Model) return value;
  throw new TypeError(`useRecord: expected a record (a Model), got ${describe(value, 'save')}`);
}

export function recordOfModel<M extends Model<object>>(value: unknown, model: ModelClass<M>): M {
  if (!isModelClass(model)) throw new TypeError(`useRecord: the second argument must be a Model class, got ${describe(model, 'save')}`);
  if (value instanceof model) return value;
  throw new TypeError(`useRecord: expected a record of ${model.getEntityName()}, got ${describe(value, 'save')}`);
}

/**
 * The record given, checked (against `model` when given); undefined for `undefined` or `null`
 * (nothing selected), which the bindings show as no snapshot.
 */
export function recordOrNone(value: unknown, model?: ModelClass<Model<object>>): Model<object> | undefined {
  if (value !== undefined && value !== null) return model === undefined ? recordOf(value) : recordOfModel(value, model);
  if (model !== undefined && !isModelClass(model)) recordOfModel(value, model);
  return undefined;
}

function isModelClass(value: unknown): boolean {
  return typeof value === 'function' && (value === Model || value.prototype instanceof Model);
}

/**
 * What a wrong argument is. One with our methods (`method`: `sync` for a Store, `save` for a
 * record) but not our class comes from another copy of the package.
 */
function describe(value: unknown, method: 'sync' | 'save'): string {
  if (value instanceof StoreBase) return 'a Store';
  const copy = typeof value === 'object' && value !== null && !(value instanceof Model) && typeof Reflect.get(value, method) === 'function' && typeof Reflect.get(value, 'getSnapshot') === 'function';
  return copy ? 'one from another copy of rest-proxy: import rest-proxy and its bindings from one copy of the package' : describeValue(value);
}
