/**
 * The dependency order of writes: one pure function of the pending records and what each waits
 * for. Used for creates (parents first), destroys (owned children first) and by the outbox alike.
 */

/** Levels, each after the ones before it; or the cycle that makes an order impossible. */
export type Order<T> = { readonly levels: T[][]; readonly cycle?: undefined } | { readonly levels?: undefined; readonly cycle: T[] };

interface Entry<T> {
  readonly node: T;
  /** How many of its dependencies are not placed yet. */
  waiting: number;
  readonly deps: Entry<T>[];
  readonly dependants: Entry<T>[];
}

/**
 * Order `nodes` into levels: a node comes one level after the last of the nodes it waits for
 * (`waitsFor`; nodes outside `nodes` are ignored), so level 0 waits for nothing. When some nodes
 * wait for each other, `cycle` is one such loop, its first node repeated at the end
 * (`[a, b, a]`: a waits for b, which waits for a). Nodes keep their given order within a level.
 */
export function orderLevels<T>(nodes: readonly T[], waitsFor: (node: T) => Iterable<T>): Order<T> {
  const entries = new Map<T, Entry<T>>();
  for (const node of nodes) if (!entries.has(node)) entries.set(node, { node, waiting: 0, deps: [], dependants: [] });
  const all = [...entries.values()];
  for (const entry of all) {
    for (const dep of new Set(waitsFor(entry.node))) {
      const of = entries.get(dep);
      if (of === undefined) continue;
      entry.deps.push(of);
      of.dependants.push(entry);
      entry.waiting++;
    }
  }
  const levels: T[][] = [];
  let ready = all.filter((entry) => entry.waiting === 0);
  let placed = 0;
  while (ready.length > 0) {
    placed += ready.length;
    levels.push(ready.map((entry) => entry.node));
    const next = new Set<Entry<T>>();
    for (const entry of ready) for (const after of entry.dependants) if (--after.waiting === 0) next.add(after);
    ready = all.filter((entry) => next.has(entry));
  }
  if (placed === all.length) return { levels };
  // Every node left waits for another node left: walk from one until a node repeats.
  const path: Entry<T>[] = [];
  for (let at = all.find((entry) => entry.waiting > 0); at !== undefined; at = at.deps.find((dep) => dep.waiting > 0)) {
    const from = path.indexOf(at);
    if (from >= 0) return { cycle: [...path.slice(from), at].map((entry) => entry.node) };
    path.push(at);
  }
  /* c8 ignore next */
  return { levels };
}
