// List helpers: comparing, sorting, filtering and paging rows. The plain (Ext-style) params live here too.
import { isObject, parseJson } from './http.js';
import type { Row } from './types.js';

export interface Sorter {
  property: string;
  direction: 'ASC' | 'DESC';
}

/** null/undefined sort first (as SQLite does), numbers numerically, strings by code point. */
export function compareValues(a: unknown, b: unknown): number {
  const aNull = a === undefined || a === null;
  const bNull = b === undefined || b === null;
  if (aNull || bNull) return aNull && bNull ? 0 : aNull ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Stable sort on a copy. */
export function sortRows(rows: readonly Row[], sorters: readonly Sorter[]): Row[] {
  if (sorters.length === 0) return [...rows];
  return [...rows].sort((x, y) => {
    for (const { property, direction } of sorters) {
      const order = compareValues(x[property], y[property]);
      if (order !== 0) return direction === 'DESC' ? -order : order;
    }
    return 0;
  });
}

/** Loose equality as a query string sees it: 30 equals '30', true equals 'true'. */
export function looseEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || a === null || b === undefined || b === null) return false;
  return String(a) === String(b);
}

function asNumberPair(a: unknown, b: unknown): [number, number] | undefined {
  const x = typeof a === 'number' ? a : typeof a === 'string' && a.trim() !== '' ? Number(a) : NaN;
  const y = typeof b === 'number' ? b : typeof b === 'string' && b.trim() !== '' ? Number(b) : NaN;
  return Number.isNaN(x) || Number.isNaN(y) ? undefined : [x, y];
}

function ordered(a: unknown, b: unknown): number | undefined {
  if (a === undefined || a === null || b === undefined || b === null) return undefined;
  const numbers = asNumberPair(a, b);
  return numbers ? numbers[0] - numbers[1] : compareValues(String(a), String(b));
}

export interface Filter {
  property: string;
  value: unknown;
  operator?: string;
}

// Ext's operator aliases mapped to one spelling.
const OPERATORS: Record<string, string> = {
  '=': '=', '==': '=', '===': '=', eq: '=',
  '!=': '!=', '!==': '!=', ne: '!=',
  '<': '<', lt: '<', '<=': '<=', le: '<=', lte: '<=',
  '>': '>', gt: '>', '>=': '>=', ge: '>=', gte: '>=',
  like: 'like', in: 'in', notin: 'notin',
};

export function matchFilter(row: Row, filter: Filter): boolean {
  const actual = row[filter.property];
  const expected = filter.value;
  const operator = OPERATORS[(filter.operator ?? '=').toLowerCase()] ?? '=';
  switch (operator) {
    case '!=':
      return !looseEquals(actual, expected);
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const order = ordered(actual, expected);
      if (order === undefined) return false;
      return operator === '<' ? order < 0 : operator === '<=' ? order <= 0 : operator === '>' ? order > 0 : order >= 0;
    }
    case 'like':
      return actual !== undefined && actual !== null && String(actual).toLowerCase().includes(String(expected ?? '').toLowerCase());
    case 'in':
    case 'notin': {
      const list = Array.isArray(expected) ? expected : [expected];
      const found = list.some((item) => looseEquals(actual, item));
      return operator === 'in' ? found : !found;
    }
    default:
      return looseEquals(actual, expected);
  }
}

export function page<T>(rows: readonly T[], offset: number, limit: number | undefined): T[] {
  return rows.slice(Math.max(0, offset), limit === undefined ? undefined : Math.max(0, offset) + limit);
}

function intParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw.trim() === '') return undefined;
  const value = Number.parseInt(raw, 10);
  return Number.isNaN(value) ? undefined : value;
}

/** `sort=[{"property":"name","direction":"DESC"}]` or simple mode `sort=name&dir=DESC`. */
export function plainSorters(query: URLSearchParams): Sorter[] {
  const raw = query.get('sort');
  if (!raw) return [];
  const parsed = parseJson(raw);
  if (parsed.ok && Array.isArray(parsed.value)) {
    return parsed.value.filter(isObject).flatMap((item): Sorter[] => {
      if (typeof item.property !== 'string') return [];
      const direction = String(item.direction ?? 'ASC').toUpperCase() === 'DESC' ? 'DESC' : 'ASC';
      return [{ property: item.property, direction }];
    });
  }
  const direction = (query.get('dir') ?? 'ASC').toUpperCase() === 'DESC' ? 'DESC' : 'ASC';
  return [{ property: raw, direction }];
}

/** `filter=[{"property":"age","value":30,"operator":">="}]`. */
export function plainFilters(query: URLSearchParams): Filter[] {
  const raw = query.get('filter');
  if (!raw) return [];
  const parsed = parseJson(raw);
  if (!parsed.ok || !Array.isArray(parsed.value)) return [];
  return parsed.value.filter(isObject).flatMap((item): Filter[] => {
    if (typeof item.property !== 'string') return [];
    const filter: Filter = { property: item.property, value: item.value };
    if (typeof item.operator === 'string') filter.operator = item.operator;
    return [filter];
  });
}

/** Ext-style list params: filter, then sort, then page/start/limit. Unknown params are ignored. */
export function plainList(rows: readonly Row[], query: URLSearchParams): { total: number; rows: Row[] } {
  const filters = plainFilters(query);
  const filtered = rows.filter((row) => filters.every((filter) => matchFilter(row, filter)));
  const sorted = sortRows(filtered, plainSorters(query));
  const limit = intParam(query, 'limit');
  if (limit === undefined || limit <= 0) return { total: filtered.length, rows: sorted };
  const pageNumber = intParam(query, 'page');
  const start = intParam(query, 'start') ?? (pageNumber !== undefined ? (Math.max(1, pageNumber) - 1) * limit : 0);
  return { total: filtered.length, rows: page(sorted, start, limit) };
}
