/**
 * compareValues (every local sort: a store's view, comparator, a MemoryProxy) is a total order:
 * a sort of values of mixed kinds is one order whatever the algorithm or the order they came in
 * (a store places records one at a time, Array#sort merges).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareValues } from '../../src/util/sorting.js';

const VALUE = fc.oneof(
  fc.constantFrom(0, -0, 9, 10, 1.5, -3, NaN, Infinity, -Infinity, '', '9', '10', 'a', 'B', 'true', '1.5', true, false, null, undefined),
  fc.constantFrom(0, 9, 10, 1e12).map((time) => new Date(time)),
  fc.constant(null).map(() => new Date('x')),
  fc.constantFrom({ a: 1 }, [1, 2], [10]),
  fc.integer(),
  fc.string({ maxLength: 3 }),
);

describe('compareValues is a total order', () => {
  it('antisymmetric and transitive over numbers, numeric text, booleans, Dates, objects and empty values', () => {
    fc.assert(
      fc.property(VALUE, VALUE, VALUE, (a, b, c) => {
        expect(Math.sign(compareValues(a, b))).toBe(-Math.sign(compareValues(b, a)) || 0);
        if (compareValues(a, b) <= 0 && compareValues(b, c) <= 0) expect(compareValues(a, c)).toBeLessThanOrEqual(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('over a few values of mixed kinds, every triple', () => {
    const values = [9, 10, '10', '9', 'a', true, 'true', 1, new Date(10), '1e1', null];
    for (const a of values) for (const b of values) for (const c of values) {
      if (compareValues(a, b) <= 0 && compareValues(b, c) <= 0) expect(compareValues(a, c), [a, b, c].map((value) => JSON.stringify(value)).join(' <= ')).toBeLessThanOrEqual(0);
    }
  });

  it('9, 10 and "10" sort to one order whatever order they come in (was a cycle: 9 < 10, 10 tied with "10", "10" < 9)', () => {
    const sorted = [9, '10', 10].sort(compareValues);
    for (const order of [[10, 9, '10'], ['10', 10, 9], [9, 10, '10'], ['10', 9, 10]]) expect(order.sort(compareValues)).toEqual(sorted);
  });
});
