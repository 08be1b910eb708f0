import type { Sorter } from '../operation/types.js';

/** How items give the value of a property (records through `get`, plain data directly). */
export type ValueOf<T> = (item: T, property: string) => unknown;

/** A Date as its time, so that Dates compare (and group) by value; other values as they are. */
export function comparable(value: unknown): unknown {
  return value instanceof Date ? value.getTime() : value;
}

/**
 * A value as text for comparing: objects by their JSON (`String()` would call a `toString` the
 * data may have replaced, such as `{ "toString": 1 }` from a server, and throw).
 */
export function textOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** Compare two numbers or two strings without subtracting (`Infinity - Infinity` is NaN, not a tie). */
export function compareOrdered<T extends number | string>(x: T, y: T): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Compare two values as text, by code point. */
export function compareText(a: unknown, b: unknown): number {
  return compareOrdered(textOf(a), textOf(b));
}

/** A value as a sort key: empty (undefined, null, NaN, an invalid Date) as undefined, a Date as its time, an object as its JSON. */
export function sortKey(value: unknown): unknown {
  if (value == null || value !== value) return undefined; // NaN: the one value not itself
  if (typeof value !== 'object') return value;
  return value instanceof Date ? sortKey(value.getTime()) : textOf(value);
}

/**
 * Compare two sort keys: numbers (BigInts too) and booleans by value, strings by code point, empty last; keys of
 * two kinds by their kind (booleans, numbers, strings: the order of the `typeof` names), so that
 * the order is total (as text, 9 < 10 but 10 ties '10' and '10' < 9: no sort can follow that).
 */
export function compareKeys(x: unknown, y: unknown): number {
  // Inline, never subtracting (Infinity - Infinity is NaN): the hot path of a store's sorted view.
  if (typeof x === 'string' && typeof y === 'string') return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : x > y ? 1 : 0;
  if (x === undefined || y === undefined) return (x === undefined ? 1 : 0) - (y === undefined ? 1 : 0);
  // A BigInt is a number (by value beside numbers: 10n after 9).
  if ((typeof x === 'number' || typeof x === 'bigint') && (typeof y === 'number' || typeof y === 'bigint')) return x < y ? -1 : x > y ? 1 : 0;
  const kind = typeof x === 'bigint' ? 'number' : typeof x;
  const other = typeof y === 'bigint' ? 'number' : typeof y;
  if (kind !== other) return compareOrdered(kind, other);
  return kind === 'boolean' ? Number(x) - Number(y) : compareText(x, y);
}

/** Compare two values as a store's local sort does (their sort keys): one order wherever values are sorted. */
export function compareValues(a: unknown, b: unknown): number {
  return compareKeys(sortKey(a), sortKey(b));
}

/** A comparator for several sorters (the first decides, the next breaks ties). */
export function comparator<T>(sorters: readonly Sorter[], valueOf: ValueOf<T>): (a: T, b: T) => number {
  return (a, b) => {
    for (const sorter of sorters) {
      const result = sorter.sorterFn ? sorter.sorterFn(a, b) : compareValues(valueOf(a, sorter.property), valueOf(b, sorter.property));
      if (result !== 0) return sorter.direction === 'DESC' ? -result : result;
    }
    return 0;
  };
}

/** A stable sort into a new array. */
export function sortItems<T>(items: readonly T[], sorters: readonly Sorter[], valueOf: ValueOf<T>): T[] {
  if (sorters.length === 0) return [...items];
  return [...items].sort(comparator(sorters, valueOf));
}
