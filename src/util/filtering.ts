import type { Filter } from '../operation/types.js';
import { comparable, compareText, textOf, type ValueOf } from './sorting.js';

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    const x = comparable(a);
    const y = comparable(b);
    return x === y || (x !== undefined && y !== undefined && textOf(x) === textOf(y));
  }
  if (a === b) return true;
  // A filter typed in a text box ('30') matches a number (30), as a server's query string would.
  return a !== null && b !== null && a !== undefined && b !== undefined && typeof a !== typeof b && textOf(a) === textOf(b);
}

/** Whether a value is one of a list (`wanted` not being a list: no). */
function isAnyOf(value: unknown, wanted: unknown): boolean {
  return Array.isArray(wanted) && wanted.some((candidate) => same(value, candidate));
}

function order(a: unknown, b: unknown): number {
  const x = comparable(a);
  const y = comparable(b);
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  if (typeof x === 'number' && typeof y === 'string' && y.trim() !== '' && !Number.isNaN(Number(y))) return x - Number(y);
  return compareText(x, y);
}

/** Whether one item passes one filter, by the same rules a server applies to the same filter. */
export function matchesFilter<T>(item: T, filter: Filter, valueOf: ValueOf<T>): boolean {
  const value = valueOf(item, filter.property);
  if (filter.filterFn) return filter.filterFn(value, item);
  const wanted = filter.value;
  switch (filter.operator ?? '=') {
    case '=': return same(value, wanted);
    case '!=': return !same(value, wanted);
    case '<': return value != null && order(value, wanted) < 0;
    case '<=': return value != null && order(value, wanted) <= 0;
    case '>': return value != null && order(value, wanted) > 0;
    case '>=': return value != null && order(value, wanted) >= 0;
    case 'in': return isAnyOf(value, wanted);
    case 'notin': return !isAnyOf(value, wanted);
    case 'like':
    case 'search':
      return value != null && textOf(value).toLowerCase().includes(textOf(wanted ?? '').toLowerCase());
    default: return false;
  }
}

export function filterItems<T>(items: readonly T[], filters: readonly Filter[], valueOf: ValueOf<T>): T[] {
  if (filters.length === 0) return [...items];
  return items.filter((item) => filters.every((filter) => matchesFilter(item, filter, valueOf)));
}
