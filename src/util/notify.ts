/**
 * Batched notification: everything changed in one synchronous run is told once, in a later
 * microtask. A target scheduled twice in a run is flushed once.
 */
import { callSafely } from './events.js';
import { describeValue } from './options.js';

export interface Flushable {
  flush(): void;
}

let pending: Set<Flushable> | undefined;

function flush(target: Flushable): void {
  target.flush();
}

function flushAll(): void {
  const targets = pending;
  pending = undefined;
  // One target that fails (a snapshot that cannot be made) must not keep the others from flushing.
  if (targets !== undefined) for (const target of targets) callSafely(flush, target);
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
  /** The listeners, in the order they subscribed (a set: thousands of them come and go cheaply). */
  readonly #entries = new Set<Entry<S>>();
  readonly #make: () => S;
  readonly #same: (a: S, b: S) => boolean;
  #last: S | undefined;
  #fresh = false;
  #renew = false;

  /**
   * `make`: a snapshot of now; `same`: whether two snapshots show the same (then the older is
   * kept); `last`: a snapshot given before, kept if the first one made shows the same.
   */
  constructor(
    make: () => S,
    same: (a: S, b: S) => boolean,
    last?: S,
  ) {
    this.#make = make;
    this.#same = same;
    this.#last = last;
  }

  /** Whether anyone listens. */
  get listened(): boolean {
    return this.#entries.size > 0;
  }

  /** The current snapshot. */
  get(): S {
    let last = this.#last;
    if (!this.#fresh || last === undefined) {
      const next = this.#make();
      if (last === undefined || this.#renew || !this.#same(last, next)) this.#last = last = next;
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
    if (this.#entries.size > 0) schedule(this);
  }

  /** Drop every listener. */
  clear(): void {
    this.#entries.clear();
  }

  /** Add a listener and call it at once with the current snapshot (Svelte's store contract). */
  add(listener: Subscriber<S>): () => void {
    checkListener(listener);
    const entries = this.#entries;
    const entry: Entry<S> = { listener, told: this.get() };
    // Listed before the first call, so that a change that call makes is told (a load it starts).
    entries.add(entry);
    try {
      listener(entry.told);
    } catch (error) {
      entries.delete(entry);
      throw error;
    }
    return () => {
      entries.delete(entry);
    };
  }

  flush(): void {
    const entries = this.#entries;
    for (const entry of [...entries]) {
      // Asked for each listener: an earlier one may have changed something (the next flush tells
      // the others). Unsubscribed by an earlier listener of this flush: not told.
      const now = this.get();
      if (entry.told === now || !entries.has(entry)) continue;
      entry.told = now;
      callSafely(entry.listener, now);
    }
  }
}

export function checkListener(listener: unknown): asserts listener is Subscriber<never> {
  if (typeof listener !== 'function') throw new TypeError(`subscribe: the listener must be a function, got ${describeValue(listener)}`);
}
