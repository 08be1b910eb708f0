/** Moving an item within a large array at the engine's speed (the store's sorted view, issue 20). */

/**
 * Whether `copyWithin` moves an array's items as one block (it does in Chromium 156; Node 20's
 * moves them one by one, about 50 times slower than two splices): unknown until the first long move,
 * which it times (a coarse clock or a pause reads as slow: then splices).
 */
let blockCopy: boolean | undefined;

/** Move the item at `from` to `to`, shifting those between by one. */
export function moveItem<T>(array: T[], from: number, to: number): void {
  const item = array[from];
  const count = Math.abs(to - from);
  if (item === undefined) return;
  // Without a clock (no `performance`): splices.
  if (blockCopy ?? (count > 16_383 && typeof performance === 'object')) {
    const t0 = blockCopy ? 0 : performance.now();
    array.copyWithin(Math.min(from, to + 1), Math.min(from + 1, to), Math.max(from, to + 1));
    array[to] = item;
    // Under 10 ns an item (Node 20: 70).
    blockCopy ??= performance.now() - t0 < count / 1e5;
  } else {
    // Two splices move the items after `from` and `to` as blocks (a loop pays a write barrier per item).
    array.splice(from, 1);
    array.splice(to, 0, item);
  }
}
