/**
 * The dependency order (src/associations/order.ts) against a naive model: a node's level is one
 * more than the highest level of what it waits for, found by repeating until nothing changes;
 * a graph has a cycle when that never settles. Cases first, then random graphs (fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderLevels } from '../../src/associations/order.js';

type Graph = Map<number, number[]>;

/** The naive model: levels by repeated relaxation; undefined when a cycle keeps them growing. */
function naiveLevels(nodes: readonly number[], graph: Graph): Map<number, number> | undefined {
  const inSet = new Set(nodes);
  const level = new Map(nodes.map((node) => [node, 0]));
  for (let round = 0; round <= nodes.length; round++) {
    let changed = false;
    for (const node of inSet) {
      const deps = (graph.get(node) ?? []).filter((dep) => inSet.has(dep));
      const want = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((dep) => level.get(dep) ?? 0));
      if (want !== level.get(node)) {
        level.set(node, want);
        changed = true;
      }
    }
    if (!changed) return level;
  }
  return undefined;
}

const order = (nodes: number[], graph: Graph) => orderLevels(nodes, (node) => graph.get(node) ?? []);

describe('orderLevels: cases', () => {
  it('parents first at any depth; order kept within a level', () => {
    const graph: Graph = new Map([[3, [2]], [2, [1]], [4, [1]], [5, []]]);
    expect(order([3, 5, 2, 4, 1], graph)).toEqual({ levels: [[5, 1], [2, 4], [3]] });
  });

  it('ignores what is outside the set, duplicates and repeated edges', () => {
    expect(order([2, 2, 3], new Map([[2, [1, 9]], [3, [2, 2]]]))).toEqual({ levels: [[2], [3]] });
  });

  it('names a cycle, its first node repeated at the end', () => {
    expect(order([1, 2, 3], new Map([[1, [2]], [2, [3]], [3, [1]]]))).toEqual({ cycle: [1, 2, 3, 1] });
    expect(order([1], new Map([[1, [1]]]))).toEqual({ cycle: [1, 1] });
    // A node that waits for a cycle is not in the cycle named.
    expect(order([9, 1, 2], new Map([[9, [1]], [1, [2]], [2, [1]]]))).toEqual({ cycle: [1, 2, 1] });
  });

  it('nothing to order: no levels', () => {
    expect(order([], new Map())).toEqual({ levels: [] });
  });
});

const graphs = fc
  .integer({ min: 0, max: 12 })
  .chain((size) =>
    fc.record({
      nodes: fc.shuffledSubarray(Array.from({ length: size }, (_, i) => i), { minLength: 0, maxLength: size }),
      edges: fc.array(fc.tuple(fc.integer({ min: 0, max: size + 2 }), fc.integer({ min: 0, max: size + 2 })), { maxLength: size * 2 }),
      acyclic: fc.boolean(),
    }),
  )
  .map(({ nodes, edges, acyclic }) => {
    const graph: Graph = new Map();
    // Acyclic graphs wait only for smaller numbers (half the runs), so that levels, not cycles, are tested often.
    for (const [from, to] of edges) if (!acyclic || to < from) graph.set(from, [...(graph.get(from) ?? []), to]);
    return { nodes, graph };
  });

describe('orderLevels: properties against the naive model', () => {
  it('levels are the naive levels; a cycle exists exactly when the naive model finds none settle, and is one', () => {
    fc.assert(
      fc.property(graphs, ({ nodes, graph }) => {
        const result = order(nodes, graph);
        const naive = naiveLevels(nodes, graph);
        if (naive === undefined) {
          expect(result.cycle).toBeDefined();
          const cycle = result.cycle ?? [];
          expect(cycle.length).toBeGreaterThan(1);
          expect(cycle[0]).toBe(cycle[cycle.length - 1]);
          expect(new Set(cycle.slice(0, -1)).size).toBe(cycle.length - 1);
          for (let i = 0; i + 1 < cycle.length; i++) {
            expect(nodes).toContain(cycle[i]);
            expect(graph.get(cycle[i] ?? -1)).toContain(cycle[i + 1]);
          }
          return;
        }
        expect(result.cycle).toBeUndefined();
        const levels = result.levels ?? [];
        expect(levels.flat().sort((a, b) => a - b)).toEqual([...new Set(nodes)].sort((a, b) => a - b));
        levels.forEach((level, at) => {
          expect(level.length).toBeGreaterThan(0);
          for (const node of level) expect(naive.get(node)).toBe(at);
          // Within a level, the given order.
          expect(level).toEqual([...level].sort((a, b) => nodes.indexOf(a) - nodes.indexOf(b)));
        });
      }),
      { numRuns: 2000 },
    );
  });
});
