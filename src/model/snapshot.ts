/**
 * Snapshots: what a record looks like at one moment, for a UI that compares by identity (React's
 * useSyncExternalStore, Vue's shallow refs, Svelte's stores).
 */
import { checkListener, View, type Subscriber } from '../util/notify.js';
import { isPlainObject } from '../util/options.js';
import { sameValue } from './fields.js';
import type { RecordMeta } from './internal.js';
import type { DataOf, FieldErrorsOf, IdOf, Model } from './Model.js';
import { metaOf } from './internal.js';

/**
 * What a record looks like at one moment, for a UI: frozen, and a new object only when something
 * visible changed (so React, Vue and Svelte can compare it by identity).
 */
export class RecordSnapshot<M extends Model<object> = Model> {
  // Declared, not defined: the constructor sets each one (and the bundle carries no field list).
  /** The record. */
  declare readonly record: M;
  /** Every value, converted (a frozen copy: arrays and plain objects frozen copies, Dates copies). */
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
    const values = record.getData();
    for (const key of Object.keys(values)) values[key] = copyOf(values[key]);
    this.values = Object.freeze(values);
    this.#id = record.getId();
    this.phantom = record.phantom;
    this.dirty = record.dirty;
    this.saving = record.saving;
    this.erased = record.erased;
    this.errors = copyOf(record.errors);
    const modified: M['modified'] = record.modified;
    this.modified = copyOf(modified);
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

/**
 * A value as a snapshot shows it, so that changing what a snapshot holds never changes the
 * record (nor makes it dirty without telling): an array or a plain object as a frozen copy, a
 * Date as a copy (a Date cannot be frozen); other objects (a Map, a class instance) are shared.
 * Past 32 levels (a value that refers to itself) a value is shared rather than copied forever.
 */
function copyOf<T>(value: T, depth?: number): T;
function copyOf(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null || depth > 32) return value;
  if (value instanceof Date) return new Date(value.getTime());
  if (Array.isArray(value)) return Object.freeze(value.map((item: unknown) => copyOf(item, depth + 1)));
  if (!isPlainObject(value)) return value;
  // fromEntries: a "__proto__" key stays an own key, as in the record.
  return Object.freeze(Object.fromEntries(Object.keys(value).map((key) => [key, copyOf(value[key], depth + 1)])));
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


/**
 * A record's snapshot and listeners while it has subscribers (the view holds the record, and the
 * record's meta the view); made again from the last snapshot, if still held, after the last left.
 */
function viewOf(record: Model<object>): View<unknown> {
  const meta = metaOf(record);
  if (meta.view === undefined) {
    meta.view = new View<unknown>(() => new RecordSnapshot(record), sameRecordSnapshot, meta.shown?.deref());
    meta.shown = undefined;
  }
  return meta.view;
}

/** The last subscriber left: the view goes, its snapshot is kept weakly (see snapshotOf). */
function release(meta: RecordMeta, view: View<unknown>): void {
  if (meta.view !== view || view.listened) return;
  const last = view.get();
  meta.view = undefined;
  meta.shown = last instanceof RecordSnapshot ? new WeakRef(last) : undefined;
  meta.stale = false;
}

/** Subscribe to a record (see Model.subscribe). */
export function subscribeTo<M extends Model<object>>(record: M, listener: Subscriber<RecordSnapshot<M>>): () => void {
  checkListener(listener);
  const view = viewOf(record);
  // The snapshot the view tells (a listener compares it with the last one it was given).
  const off = view.add((snapshot) => listener(isSnapshotOf(snapshot, record) ? snapshot : snapshotOf(record)));
  return () => {
    off();
    release(metaOf(record), view);
  };
}

/** What a record looks like now (see Model.getSnapshot). */
export function snapshotOf<M extends Model<object>>(record: M): RecordSnapshot<M> {
  const meta = metaOf(record);
  const view = meta.view;
  if (view !== undefined) {
    const snapshot = view.get();
    return isSnapshotOf(snapshot, record) ? snapshot : new RecordSnapshot(record);
  }
  // No subscriber: the last snapshot while anyone holds it (else nobody can tell it from a new one).
  const last = meta.shown?.deref();
  if (isSnapshotOf(last, record) && !meta.stale) return last;
  const next = new RecordSnapshot(record);
  meta.stale = false;
  if (isSnapshotOf(last, record) && sameRecordSnapshot(last, next)) return last;
  meta.shown = new WeakRef(next);
  return next;
}
