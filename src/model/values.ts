/**
 * Reading, converting and merging a record's values. A value is held as given or as the server
 * sent it, and converted to its field's type when first read.
 */
import type { RecordLike } from '../operation/types.js';
import { canonicalIsoTime } from '../util/isoDate.js';
import { describeValue, isPlainObject } from '../util/options.js';
import { own, put, readPath } from '../util/path.js';
import { INVALID, sameValue, type Field } from './fields.js';
import { DATA, eachOwner, edited, META, newMeta, stamp, tidy, touch, type Internals } from './internal.js';
import { extensions } from './extensions.js';
import { entityNameOf, recordInfo, type ModelInfo } from './modelInfo.js';
import { SAVED } from './writeState.js';
import { dev } from '../util/dev.js';

/** A record as these functions reach it. */
export type ValueHolder = Internals & RecordLike & Parameters<typeof recordInfo>[0];

/** What mergeServerValues returns when nothing changed. */
export const NONE_CHANGED: readonly string[] = Object.freeze([]);

/**
 * The value of a field, converted on first read for built-in types. A declared field given no
 * value reads as null converted (null, or its type's empty value with `allowNull: false`); the id
 * of a new record, and a key waiting for a new parent (rest-proxy/associations), read as undefined.
 */
export function readField(record: ValueHolder, name: string): unknown {
  const data = record[DATA];
  const value = ownValue(data, name);
  const info = recordInfo(record);
  // Only a foreign key may wait (keys: those associations referenced through, at least once).
  if (value == null && info.keys.has(name) && extensions.keyWaits?.(record, name)) return undefined;
  const field = info.byName.get(name);
  // Its blank, made once per field (a custom convert makes its own, per record).
  if (value === undefined) return field === undefined || name === info.idProperty ? undefined : field.customConvert ? field.convert(null, record) : field.blank;
  if (field === undefined || !field.lazy || field.isConverted(value)) return value;
  const converted = field.convert(value, record);
  // A value its type cannot take reads as the field's blank (a type's default with allowNull: false).
  if (converted === INVALID) return field.blank;
  data[name] = converted;
  return converted;
}

/** `data[name]`, but nothing inherited from Object.prototype (util/path's own). */
export const ownValue: (data: Record<string, unknown>, name: string) => unknown = own;

/** A value of field `name` in its type, as readField gives it (a snapshot may hold it as stored). */
export function asFieldValue(record: ValueHolder, name: string, value: unknown): unknown {
  const field = recordInfo(record).byName.get(name);
  if (value === undefined || field === undefined || !field.lazy || field.isConverted(value)) return value;
  return field.read(value, record);
}

/** Whether two values of field `name` are the same once in its type. */
export function sameFieldValue(record: ValueHolder, name: string, a: unknown, b: unknown): boolean {
  return sameValue(a, b) || sameValue(asFieldValue(record, name, a), asFieldValue(record, name, b));
}

/** The value of a field in server data (its mapping applied), converted when the field is eager. */
export function fromServerValue(record: ValueHolder, field: Field, raw: Record<string, unknown>): unknown {
  let value = field.mapping === undefined ? ownValue(raw, field.name) : readPath(raw, field.mapping);
  if (value === undefined && field.defaultValue !== undefined) value = field.makeDefault();
  return field.customConvert === undefined ? value : field.read(value, record);
}

/** Every value, converted, by field name. */
export function getData(record: ValueHolder): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const info = recordInfo(record);
  for (const key of Object.keys(record[DATA])) if (key !== '__proto__' || info.byName.has(key)) put(out, key, readField(record, key));
  for (const field of info.fields) if (!Object.hasOwn(out, field.name)) put(out, field.name, readField(record, field.name));
  return out;
}

/**
 * Server data by field name, converted (mappings applied; a value its type cannot take becomes the field's blank).
 * Values the server echoes exactly as `written` (what the writer sent) are left out: the record
 * already holds them, so there is nothing to convert nor compare. Keys that are no field are kept
 * as the server sent them, but never `__proto__`.
 */
export function readServerValues(record: ValueHolder, info: ModelInfo, serverData: Record<string, unknown>, written?: Record<string, unknown>): Record<string, unknown> | undefined {
  // Made on the first value to merge: a create's answer is mostly the echo of what was sent.
  let out: Record<string, unknown> | undefined;
  for (const field of info.fields) {
    const mapping = field.mapping;
    const value = mapping === undefined ? ownValue(serverData, field.name) : readPath(serverData, mapping);
    if (value === undefined && !Object.hasOwn(serverData, mapping ?? field.name)) continue;
    if (written !== undefined && value !== undefined && mapping === undefined && written[field.name] === value) continue;
    put((out ??= {}), field.name, field.read(value, record));
  }
  const mapped = info.mappedRoots;
  for (const key in serverData) {
    // A field's key first: most of an answer's keys are (one Map lookup, then the next key).
    if (info.byName.has(key) || mapped.has(key) || !Object.hasOwn(serverData, key) || key === '__proto__') continue;
    const value = serverData[key];
    if (!(written !== undefined && written[key] === value)) (out ??= {})[key] = value;
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
    if (modified !== undefined && Object.hasOwn(modified, name)) {
      modified[name] = value;
      if (sameValue(value, readField(record, name))) delete modified[name];
    } else if (!sameValue(readField(record, name), value)) {
      put(data, name, value);
      if (changed === undefined) changed = [name];
      else changed.push(name);
    }
  }
  if (meta !== null) {
    if (changed !== undefined) meta.version++;
    tidy(meta);
  }
  return changed ?? NONE_CHANGED;
}

/** Whether `name` is a field of the model or its id (a model that declares no field takes any name but `__proto__`). */
export function isField(info: ModelInfo, name: string): boolean {
  return info.byName.has(name) || name === info.idProperty || (info.fields.length === 0 && name !== '__proto__');
}

/** A TypeError unless `name` is a field of the model or its id (isField). */
function checkField(info: ModelInfo, where: string, name: string): void {
  if (!isField(info, name)) {
    throw new TypeError(`${entityNameOf(info.model)}${where}: unknown field "${name}"${dev(` (fields: ${info.fields.map((field) => field.name).join(', ')})`)}`);
  }
}

export function convertOrThrow(record: ValueHolder, field: Field, value: unknown): unknown {
  const converted = field.convert(value, record);
  if (converted === INVALID) throw new TypeError(`${entityNameOf(recordInfo(record).model)}.${field.name}: cannot convert ${describeValue(value)} to ${field.type}`);
  return converted;
}

/**
 * The values of a new record: each declared field given (converted to its type) or its default;
 * a key that is no declared field (nor the id) is a TypeError, as with set(). A model that declares no field
 * takes any key but `__proto__`.
 */
export function initValues(record: ValueHolder, info: ModelInfo, values: Record<string, unknown>, data: unknown): void {
  if (data !== undefined && !isPlainObject(data)) throw new TypeError(`${entityNameOf(info.model)}: ${dev('a record is made of an object of field values', 'expected an object')}, got ${describeValue(data)}`);
  const input: Record<string, unknown> = data ?? {};
  const open = info.fields.length === 0;
  for (const key of Object.keys(input)) {
    if (input[key] === undefined) continue;
    checkField(info, '', key);
    if (open) values[key] = input[key]; // a model without fields keeps every key as given
  }
  for (const field of info.fields) {
    const given = ownValue(input, field.name);
    const value = given === undefined ? field.makeDefault() : given;
    if (value === undefined) continue;
    // A date given as the canonical ISO string waits for its first read, as a loaded one does:
    // it is valid, and it is written back as it is, never parsed just to be formatted again.
    put(values, field.name, field.lazy && field.type === 'date' && typeof value === 'string' && !Number.isNaN(canonicalIsoTime(value)) ? value : convertOrThrow(record, field, value));
  }
  if (!open && info.idField === undefined && input[info.idProperty] !== undefined) values[info.idProperty] = input[info.idProperty]; // an undeclared id, as given
}

/**
 * Set one field, or several: each value converted to its field's type (a value that cannot be is
 * a TypeError naming it); a changed persisted field becomes modified. Returns the changed names.
 */
export function setValues(record: ValueHolder, nameOrValues: unknown, value: unknown): string[] {
  const info = recordInfo(record);
  if (typeof nameOrValues !== 'string' && !isPlainObject(nameOrValues)) {
    throw new TypeError(`${entityNameOf(info.model)}.set: expected ${dev('a field name or an object of values', 'a name or an object')}, got ${describeValue(nameOrValues)}`);
  }
  const entries: [string, unknown][] = typeof nameOrValues === 'string' ? [[nameOrValues, value]] : Object.entries(nameOrValues);
  const converted: [string, unknown, Field | undefined][] = entries.map(([name, raw]) => {
    const field = info.byName.get(name);
    checkField(info, '.set', name);
    return [name, field ? convertOrThrow(record, field, raw) : raw, field];
  });
  const changed: string[] = [];
  const data = record[DATA];
  for (const [name, next, field] of converted) {
    const current = readField(record, name);
    if (sameValue(current, next)) continue;
    put(data, name, next);
    changed.push(name);
    const meta = (record[META] ??= newMeta(SAVED));
    meta.version++;
    stamp(meta, name);
    if (field !== undefined && !field.persist) continue;
    const modified = (meta.modified ??= {});
    if (!Object.hasOwn(modified, name)) put(modified, name, current);
    else if (sameValue(modified[name], next)) delete modified[name];
    tidy(meta);
  }
  return changed;
}

/**
 * Mark a field modified with its value kept (rest-proxy/associations: a saved record pointed at a
 * new one, an edit that reject() undoes): owners hear an edit. False when it already was.
 */
export function markModified(record: ValueHolder & Internals, name: string): boolean {
  const meta = (record[META] ??= newMeta(SAVED));
  const modified = (meta.modified ??= {});
  if (Object.hasOwn(modified, name)) return false;
  put(modified, name, readField(record, name));
  meta.version++;
  stamp(meta, name);
  edited(record, [name]);
  return true;
}

/**
 * Undo the edits made up to `upTo` (on the clock of internal.ts; all by default): those fields
 * take their saved values again. A record left clean loses its field errors too. With `keep`
 * (a user's reject), a field an update whose answer was lost may have set takes its confirmed
 * value but stays modified against the sent one, so that the next save sends it back.
 */
export function rejectEdits(record: ValueHolder, upTo = Infinity, keep = upTo === Infinity): void {
  const meta = record[META];
  if (meta === null) return;
  const state = meta.state;
  const unsure = keep && state.status === 'saved' ? state.sent : undefined;
  let changed = false;
  for (const [name, [confirmed, sent]] of Object.entries(unsure ?? {})) {
    put(record[DATA], name, confirmed);
    put((meta.modified ??= {}), name, sent);
    changed = true;
  }
  const modified = meta.modified;
  if (modified !== undefined) {
    for (const name of Object.keys(modified)) {
      if ((meta.stamps?.get(name) ?? 0) > upTo || (unsure !== undefined && Object.hasOwn(unsure, name))) continue;
      put(record[DATA], name, modified[name]);
      delete modified[name];
      changed = true;
    }
    if (changed) meta.version++;
    tidy(meta);
  }
  if (meta.modified === undefined && meta.errors !== undefined) {
    meta.errors = undefined;
    changed = true;
  }
  if (!changed) return;
  touch(record);
  eachOwner(record, (owner) => owner.afterReject(record));
}
