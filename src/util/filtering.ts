import type { Filter } from '../operation/types.js';
import { comparable, compareOrdered, compareText, sortKey, textOf, type ValueOf } from './sorting.js';

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    const x = comparable(a);
    const y = comparable(b);
    return x === y || (x !== undefined && y !== undefined && textOf(x) === textOf(y));
  }
  if (a === b) return true;
  // A filter typed in a text box ('30') matches a number (30), as a server's query string would.
  return a != null && b != null && typeof a !== typeof b && textOf(a) === textOf(b);
}

/** Whether a value is one of a list (`wanted` not being a list: no). */
function isAnyOf(value: unknown, wanted: unknown): boolean {
  return Array.isArray(wanted) && wanted.some((candidate) => same(value, candidate));
}

/** A number, or text that reads as one. */
function numeric(value: unknown): boolean {
  return typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)));
}

/** By number when both read as one and one is a number (a bound typed as text, or a value: as text, '10' < 9), else as text. */
function order(a: unknown, b: unknown): number {
  const x = comparable(a);
  const y = comparable(b);
  return numeric(x) && numeric(y) && (typeof x === 'number' || typeof y === 'number') ? compareOrdered(Number(x), Number(y)) : compareText(x, y);
}

/**
 * The test of one filter on a value (and its item, for a filterFn), by the same rules a server
 * applies to the same filter. Made once per filter: a test of 100,000 values runs it as it is.
 */
export function valueTest(filter: Filter): (value: unknown, item: unknown) => boolean {
  const { filterFn, value: wanted } = filter;
  if (filterFn) return (value, item) => filterFn.call(filter, value, item);
  switch (filter.operator ?? '=') {
    case '=':
      // The common case at the cost of one comparison: a value of the wanted one's type.
      if (wanted != null && typeof wanted !== 'object') return (value) => value === wanted || (value != null && typeof value !== typeof wanted && same(value, wanted));
      return (value) => same(value, wanted);
    case '!=': return (value) => !same(value, wanted);
    // No empty value (null, undefined, NaN, an invalid Date: what the local sort ranks last) passes an ordering filter.
    case '<': return (value) => sortKey(value) !== undefined && order(value, wanted) < 0;
    case '<=': return (value) => sortKey(value) !== undefined && order(value, wanted) <= 0;
    case '>': return (value) => sortKey(value) !== undefined && order(value, wanted) > 0;
    case '>=': return (value) => sortKey(value) !== undefined && order(value, wanted) >= 0;
    case 'in': return (value) => isAnyOf(value, wanted);
    case 'notin': return (value) => !isAnyOf(value, wanted);
    case 'like':
    case 'search': {
      const text = textOf(wanted ?? '').toLowerCase();
      return (value) => value != null && textOf(value).toLowerCase().includes(text);
    }
    default: return () => false;
  }
}

export function filterItems<T>(items: readonly T[], filters: readonly Filter[], valueOf: ValueOf<T>): T[] {
  const tests = filters.map((filter) => [filter.property, valueTest(filter)] as const);
  return items.filter((item) => tests.every(([property, test]) => test(valueOf(item, property), item)));
}
