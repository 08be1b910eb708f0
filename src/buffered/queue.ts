/**
 * Which pages a buffered store reads next: the visible pages first, then the pages that
 * getRange/loadRange asked for, then the buffer zones by distance in pages from the visible
 * range (the leading side first at equal distance). A page nothing needs any more leaves the
 * queue before it is sent; at most `max` reads are in flight.
 */

export interface Zone {
  /** The visible pages (in the direction of travel). */
  visible: number[];
  /** The pages of the leading zone, nearest first. */
  leading: number[];
  /** The pages of the trailing zone, nearest first. */
  trailing: number[];
}

export class ReadQueue {
  /** The reads in flight by page number, each with what aborts it. */
  readonly inFlight = new Map<number, AbortController>();
  /** Pages getRange or loadRange asked for: needed until loaded (or failed). */
  readonly asked = new Set<number>();
  #zone: Zone = { visible: [], leading: [], trailing: [] };
  #visible = new Set<number>();

  /** The visible range moved: its pages and zones are what is needed now. */
  setZone(zone: Zone): void {
    this.#zone = zone;
    this.#visible = new Set(zone.visible);
  }

  /** Whether a page is on screen. */
  visible(page: number): boolean {
    return this.#visible.has(page);
  }

  /** Pages whose read failed: not read again until asked for again (setVisibleRange, getRange, loadRange). */
  readonly failed = new Set<number>();

  /** Whether a visible page is being read. */
  loading(): boolean {
    for (const page of this.#visible) if (this.inFlight.has(page)) return true;
    return false;
  }

  /** The pages needed, in the order they are read: visible, asked, then the zones by distance. */
  *order(): Generator<number> {
    const { visible, leading, trailing } = this.#zone;
    yield* visible;
    yield* this.asked;
    for (let at = 0; at < Math.max(leading.length, trailing.length); at++) {
      const ahead = leading[at];
      const behind = trailing[at];
      if (ahead !== undefined) yield ahead;
      if (behind !== undefined) yield behind;
    }
  }

  /**
   * The pages to send now: needed, not held (`held`), not in flight, within `last` page, while
   * fewer than `max` are in flight.
   */
  next(max: number, held: (page: number) => boolean, last: number): number[] {
    const sending: number[] = [];
    if (this.inFlight.size >= max) return sending;
    const chosen = new Set<number>();
    for (const page of this.order()) {
      if (this.inFlight.size + sending.length >= max) break;
      if (page > last || chosen.has(page) || this.inFlight.has(page) || this.failed.has(page) || held(page)) continue;
      chosen.add(page);
      sending.push(page);
    }
    return sending;
  }

  /** A new generation: every read in flight aborted, nothing asked for. */
  abortAll(): void {
    for (const controller of this.inFlight.values()) controller.abort();
    this.inFlight.clear();
    this.asked.clear();
    this.failed.clear();
  }
}
