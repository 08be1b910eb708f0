import type { Filter } from '../operation/types.js';
import type { ValueOf } from './sorting.js';

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    const x = a instanceof Date ? a.getTime() : a;
    const y = b instanceof Date ? b.getTime() : b;
    return x === y || (x !== undefined && y !== undefined && String(x) === String(y));
  }
  if (a === b) return true;
  // A filter typed in a text box ('30') matches a number (30), as a server's query string would.
  return a !== null && b !== null && a !== undefined && b !== undefined && typeof a !== typeof b && String(a) === String(b);
}

function order(a: unknown, b: unknown): number {
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  if (typeof x === 'number' && typeof y === 'string' && y.trim() !== '' && !Number.isNaN(Number(y))) return x - Number(y);
  const left = String(x);
  const right = String(y);
  return left < right ? -1 : left > right ? 1 : 0;
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
    case 'in': return Array.isArray(wanted) && wanted.some((candidate) => same(value, candidate));
    case 'notin': return !Array.isArray(wanted) || !wanted.some((candidate) => same(value, candidate));
    case 'like':
    case 'search':
      return value != null && String(value).toLowerCase().includes(String(wanted ?? '').toLowerCase());
    default: return false;
  }
}

export function filterItems<T>(items: readonly T[], filters: readonly Filter[], valueOf: ValueOf<T>): T[] {
  if (filters.length === 0) return [...items];
  return items.filter((item) => filters.every((filter) => matchesFilter(item, filter, valueOf)));
}
