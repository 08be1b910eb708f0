/**
 * Snapshots: what a record looks like at one moment, for a UI that compares by identity (React's
 * useSyncExternalStore, Vue's shallow refs, Svelte's stores).
 */
import { isPlainObject } from '../util/options.js';
import { sameValue } from './fields.js';
import type { DataOf, FieldErrorsOf, IdOf, Model } from './Model.js';

/**
 * What a record looks like at one moment, for a UI: frozen, and a new object only when something
 * visible changed (so React, Vue and Svelte can compare it by identity).
 */
export class RecordSnapshot<M extends Model<object> = Model> {
  // Declared, not defined: the constructor sets each one (and the bundle carries no field list).
  /** The record. */
  declare readonly record: M;
  /** Every value, converted (a frozen copy). */
  declare readonly values: Readonly<Record<string, unknown>>;
  declare readonly phantom: boolean;
  declare readonly dirty: boolean;
  declare readonly saving: boolean;
  declare readonly erased: boolean;
  declare readonly errors: FieldErrorsOf<DataOf<M>>;
  /** The previous values of the fields changed since the last save (frozen; empty when clean). */
  declare readonly modified: Readonly<M['modified']>;

  readonly #id: unknown;

  constructor(record: M) {
    this.record = record;
    this.values = Object.freeze(record.getData());
    this.#id = record.getId();
    this.phantom = record.phantom;
    this.dirty = record.dirty;
    this.saving = record.saving;
    this.erased = record.erased;
    this.errors = record.errors;
    const modified: M['modified'] = record.modified;
    this.modified = Object.freeze(modified);
    Object.freeze(this);
  }

  /** The id then (typed like `record.getId`). */
  getId(): IdOf<DataOf<M>> | undefined;
  getId(): unknown {
    return this.#id;
  }

  /** A value as it was when the snapshot was taken (typed like `record.get`). */
  get<K extends keyof DataOf<M> & string>(name: K): DataOf<M>[K];
  get(name: string): unknown {
    return Object.hasOwn(this.values, name) ? this.values[name] : undefined;
  }

  /** Whether a field had been changed since the last save (typed like `record.isModified`). */
  isModified(name: keyof DataOf<M> & string): boolean;
  isModified(name: string): boolean {
    return Object.hasOwn(this.modified, name);
  }
}

/** Whether two record snapshots show the same (then the older one is kept). Every public field counts; the values hold the id. */
export function sameRecordSnapshot(a: unknown, b: unknown): boolean {
  return a instanceof RecordSnapshot && b instanceof RecordSnapshot && sameShown({ ...a }, { ...b });
}

/**
 * Whether two parts of snapshots show the same: arrays and plain objects by content, Dates by
 * time, anything else (records, errors, functions) by identity. Past 32 levels (a value that
 * refers to itself) they count as different: a new snapshot rather than no end.
 */
export function sameShown(a: unknown, b: unknown, depth = 0): boolean {
  if (sameValue(a, b)) return true;
  if (depth > 32) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, index) => sameShown(item, b[index], depth + 1));
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameShown(a[key], b[key], depth + 1));
}

export function isSnapshotOf<M extends Model<object>>(value: unknown, record: M): value is RecordSnapshot<M> {
  return value instanceof RecordSnapshot && value.record === record;
}

