/**
 * Batched notification: everything changed in one synchronous run is told once, in a later
 * microtask. A target scheduled twice in a run is flushed once.
 */
export interface Flushable {
  flush(): void;
}

let pending: Set<Flushable> | undefined;

function flushAll(): void {
  const targets = pending;
  pending = undefined;
  if (targets === undefined) return;
  for (const target of targets) {
    try {
      target.flush();
    } catch (error) {
      // A listener that throws must not keep the others from hearing of the change.
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}

export function schedule(target: Flushable): void {
  if (pending === undefined) {
    pending = new Set();
    queueMicrotask(flushAll);
  }
  pending.add(target);
}

export type Subscriber<S> = (snapshot: S) => void;

/**
 * The listeners of one store or record, and the last snapshot they were given: a flush tells them
 * only when the snapshot is another one (its identity changes only when something visible did).
 */
export class Subscribers<S> implements Flushable {
  readonly list: Subscriber<S>[] = [];
  #told: S | undefined = undefined;

  constructor(readonly snapshot: () => S) {}

  /** Add a listener and call it at once with the current snapshot (Svelte's store contract). */
  add(listener: Subscriber<S>): () => void {
    if (typeof listener !== 'function') throw new TypeError(`subscribe: the listener must be a function, got ${typeof listener}`);
    const list = this.list;
    list.push(listener);
    const now = this.snapshot();
    // The first listener sets the baseline; with others, a change not yet told reaches them all.
    if (list.length === 1) this.#told = now;
    listener(now);
    return () => {
      const index = list.indexOf(listener);
      if (index !== -1) list.splice(index, 1);
    };
  }

  flush(): void {
    const now = this.snapshot();
    if (now === this.#told) return;
    this.#told = now;
    for (const listener of [...this.list]) listener(now);
  }
}
