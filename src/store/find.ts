/**
 * Finders and one-shot aggregates over the records a store shows (API.md section 12): pure
 * functions of a records array, each Store and ChainedStore method one line over them.
 */
import type { DataOf, Model } from '../model/Model.js';
import { describeValue } from '../util/options.js';
import type { FieldName, Group } from './options.js';
import { reader, type Read } from './viewKeys.js';
import { compareKeys } from '../util/sorting.js';

/** The fields `sum` and `average` take: those typed `number` (or `null`/`undefined` beside it) or `unknown`. */
export type NumericFieldName<M extends Model> = {
  [K in FieldName<M>]-?: NonNullable<DataOf<M>[K]> extends number ? K : unknown extends DataOf<M>[K] ? K : never;
}[FieldName<M>];

/** Which records a finder or aggregate sees: those shown, or (`bypassFilter`) the hidden ones too, after them. */
export interface ScopeOptions {
  bypassFilter?: boolean;
}

/** How `find`, `findRecord` and `query` match a string (Ext's flags, as an object). */
export interface FindOptions extends ScopeOptions {
  /** The index to start at (find, findRecord). Default 0. */
  start?: number;
  /** A string matches text that contains it (not only text that begins with it). */
  anyMatch?: boolean;
  caseSensitive?: boolean;
  /** A string matches only text equal to it. */
  exactMatch?: boolean;
}

export interface GroupedOptions extends ScopeOptions {
  /** One result per group (a Map from the group's name, in group order). */
  grouped?: boolean;
}

export interface CollectOptions extends ScopeOptions {
  /** Collect `null` and `undefined` too. */
  allowNull?: boolean;
}

/** A result, or one per group when `grouped`. */
export type Grouped<O, R> = O extends { grouped: true } ? Map<unknown, R> : R;

/** The kinds of value min and max compare (as the local sort): numbers, strings, booleans, Dates. */
export type Comparable = number | string | boolean | Date;

/** A value as a key for sameness and order: a Date as its time. */
const keyOf = (value: unknown): unknown => (value instanceof Date ? value.getTime() : value);

/** No value: null, undefined, NaN (an invalid Date too). */
export const isNone = (value: unknown): boolean => value == null || Number.isNaN(keyOf(value));

/** `fn`, a function (else a TypeError naming the method). */
export function mustBeFunction<F>(where: string, fn: F): F {
  if (typeof fn !== 'function') throw new TypeError(`${where}: expected a function, got ${describeValue(fn)}`);
  return fn;
}

/** The test of a value by SameValueZero (Dates by time). */
export function exactly(value: unknown): (other: unknown) => boolean {
  const key = keyOf(value);
  return (other) => {
    const k = keyOf(other);
    return k === key || (k !== k && key !== key);
  };
}

/** find's test: a string as Ext (begins with; anyMatch, exactMatch; case aside unless caseSensitive), a RegExp on the text, else exactly. */
export function matcher(value: unknown, options: FindOptions = {}): (other: unknown) => boolean {
  if (value instanceof RegExp) return (other) => other != null && ((value.lastIndex = 0), value.test(String(other)));
  if (typeof value !== 'string') return exactly(value);
  const { anyMatch, caseSensitive, exactMatch } = options;
  const wanted = caseSensitive ? value : value.toLowerCase();
  return (other) => {
    if (other == null) return false;
    const text = caseSensitive ? String(other) : String(other).toLowerCase();
    return exactMatch ? text === wanted : anyMatch ? text.includes(wanted) : text.startsWith(wanted);
  };
}

/** The first index from `start` whose record `test` passes, else -1. */
export function indexWhere<M>(records: readonly M[], test: (record: M, index: number) => unknown, start = 0): number {
  return records.findIndex((record, i) => i >= start && test(record, i));
}

/** A field's test over records. */
export function fieldTest<M extends Model<object>>(field: string, test: (value: unknown) => boolean): (record: M) => boolean {
  const read: Read<M> = reader(field);
  return (record) => test(read(record));
}

/** The distinct values of a field (SameValueZero, Dates by time), in order of first appearance. */
export function collect<M extends Model<object>>(records: readonly M[], field: string, allowNull = false): unknown[] {
  const read = reader<M>(field);
  const seen = new Set<unknown>();
  const values: unknown[] = [];
  for (const record of records) {
    const value = read(record);
    const key = keyOf(value);
    if ((allowNull || value != null) && !seen.has(key)) {
      seen.add(key);
      values.push(value);
    }
  }
  return values;
}

/** Each record over a copy, in order; `false` stops. */
export function each<M>(records: readonly M[], fn: (record: M, index: number) => unknown): void {
  [...records].every((record, index) => fn(record, index) !== false);
}

/** Records grouped by a field's value (Dates by time), in the order each value first comes. */
export function groupsOf<M>(records: readonly M[], read: Read<M>): Group<M>[] {
  const groups = new Map<unknown, Group<M>>();
  let group: Group<M> | undefined;
  let key: unknown;
  for (const record of records) {
    const value = read(record);
    const next = keyOf(value);
    // Grouped locally, a group's records come together: the map is asked once per group.
    if (group === undefined || !Object.is(next, key)) {
      key = next;
      group = groups.get(key);
      if (group === undefined) groups.set(key, (group = { name: value, records: [] }));
    }
    group.records.push(record);
  }
  return [...groups.values()];
}

/** `compute` over the records, or (grouped) over each group's: a Map from group name, empty without a group field. */
export function perGroup<M extends Model<object>, R>(records: readonly M[], grouped: boolean | undefined, groupField: string | undefined, compute: (records: readonly M[]) => R): R | Map<unknown, R> {
  if (!grouped) return compute(records);
  const map = new Map<unknown, R>();
  if (groupField !== undefined) for (const { name, records: members } of groupsOf(records, reader<M>(groupField))) map.set(name, compute(members));
  return map;
}

function wrongKind(what: string, field: string, value: unknown, expected: string): TypeError {
  return new TypeError(`${what}('${field}'): ${describeValue(value)} is not ${expected}`);
}

/** A value `sum` and `average` add: a number (else a TypeError naming the field: never '1' + 2). */
export function numberOf(what: string, field: string, value: unknown): number {
  if (typeof value !== 'number') throw wrongKind(what, field, value, 'a number');
  return value;
}

const kindName = (value: unknown): string => (value instanceof Date ? 'Date' : typeof value);
export const isComparable = (value: unknown): value is Comparable => value instanceof Date || typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean';

/** A value min and max compare, of the kind seen before (`kind`), else a TypeError naming the field. */
export function comparable(what: string, field: string, value: unknown, kind: string | undefined): Comparable {
  if (!isComparable(value) || (kind !== undefined && kindName(value) !== kind)) {
    throw wrongKind(what, field, value, kind === undefined ? 'a number, string, boolean or Date' : `a ${kind} as the others`);
  }
  return value;
}

/** Whether `a` comes before `b` (numbers by value, strings by code unit, Dates by time). */
export const before = (a: Comparable, b: Comparable): boolean => compareKeys(keyOf(a), keyOf(b)) < 0;

export type AggregateKind = 'count' | 'sum' | 'average' | 'min' | 'max';

/**
 * One aggregate of a field's values over the records, in one scan: `count` of those with a value,
 * `sum`, `average` (no value: null), `min` or `max` (no value: null). No value (null, undefined,
 * NaN) is skipped; a value of the wrong kind is a TypeError naming the field.
 */
export function aggregateOf<M extends Model<object>>(kind: AggregateKind, records: readonly M[], field: string): number | Comparable | null {
  const read = reader<M>(field);
  const adds = kind === 'sum' || kind === 'average';
  let sum = 0;
  let n = 0;
  let best: Comparable | null = null;
  for (const record of records) {
    const value = read(record);
    if (isNone(value)) continue;
    n++;
    if (adds) sum += numberOf(kind, field, value);
    else if (kind !== 'count') {
      const next = comparable(kind, field, value, best === null ? undefined : kindName(best));
      if (best === null || (kind === 'max' ? before(best, next) : before(next, best))) best = next;
    }
  }
  return kind === 'count' ? n : kind === 'sum' ? sum : kind === 'average' ? (n === 0 ? null : sum / n) : best;
}
