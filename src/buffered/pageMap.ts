/**
 * The pages a buffered store holds, keyed by page number (1-based), with their last use for the
 * LRU purge and the generation that read them (Ext's PageMap). A page of an older generation is
 * only kept by a reload, as `stale`: shown until its replacement arrives, then replaced.
 */

export interface Page<R> {
  /** The rows of the page, as the server numbered them: row i is `(number - 1) * pageSize + i`. */
  readonly rows: R[];
  /** When it was last used (a clock shared by the map's pages). */
  used: number;
  /** Of an older generation, kept on screen by a reload until its replacement arrives. */
  stale: boolean;
}

export class PageMap<R> {
  readonly #pages = new Map<number, Page<R>>();
  #clock = 0;
  /** Bumped by every clear: a read of an older generation is recognised and its answer ignored. */
  generation = 0;

  get size(): number {
    return this.#pages.size;
  }

  get(number: number): Page<R> | undefined {
    return this.#pages.get(number);
  }

  /** Whether the page is held and current (not a stale one a reload keeps). */
  has(number: number): boolean {
    const page = this.#pages.get(number);
    return page !== undefined && !page.stale;
  }

  /** The page was used (read, asked for, on screen): the last to go. */
  use(number: number): void {
    const page = this.#pages.get(number);
    if (page !== undefined) page.used = ++this.#clock;
  }

  /** A page held here was used: the last to go (`use` without looking it up). */
  touch(page: Page<R>): void {
    page.used = ++this.#clock;
  }

  set(number: number, rows: R[]): Page<R> {
    const page: Page<R> = { rows, used: ++this.#clock, stale: false };
    this.#pages.set(number, page);
    return page;
  }

  delete(number: number): Page<R> | undefined {
    const page = this.#pages.get(number);
    this.#pages.delete(number);
    return page;
  }

  /** The page numbers held, ascending. */
  numbers(): number[] {
    return [...this.#pages.keys()].sort((a, b) => a - b);
  }

  entries(): IterableIterator<[number, Page<R>]> {
    return this.#pages.entries();
  }

  /**
   * A new generation: every page goes except those `keep` says (marked stale). Returns the pages dropped.
   */
  clear(keep: (number: number) => boolean = () => false): Page<R>[] {
    this.generation++;
    const dropped: Page<R>[] = [];
    for (const [number, page] of this.#pages) {
      if (keep(number)) page.stale = true;
      else {
        dropped.push(page);
        this.#pages.delete(number);
      }
    }
    return dropped;
  }

  /**
   * Least recently used pages go until at most `size` are held, never one `pinned` says (on
   * screen, holding unsaved edits). Returns the pages purged.
   */
  purge(size: number, pinned: (number: number, page: Page<R>) => boolean): Page<R>[] {
    const purged: Page<R>[] = [];
    if (this.#pages.size <= size) return purged;
    const candidates = [...this.#pages].filter(([number, page]) => !pinned(number, page)).sort((a, b) => a[1].used - b[1].used);
    for (const [number, page] of candidates) {
      if (this.#pages.size <= size) break;
      this.#pages.delete(number);
      purged.push(page);
    }
    return purged;
  }
}
