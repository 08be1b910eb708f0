/**
 * The records this tab holds of a row: its session's (a model with associations), else one a
 * store of this tab lists. Another tab's write of that row is shown on this tab's record and, sent
 * from here, applied to it (shared.ts), rather than to a second record of the same row.
 */
import { extensions } from '../model/extensions.js';
import type { Model } from '../model/Model.js';
import type { JsonValue } from './storage.js';
import type { AnyModel } from './types.js';

/** The stores of each attached model that loaded in this tab (weakly: a store let go is forgotten). */
const stores = new WeakMap<AnyModel, Set<WeakRef<object>>>();

/** A store of `model` loaded (the outbox's restore hook): its records may be found by id. */
export function noteStore(model: AnyModel, store: object): void {
  let set = stores.get(model);
  if (set === undefined) stores.set(model, (set = new Set()));
  set.add(new WeakRef(store));
}

/** Call `owner`'s method `name` with `args`, if it has one. */
function call(owner: unknown, name: string, args: unknown[]): unknown {
  const method: unknown = typeof owner === 'object' && owner !== null ? Reflect.get(owner, name) : undefined;
  return typeof method === 'function' ? Reflect.apply(method, owner, args) : undefined;
}

/** This tab's record of `model` with the id `rid`, if it holds one (`storesToo`: also one a store of this tab lists, not only its session's). */
export function heldRecord(model: AnyModel, rid: JsonValue, storesToo = true): Model<object> | undefined {
  const found = (held: unknown): held is Model<object> => held instanceof model && !held.erased;
  const fromSession = call(extensions.defaultSession?.(model), 'get', [model, rid]);
  if (found(fromSession)) return fromSession;
  if (!storesToo) return undefined;
  for (const ref of stores.get(model) ?? []) {
    const store = ref.deref();
    if (store === undefined) stores.get(model)?.delete(ref);
    const held = call(store, 'getById', [rid]);
    if (found(held)) return held;
  }
  return undefined;
}
