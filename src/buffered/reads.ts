/**
 * The page reads of a buffered store: one GET per page (never two for one page in flight), what
 * an answer does (one record per id, the total or grow mode, the purge), what a failure does,
 * the `loadRange`s waiting, and the generations that make late answers count for nothing.
 */
import type { BatchError } from '../errors/BatchError.js';
import { ProxyError } from '../errors/ProxyError.js';
import { now } from '../model/internal.js';
import type { Model } from '../model/Model.js';
import { Operation } from '../operation/Operation.js';
import type { Filter, Sorter } from '../operation/types.js';
import type { Proxy } from '../proxy/Proxy.js';
import type { LocalOffsets } from './offsets.js';
import type { Page, PageMap } from './pageMap.js';
import type { ReadQueue, Zone } from './queue.js';
import type { BufferedRecords } from './records.js';
import { joinRestored } from './restored.js';

/** The events of a BufferedStore. */
export interface BufferedStoreEvents<M extends Model> {
  /** A page read or a sync failed. */
  exception: { store: object; error: ProxyError | BatchError; operation: Operation | undefined };
  /** A page arrived (of the current generation). */
  pageload: { store: object; page: number; records: M[] };
  /** A record changed: edited, saved (`commit`) or rejected. */
  update: { store: object; record: M; operation: 'edit' | 'commit' | 'reject'; modifiedFieldNames: string[] };
  /** Records were added on top. */
  add: { store: object; records: M[]; index: number };
  /** Rows were removed. */
  remove: { store: object; records: M[] };
  /** A sync is about to send: a listener returning false cancels it. */
  beforesync: { store: object; create: M[]; update: M[]; destroy: M[] };
  /** An operation of a sync succeeded. */
  write: { store: object; operation: Operation };
}

export interface ReadsHost<M extends Model> {
  readonly store: object;
  readonly options: { readonly pageSize: number; readonly maxConcurrentRequests: number; readonly cacheSize: number };
  readonly pages: PageMap<M>;
  readonly queue: ReadQueue;
  readonly offsets: LocalOffsets<M>;
  readonly records: BufferedRecords<M>;
  /** What every page read sends besides its paging. */
  query(): { sorters: Sorter[]; filters: Filter[]; params: Record<string, unknown> };
  proxy(): Proxy;
  /** A page a purge must keep (visible, or holding unsaved changes). */
  pinned(number: number, page: Page<M>): boolean;
  /** The pages the visible range needs now. */
  zone(): Zone;
  /** A read failed (`error`), or one succeeded (undefined: the last error is over). */
  error(error: ProxyError | undefined, operation: Operation): void;
  changed(): void;
  fire(name: 'pageload', payload: BufferedStoreEvents<M>['pageload']): void;
}

interface Waiter<M> {
  readonly pages: Set<number>;
  readonly result: () => M[];
  readonly resolve: (records: M[]) => void;
  readonly reject: (error: unknown) => void;
}

export class BufferedReads<M extends Model> {
  /** The server's total (of the generation's first answer, or fixed by a short page); undefined while unknown. */
  total: number | undefined = undefined;
  /** Grow mode (no total): the end of the furthest full page read. */
  #grown: number | undefined = undefined;
  /** A first answer of the generation came: the count is known (kept by a reload until its first answer). */
  counted = false;
  /** The next answer is the generation's first: it sets the total afresh. */
  #first = true;
  #waiters = new Set<Waiter<M>>();
  #scheduled = false;
  #stopped = false;
  /** rest-proxy/offline: the records an outbox restored join before a page's rows are taken. */
  readonly #restored: () => void;

  constructor(private readonly host: ReadsHost<M>) {
    this.#restored = joinRestored({
      records: host.records, offsets: host.offsets, pages: host.pages,
      serverIndexOf: (record) => this.serverIndexOf(record),
      filtered: () => host.query().filters.length > 0,
      live: () => !this.#stopped,
      joined: () => {
        host.queue.setZone(host.zone());
        host.changed();
        this.schedule();
      },
    });
  }

  /** The server rows laid out: the total, or in grow mode one page past the furthest full page; undefined before a first answer. */
  serverCount(): number | undefined {
    if (!this.counted) return undefined;
    return this.total ?? (this.#grown ?? 0) + this.host.options.pageSize;
  }

  /** What the local edits add to the server's rows: rows added, minus removed rows the server counts (placed by a page or not yet: unsynced, or destroyed since). */
  moved(): number {
    const { offsets, records } = this.host;
    return offsets.added.length - offsets.removedCount - records.unplaced();
  }

  /** The last page there is to read (Infinity while unknown). */
  #lastPage(): number {
    const count = this.serverCount();
    return count === undefined ? Infinity : Math.ceil(count / this.host.options.pageSize);
  }

  /** The server index of a cached record; undefined when none of the cached pages holds it. */
  serverIndexOf(record: M): number | undefined {
    for (const [number, page] of this.host.pages.entries()) {
      const at = page.rows.indexOf(record);
      if (at !== -1) return (number - 1) * this.host.options.pageSize + at;
    }
    return undefined;
  }

  /** getRange/loadRange asked for a page: read until loaded. */
  ask(page: number): void {
    const { queue } = this.host;
    queue.failed.delete(page);
    if (queue.inFlight.has(page) || queue.asked.has(page)) return;
    queue.asked.add(page);
    this.schedule();
  }

  /** Resolve with `result()` once the pages are loaded (they stay held until then); rejects when one fails or a new generation starts. */
  wait(pages: Set<number>, result: () => M[]): Promise<M[]> {
    for (const page of pages) if (this.host.pages.has(page)) pages.delete(page);
    if (pages.size === 0) return Promise.resolve(result());
    return new Promise<M[]>((resolve, reject) => {
      this.#waiters.add({ pages, result, resolve, reject });
    });
  }

  /** Whether a loadRange waits for this page (it is kept by a purge until then). */
  waitedFor(page: number): boolean {
    for (const waiter of this.#waiters) if (waiter.pages.has(page)) return true;
    return false;
  }

  /** Send what the queue says, in a later microtask (the changes of one synchronous run read once). */
  schedule(): void {
    if (this.#scheduled || this.#stopped) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.pump();
    });
  }

  /** Send the pages the queue says now. */
  pump(): void {
    if (this.#stopped) return;
    const { queue, pages } = this.host;
    for (const page of queue.next(this.host.options.maxConcurrentRequests, (number) => pages.has(number), this.#lastPage())) this.#read(page);
  }

  #read(page: number): void {
    const { queue, pages } = this.host;
    const controller = new AbortController();
    queue.inFlight.set(page, controller);
    queue.asked.delete(page);
    const generation = pages.generation;
    const sentAt = now();
    const size = this.host.options.pageSize;
    const operation = new Operation({ action: 'read', page, start: (page - 1) * size, limit: size, ...this.host.query(), signal: controller.signal });
    if (queue.visible(page)) this.host.changed();
    this.host.proxy().read(operation).then(
      () => this.#answered(page, operation, generation, sentAt),
      (error: unknown) => this.#failed(page, operation, generation, error),
    );
  }

  /** Whether an answer belongs to the current generation (else it is ignored: never cached, counted or notified). */
  #current(page: number, generation: number): boolean {
    if (this.#stopped || generation !== this.host.pages.generation) return false;
    this.host.queue.inFlight.delete(page);
    return true;
  }

  #answered(page: number, operation: Operation, generation: number, sentAt: number): void {
    if (!this.#current(page, generation)) return;
    const host = this.host;
    this.#restored();
    let rows: M[];
    try {
      rows = host.records.adopt(operation.resultSet?.records ?? [], sentAt);
    } catch (error) {
      this.#failed(page, operation, generation, error);
      return;
    }
    const old = host.pages.get(page);
    host.pages.set(page, rows);
    const start = (page - 1) * host.options.pageSize;
    if (old !== undefined) this.letGo(old.rows.filter((record) => !rows.includes(record)));
    this.#unhide(start);
    this.#hideGone(rows, start);
    this.#count(operation, start, rows.length);
    host.error(undefined, operation);
    this.letGo(host.pages.purge(host.options.cacheSize, (number, held) => host.pinned(number, held) || this.waitedFor(number)).flatMap((purged) => purged.rows));
    host.queue.setZone(host.zone());
    this.#settle(page);
    host.fire('pageload', { store: host.store, page, records: rows });
    host.changed();
    this.pump();
  }

  /**
   * The total from an answer: one the reader found (a total header, or a total other than the
   * rows read), else a short page fixes it, else grow mode.
   */
  #count(operation: Operation, start: number, rows: number): void {
    if (this.#first) {
      this.#first = false;
      this.total = undefined;
      this.#grown = undefined;
    }
    this.counted = true;
    const header = this.host.proxy().reader.totalHeader;
    const total = operation.resultSet?.total;
    const given = total !== undefined && ((header !== undefined && operation.response?.headers.has(header) === true) || total !== rows);
    if (this.total !== undefined) return; // the generation's first answer's (or a short page's): the local offsets count from it
    if (given) this.total = total;
    else if (rows < (operation.limit ?? this.host.options.pageSize)) this.total = start + rows;
    else this.#grown = Math.max(this.#grown ?? 0, start + rows);
    if (this.total !== undefined) this.#grown = undefined;
    // Pages past the end are not read, and no loadRange waits for them.
    const last = this.#lastPage();
    for (const waiter of this.#waiters) for (const page of waiter.pages) if (page > last) waiter.pages.delete(page);
  }

  /** The page is loaded: the loadRanges that needed only it resolve. */
  #settle(page: number): void {
    for (const waiter of [...this.#waiters]) {
      waiter.pages.delete(page);
      if (waiter.pages.size > 0) continue;
      this.#waiters.delete(waiter);
      waiter.resolve(waiter.result());
    }
  }

  #failed(page: number, operation: Operation, generation: number, error: unknown): void {
    if (!this.#current(page, generation)) return;
    const { queue } = this.host;
    queue.failed.add(page);
    queue.asked.delete(page);
    const failure = error instanceof ProxyError ? error : new ProxyError('parse', error instanceof Error ? error.message : String(error), { operation, cause: error });
    this.host.error(failure, operation);
    for (const waiter of [...this.#waiters]) {
      if (!waiter.pages.has(page)) continue;
      this.#waiters.delete(waiter);
      waiter.reject(failure);
    }
    this.host.changed();
    this.pump();
  }

  /**
   * Let go the records of pages that went, except those still shown: on a page held (one record
   * per id: the same record may be on two pages when the server's rows moved) or on top. A record
   * with unsaved changes is never let go (BufferedRecords.release).
   */
  letGo(records: readonly M[]): void {
    if (records.length === 0) return;
    const shown = new Set<M>(this.host.offsets.added);
    for (const [, page] of this.host.pages.entries()) for (const record of page.rows) shown.add(record);
    for (const record of records) if (!shown.has(record)) this.host.records.release(record);
  }

  /** A page from server index `start` read again: its rows say anew which stay out (a removed row not on it any more: index unknown). */
  #unhide(start: number): void {
    const end = start + this.host.options.pageSize;
    this.host.offsets.restoreSpan(start, end);
    for (const [record, at] of this.host.records.removed) if (at !== undefined && at >= start && at < end) this.host.records.removed.set(record, -1);
  }

  /**
   * The rows of a page from server index `start` that stay out: a removed row still to be
   * destroyed (its index of this generation noted, for an undo) and a row destroyed meanwhile
   * (a reload's page kept on screen), wherever the server now puts them.
   */
  #hideGone(rows: readonly M[], start: number): void {
    const { offsets, records } = this.host;
    rows.forEach((record, at) => {
      const removed = records.removed.has(record);
      if (removed) records.place(record, start + at);
      if (removed || record.erased) offsets.remove(start + at);
    });
  }

  #abortWaiters(): void {
    const error = new ProxyError('abort', 'the read was superseded by a new sort, filter or load of the BufferedStore (or it was destroyed)');
    for (const waiter of this.#waiters) waiter.reject(error);
    this.#waiters.clear();
  }

  /**
   * A new generation: reads in flight aborted (their answers ignored), pending loadRanges
   * rejected, cached pages dropped, saved records off the top (the server places them now).
   * `keepShown` (a reload): the visible pages stay, stale, until their replacements arrive, and
   * the count stays until the first answer. `sameRows`: the same rows in another order (sort,
   * load, reload), so the removed rows counted before still are.
   */
  restart(keepShown: boolean, sameRows: boolean): void {
    const { queue, pages, offsets, records } = this.host;
    queue.abortAll();
    this.#abortWaiters();
    const added = offsets.added;
    offsets.added = added.filter((record) => record.phantom && !record.erased);
    this.letGo(pages.clear((number) => keepShown && queue.visible(number)).flatMap((page) => page.rows));
    offsets.reset();
    // The server numbers its rows anew: a removed row's index is unknown until a page shows it.
    records.renumber(sameRows, this.host.query().filters.length === 0);
    for (const [number, page] of pages.entries()) this.#hideGone(page.rows, (number - 1) * this.host.options.pageSize);
    this.#first = true;
    if (!keepShown) {
      this.counted = false;
      this.total = undefined;
      this.#grown = undefined;
    }
    this.letGo(added.filter((record) => !record.phantom));
    queue.setZone(this.host.zone());
    this.host.changed();
    this.schedule();
  }

  /** The store is destroyed: reads aborted, loadRanges rejected, nothing sent any more. */
  stop(): void {
    this.#stopped = true;
    this.host.queue.abortAll();
    this.#abortWaiters();
    for (const [number] of [...this.host.pages.entries()]) this.host.pages.delete(number);
  }
}
