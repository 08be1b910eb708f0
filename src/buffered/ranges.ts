/** Range arguments and the pages a range of rows spans. */
import { describeValue } from '../util/options.js';
import type { LocalOffsets } from './offsets.js';
import { placeholder, type Placeholder } from './options.js';
import type { Page, PageMap } from './pageMap.js';
import type { Zone } from './queue.js';

/** A RangeError naming the method and the value, for a bad index or a reversed range. */
export function checkRange(method: string, start: unknown, end: unknown = start): void {
  // The common case first (getRange of every scroll step): two non-negative integers in order.
  if (typeof start === 'number' && typeof end === 'number' && Number.isInteger(start) && Number.isInteger(end) && start >= 0 && end >= start) return;
  checkIndex(method, method === 'getAt' ? 'the index' : 'start', start);
  checkIndex(method, 'end', end);
  if (typeof start === 'number' && typeof end === 'number' && end < start) throw new RangeError(`BufferedStore.${method}: end (${end}) is before start (${start})`);
}

function checkIndex(method: string, name: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new RangeError(`BufferedStore.${method}: ${name} must be a non-negative integer, got ${describeValue(value)}`);
}

/** The geometry of a store's rows: page size, local offsets and the rows laid out (Infinity while unknown). */
export interface Rows {
  readonly pageSize: number;
  readonly offsets: LocalOffsets<unknown>;
  readonly count: number;
}

/** The pages (1-based) of the server rows shown at `from` to `to` (clipped to the rows laid out), ascending. */
export function pagesOf(rows: Rows, from: number, to: number): number[] {
  const first = Math.max(from, rows.offsets.added.length);
  const last = Math.min(to, rows.count - 1);
  if (last < first) return [];
  const a = Math.floor(rows.offsets.serverIndex(first) / rows.pageSize) + 1;
  const b = Math.floor(rows.offsets.serverIndex(last) / rows.pageSize) + 1;
  const pages: number[] = [];
  for (let page = a; page <= b; page++) pages.push(page);
  return pages;
}

/**
 * What a visible range needs: its pages, then the leading zone (`leading` rows in the direction
 * of travel) and the trailing zone, each nearest first.
 */
export function zoneOf(rows: Rows, start: number, end: number, forward: boolean, leading: number, trailing: number): Zone {
  const visible = pagesOf(rows, start, end);
  const shown = new Set(visible);
  const ahead = pagesOf(rows, end + 1, end + (forward ? leading : trailing)).filter((page) => !shown.has(page));
  const behind = pagesOf(rows, Math.max(0, start - (forward ? trailing : leading)), start - 1).filter((page) => !shown.has(page)).reverse();
  return forward ? { visible, leading: ahead, trailing: behind } : { visible: visible.reverse(), leading: behind, trailing: ahead };
}

/**
 * The rows shown at `start` to `to`: the records on top, then the server rows of the cached
 * pages (by local offsets), a placeholder where a row is not loaded. `seen` hears of each page
 * the range spans, once.
 */
export function rowsOf<M>(pages: PageMap<M>, offsets: LocalOffsets<M>, size: number, start: number, to: number, seen?: (number: number, page: Page<M> | undefined) => void): (M | Placeholder)[] {
  const { added } = offsets;
  const plain = offsets.removedCount === 0;
  if (plain && start >= added.length) return serverRows(pages, size, start - added.length, to - added.length, added.length, seen);
  const rows: (M | Placeholder)[] = [];
  let number = 0;
  let page: Page<M> | undefined;
  for (let index = start; index <= to; index++) {
    if (index < added.length) {
      rows.push(added[index] ?? placeholder(index));
      continue;
    }
    const server = plain ? index - added.length : offsets.serverIndex(index);
    const wanted = Math.floor(server / size) + 1;
    if (wanted !== number) {
      number = wanted;
      page = pages.get(number);
      seen?.(number, page);
    }
    rows.push(page?.rows[server - (number - 1) * size] ?? placeholder(index));
  }
  return rows;
}

/** The rows of server indices `from` to `to` (no row removed), shown `shift` further: a slice of each loaded page (a screen within one page: one slice). */
function serverRows<M>(pages: PageMap<M>, size: number, from: number, to: number, shift: number, seen?: (number: number, page: Page<M> | undefined) => void): (M | Placeholder)[] {
  let rows: (M | Placeholder)[] | undefined;
  for (let server = from; server <= to;) {
    const number = Math.floor(server / size) + 1;
    const page = pages.get(number);
    seen?.(number, page);
    const first = server - (number - 1) * size;
    const last = Math.min(size - 1, first + to - server);
    if (page !== undefined && page.rows.length > last) {
      const part = page.rows.slice(first, last + 1);
      if (rows === undefined && last - first === to - from) return part;
      rows = rows === undefined ? part : rows.concat(part);
    } else {
      rows ??= [];
      for (let at = first; at <= last; at++) rows.push(page?.rows[at] ?? placeholder(server + at - first + shift));
    }
    server += last - first + 1;
  }
  return rows ?? [];
}
