/** What the store's view (view.ts) reads of a record: field values, and list comparisons (sort keys: util/sorting.ts). */
import { DATA } from '../model/internal.js';
import type { Model } from '../model/Model.js';
import type { Field } from '../model/fields.js';
import { recordInfo } from '../model/modelInfo.js';
import { ownValue, readField } from '../model/values.js';

export type Read<M> = (record: M) => unknown;

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
