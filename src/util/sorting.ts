import type { Sorter } from '../operation/types.js';

/** How items give the value of a property (records through `get`, plain data directly). */
export type ValueOf<T> = (item: T, property: string) => unknown;

function rank(value: unknown): number {
  // Empty: undefined, null, NaN (the one value not itself).
  return value == null || value !== value ? 1 : 0;
}

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

/** Compare two values: numbers and Dates by value, strings by code point, empty values (an invalid Date's time is NaN) last. */
export function compareValues(a: unknown, b: unknown): number {
  const x = comparable(a);
  const y = comparable(b);
  const empty = rank(x) - rank(y);
  if (empty !== 0 || rank(x) === 1) return empty;
  if (typeof x === typeof y && (typeof x === 'number' || typeof x === 'boolean')) return compareOrdered(Number(x), Number(y));
  return compareText(x, y);
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
