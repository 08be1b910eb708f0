/** What the store's view (view.ts) reads of a record: sort keys, field values, and list comparisons. */
import { DATA } from '../model/internal.js';
import type { Model } from '../model/Model.js';
import type { Field } from '../model/fields.js';
import { recordInfo } from '../model/modelInfo.js';
import { ownValue, readField } from '../model/values.js';
import { compareText, textOf } from '../util/sorting.js';

export type Read<M> = (record: M) => unknown;

/** A value as a sort key: empty (undefined, null, NaN) as undefined, a Date as its time, an object as its JSON. */
export function sortKey(value: unknown): unknown {
  if (value == null || value !== value) return undefined; // NaN: the one value not itself
  if (typeof value !== 'object') return value;
  return value instanceof Date ? sortKey(value.getTime()) : textOf(value);
}

/** compareValues (util/sorting) on sort keys: numbers by value, strings by code point, empty last. */
export function compareKeys(x: unknown, y: unknown): number {
  // Inline, never subtracting (Infinity - Infinity is NaN): the hot path of a sorted view.
  if (typeof x === 'string' && typeof y === 'string') return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : x > y ? 1 : 0;
  if (x === undefined || y === undefined) return (x === undefined ? 1 : 0) - (y === undefined ? 1 : 0);
  if (typeof x === 'boolean' && typeof y === 'boolean') return Number(x) - Number(y);
  return compareText(x, y);
}

/** A field's value as `get` gives it, read from the record's data when it needs no conversion. */
export function reader<M extends Model<object>>(name: string): Read<M> {
  // The field of the last record's class (a store's records are of one class, or a few).
  let model: unknown;
  let field: Field | undefined;
  return (record) => {
    const value = ownValue(record[DATA], name); // a field named `constructor` is data
    if (value === undefined) return value;
    if (record.constructor !== model) {
      model = record.constructor;
      field = recordInfo(record).byName.get(name);
    }
    return field === undefined || !field.lazy || field.isConverted(value) ? value : readField(record, name);
  };
}

/** Two lists of sorters or filters that say the same (each member's own values the same). */
export function sameList<T extends object>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, i) => {
    const other = b[i];
    return other !== undefined && Object.keys(item).length === Object.keys(other).length && Object.entries(item).every(([key, value]) => Object.is(value, Reflect.get(other, key)));
  });
}

export function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
