/**
 * Local offsets over the server's numbering: records added on top (index 0 first) and the
 * server rows removed locally. A row's index is its server index, plus the rows added, minus the
 * rows removed before it: an add or a remove shifts the later rows without reading them again.
 */
export class LocalOffsets<R> {
  /** New records on top, in the order shown. */
  added: R[] = [];
  /** The server indices of the rows removed, ascending. */
  #removed: number[] = [];

  /** How many server rows were removed. */
  get removedCount(): number {
    return this.#removed.length;
  }

  /** The server index of the row shown at `index` (not one of the added rows). */
  serverIndex(index: number): number {
    let server = index - this.added.length;
    const removed = this.#removed;
    for (let at = 0; at < removed.length; at++) {
      const row = removed[at] ?? 0;
      if (row > server) break;
      server++;
    }
    return server;
  }

  /** The index shown of the server row `server`; -1 when it was removed. */
  indexOf(server: number): number {
    const below = this.#below(server);
    if (this.#removed[below] === server) return -1;
    return this.added.length + server - below;
  }

  /** How many removed rows come before `server` (binary search). */
  #below(server: number): number {
    const removed = this.#removed;
    let low = 0;
    let high = removed.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((removed[middle] ?? 0) < server) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Whether the server row `server` was removed. */
  removed(server: number): boolean {
    return this.#removed[this.#below(server)] === server;
  }

  /** Take the server row out. */
  remove(server: number): void {
    const at = this.#below(server);
    if (this.#removed[at] !== server) this.#removed.splice(at, 0, server);
  }

  /** Put the server row back. */
  restore(server: number): void {
    const at = this.#below(server);
    if (this.#removed[at] === server) this.#removed.splice(at, 1);
  }

  /** Put back every server row from `from` to before `to` (a page read again: its rows say anew which stay out). */
  restoreSpan(from: number, to: number): void {
    const first = this.#below(from);
    this.#removed.splice(first, this.#below(to) - first);
  }

  /** A new generation: the server numbers its rows again (the added records stay). */
  reset(): void {
    this.#removed = [];
  }
}
