/**
 * Snapshots: what a record looks like at one moment, for a UI that compares by identity (React's
 * useSyncExternalStore, Vue's shallow refs, Svelte's stores).
 */
import { sameValue } from './fields.js';
import type { DataOf, FieldErrorsOf, IdOf, Model } from './Model.js';

/**
 * What a record looks like at one moment, for a UI: frozen, and a new object only when something
 * visible changed (so React, Vue and Svelte can compare it by identity).
 */
export class RecordSnapshot<M extends Model<object> = Model> {
  /** Every value, converted (a frozen copy). */
  readonly values: Readonly<Record<string, unknown>>;
  readonly phantom: boolean;
  readonly dirty: boolean;
  readonly saving: boolean;
  readonly erased: boolean;
  readonly errors: FieldErrorsOf<DataOf<M>>;

  readonly #id: unknown;

  constructor(readonly record: M) {
    this.values = Object.freeze(record.getData());
    this.#id = record.getId();
    this.phantom = record.phantom;
    this.dirty = record.dirty;
    this.saving = record.saving;
    this.erased = record.erased;
    this.errors = record.errors;
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
    return this.values[name];
  }

  /** Whether another snapshot shows the same (so the older one can be kept). */
  sameAs(other: RecordSnapshot<M>): boolean {
    if (other.record !== this.record || other.phantom !== this.phantom || other.dirty !== this.dirty || other.saving !== this.saving) return false;
    if (other.erased !== this.erased || other.errors !== this.errors || !sameValue(other.#id, this.#id)) return false;
    const keys = Object.keys(this.values);
    return keys.length === Object.keys(other.values).length && keys.every((key) => sameValue(this.values[key], other.values[key]));
  }
}

export function isSnapshotOf<M extends Model<object>>(value: unknown, record: M): value is RecordSnapshot<M> {
  return value instanceof RecordSnapshot && value.record === record;
}

