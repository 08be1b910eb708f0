/**
 * `moveItem` (src/util/arrays.ts), the sorted view's move of one record:
 * `copyWithin` where the engine moves a block at once (found on the first long move, timed), two
 * splices otherwise. Each way against two splices on a copy.
 */
import { describe, expect, it, vi } from 'vitest';

type MoveItem = <T>(array: T[], from: number, to: number) => void;

/** A fresh copy of the module: its first long move is timed, with `copyWithin` (in Node; the browser run keeps one copy, already decided). */
async function fresh(): Promise<MoveItem> {
  vi.resetModules();
  return (await import('../../src/util/arrays.js')).moveItem;
}

function expectMoved(moveItem: MoveItem, length: number, from: number, to: number): void {
  const array = Array.from({ length }, (_, i) => ({ i }));
  const expected = [...array];
  const [item] = expected.splice(from, 1);
  if (item !== undefined) expected.splice(to, 0, item);
  moveItem(array, from, to);
  expect(array.length).toBe(length);
  expect(array.every((value, i) => value === expected[i])).toBe(true);
}

describe('moveItem moves one item and shifts those between by one', () => {
  it.each([
    ['far right, the first long move (copyWithin, timed)', 0, 39_999],
    ['far left, the first long move (copyWithin, timed)', 39_999, 0],
    ['from the middle to near the end', 20_000, 39_000],
  ])('%s', async (_, from, to) => {
    const moveItem = await fresh();
    expectMoved(moveItem, 40_000, from, to);
    // Then each way the module may take after the first long move.
    for (const [a, b] of [[0, 39_999], [39_999, 0], [100, 103], [103, 100], [5, 5], [0, 1], [39_998, 39_999], [30_000, 10], [10, 30_000]] as const) expectMoved(moveItem, 40_000, a, b);
  });

  it('few items: a place or two, to either end, in small arrays', async () => {
    const moveItem = await fresh();
    for (const length of [1, 2, 3, 10, 100]) for (let from = 0; from < length; from++) for (let to = 0; to < length; to++) expectMoved(moveItem, length, from, to);
  });
});

describe('without a clock (no global performance)', () => {
  it('moves by splices, never timing', async () => {
    const moveItem = await fresh();
    // Taken away only while moving (the test runner reads the clock too).
    vi.stubGlobal('performance', undefined);
    try {
      for (const [a, b] of [[0, 39_999], [39_999, 0], [100, 103]] as const) expectMoved(moveItem, 40_000, a, b);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
