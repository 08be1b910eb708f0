/**
 * What hears of each change to a store's records besides its own view: live summaries and
 * chained stores (API.md section 12). A live summary is held until destroy() (an app may keep only
 * its subscription); a chained store weakly: one dropped without destroy() can be collected.
 */
export interface Follower<M> {
  /** Something about a listed record changed (its values, its state). */
  touched(record: M): void;
  added(records: readonly M[]): void;
  removed(records: readonly M[]): void;
  /** The records were made again (a load, a reject, a sort); `retested`: only which the filters pass changed. */
  reset(retested: boolean): void;
  /** The store was destroyed. */
  release(): void;
}

export class Followers<M> implements Follower<M> {
  readonly #refs = new Set<{ deref(): Follower<M> | undefined }>();

  /** Follow (`strong`: held until it stops, as a live summary; else weakly, as a chained store); returns the function that stops following. */
  add(follower: Follower<M>, strong = false): () => void {
    const ref = strong ? { deref: () => follower } : new WeakRef(follower);
    this.#refs.add(ref);
    return () => this.#refs.delete(ref);
  }

  #each(call: (follower: Follower<M>) => void): void {
    for (const ref of this.#refs) {
      const follower = ref.deref();
      if (follower === undefined) this.#refs.delete(ref);
      else call(follower);
    }
  }

  touched(record: M): void {
    if (this.#refs.size > 0) this.#each((follower) => follower.touched(record));
  }

  added(records: readonly M[]): void {
    if (this.#refs.size > 0) this.#each((follower) => follower.added(records));
  }

  removed(records: readonly M[]): void {
    if (this.#refs.size > 0) this.#each((follower) => follower.removed(records));
  }

  reset(retested: boolean): void {
    if (this.#refs.size > 0) this.#each((follower) => follower.reset(retested));
  }

  release(): void {
    this.#each((follower) => follower.release());
    this.#refs.clear();
  }
}

/** The followers of a view, made when the first one comes (a store without summaries or chained stores pays nothing). */
export function followersOf<M>(view: { followers: Followers<M> | undefined }): Followers<M> {
  return (view.followers ??= new Followers<M>());
}
