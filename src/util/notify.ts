/**
 * Batched notification: everything changed in one synchronous run is told once, in a later
 * microtask. A target scheduled twice in a run is flushed once.
 */
import { addTo, callSafely } from './events.js';
import { describeValue } from './options.js';

export interface Flushable {
  flush(): void;
}

let pending: Set<Flushable> | undefined;

function flushAll(): void {
  const targets = pending;
  pending = undefined;
  if (targets !== undefined) for (const target of targets) target.flush();
}

export function schedule(target: Flushable): void {
  if (pending === undefined) {
    pending = new Set();
    queueMicrotask(flushAll);
  }
  pending.add(target);
}

export type Subscriber<S> = (snapshot: S) => void;

/** A listener and the last snapshot it was given. */
interface Entry<S> {
  readonly listener: Subscriber<S>;
  told: S;
}

/**
 * What a store or a record shows, for a UI that compares by identity: the same snapshot object
 * until something visible changed, and the listeners, each told once per change batch and never
 * twice the same snapshot.
 */
export class View<S> implements Flushable {
  readonly list: Entry<S>[] = [];
  #last: S | undefined = undefined;
  #fresh = false;
  #renew = false;

  /** `make`: a snapshot of now; `same`: whether two snapshots show the same (then the older is kept). */
  constructor(
    readonly make: () => S,
    readonly same: (a: S, b: S) => boolean,
  ) {}

  /** The current snapshot. */
  get(): S {
    let last = this.#last;
    if (!this.#fresh || last === undefined) {
      const next = this.make();
      if (last === undefined || this.#renew || !this.same(last, next)) this.#last = last = next;
      this.#fresh = true;
      this.#renew = false;
    }
    return last;
  }

  /**
   * Something visible may have changed: the snapshot is made again when next asked for (kept if
   * it shows the same, unless `renew`: a change `same` cannot see), the listeners hear of it.
   */
  changed(renew = false): void {
    this.#fresh = false;
    if (renew) this.#renew = true;
    if (this.list.length > 0) schedule(this);
  }

  /** Add a listener and call it at once with the current snapshot (Svelte's store contract). */
  add(listener: Subscriber<S>): () => void {
    checkListener(listener);
    const entry: Entry<S> = { listener, told: this.get() };
    listener(entry.told);
    return addTo(this.list, entry);
  }

  flush(): void {
    const list = this.list;
    if (list.length === 0) return;
    const now = this.get();
    for (const entry of [...list]) {
      if (entry.told === now || !list.includes(entry)) continue;
      entry.told = now;
      callSafely(entry.listener, now);
    }
  }
}

export function checkListener(listener: unknown): asserts listener is Subscriber<never> {
  if (typeof listener !== 'function') throw new TypeError(`subscribe: the listener must be a function, got ${describeValue(listener)}`);
}
