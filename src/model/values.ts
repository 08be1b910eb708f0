/**
 * Reading, converting and merging a record's values. A value is held as given or as the server
 * sent it, and converted to its field's type when first read.
 */
import type { RecordLike } from '../operation/types.js';
import { readPath } from '../util/path.js';
import { INVALID, sameValue, type Field } from './fields.js';
import { DATA, META, type Internals } from './internal.js';
import { recordInfo, type ModelInfo } from './modelInfo.js';

/** A record as these functions reach it. */
export type ValueHolder = Internals & RecordLike & Parameters<typeof recordInfo>[0];

/** What mergeServerValues returns when nothing changed. */
export const NONE_CHANGED: readonly string[] = Object.freeze([]);

/** The value of a field, converted on first read for built-in types. */
export function readField(record: ValueHolder, name: string): unknown {
  const data = record[DATA];
  const value = data[name];
  if (value === undefined) return undefined;
  const field = recordInfo(record).byName.get(name);
  if (field === undefined || !field.lazy || field.isConverted(value)) return value;
  const converted = field.convert(value, record);
  if (converted === INVALID) return null;
  data[name] = converted;
  return converted;
}

/** A value of field `name` in its type, as readField gives it (a snapshot may hold it as stored). */
export function asFieldValue(record: ValueHolder, name: string, value: unknown): unknown {
  const field = recordInfo(record).byName.get(name);
  if (value === undefined || field === undefined || !field.lazy || field.isConverted(value)) return value;
  const converted = field.convert(value, record);
  return converted === INVALID ? null : converted;
}

/** Whether two values of field `name` are the same once in its type. */
export function sameFieldValue(record: ValueHolder, name: string, a: unknown, b: unknown): boolean {
  return sameValue(a, b) || sameValue(asFieldValue(record, name, a), asFieldValue(record, name, b));
}

/** The value of a field in server data (its mapping applied), converted when the field is eager. */
export function fromServerValue(record: ValueHolder, field: Field, raw: Record<string, unknown>): unknown {
  let value = field.mapping === undefined ? raw[field.name] : readPath(raw, field.mapping);
  if (value === undefined && field.defaultValue !== undefined) value = field.makeDefault();
  if (field.customConvert === undefined) return value;
  const converted = field.convert(value, record);
  return converted === INVALID ? null : converted;
}

/** Every value, converted, by field name. */
export function getData(record: ValueHolder): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const data = record[DATA];
  for (const key of Object.keys(data)) if (key !== '__proto__') out[key] = readField(record, key);
  for (const field of recordInfo(record).fields) if (!(field.name in out)) out[field.name] = readField(record, field.name);
  return out;
}

/**
 * Server data by field name, converted (mappings applied; unconvertible values become null).
 * Values the server echoes exactly as `written` (what the writer sent) are left out: the record
 * already holds them, so there is nothing to convert nor compare. Keys that are no field are kept
 * as the server sent them, but never `__proto__`.
 */
export function readServerValues(record: ValueHolder, info: ModelInfo, serverData: Record<string, unknown>, written?: Record<string, unknown>): Record<string, unknown> | undefined {
  // Made on the first value to merge: a create's answer is mostly the echo of what was sent.
  let out: Record<string, unknown> | undefined;
  for (const field of info.fields) {
    const mapping = field.mapping;
    const value = mapping === undefined ? serverData[field.name] : readPath(serverData, mapping);
    if (value === undefined && !((mapping ?? field.name) in serverData)) continue;
    if (written !== undefined && value !== undefined && mapping === undefined && written[field.name] === value) continue;
    const converted = field.convert(value, record);
    (out ??= {})[field.name] = converted === INVALID ? null : converted;
  }
  const mapped = info.mappedRoots;
  for (const key in serverData) {
    if (!Object.hasOwn(serverData, key) || key === '__proto__') continue;
    const value = serverData[key];
    if (!info.byName.has(key) && !mapped.has(key) && !(written !== undefined && written[key] === value)) (out ??= {})[key] = value;
  }
  return out;
}

/**
 * Take server values as the saved state: fields with local, unsaved edits keep them (they stay
 * dirty, now against the server's value); the others take the server's value. Returns the names
 * of the fields whose value changed.
 */
export function mergeServerValues(record: ValueHolder, serverData: Record<string, unknown>, written?: Record<string, unknown>): readonly string[] {
  const values = readServerValues(record, recordInfo(record), serverData, written);
  if (values === undefined) return NONE_CHANGED;
  const meta = record[META];
  const modified = meta?.modified;
  const data = record[DATA];
  // Made with its first name: usually the only one (the id of a create), so no spare room.
  let changed: string[] | undefined;
  for (const name in values) {
    const value = values[name];
    if (modified !== undefined && name in modified) {
      modified[name] = value;
      if (sameValue(value, readField(record, name))) delete modified[name];
    } else if (!sameValue(readField(record, name), value)) {
      data[name] = value;
      if (changed === undefined) changed = [name];
      else changed.push(name);
    }
  }
  if (meta !== null) {
    if (changed !== undefined) meta.version++;
    if (meta.modified !== undefined && Object.keys(meta.modified).length === 0) meta.modified = undefined;
  }
  return changed ?? NONE_CHANGED;
}
