import type { Sorter } from '../operation/types.js';

/** How items give the value of a property (records through `get`, plain data directly). */
export type ValueOf<T> = (item: T, property: string) => unknown;

function rank(value: unknown): number {
  return value === undefined || value === null || (typeof value === 'number' && Number.isNaN(value)) ? 1 : 0;
}

/** Compare two values: numbers and Dates by value, strings by code point, empty values last. */
export function compareValues(a: unknown, b: unknown): number {
  const empty = rank(a) - rank(b);
  if (empty !== 0 || rank(a) === 1) return empty;
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  if (typeof x === 'boolean' && typeof y === 'boolean') return Number(x) - Number(y);
  const left = String(x);
  const right = String(y);
  return left < right ? -1 : left > right ? 1 : 0;
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
