/**
 * What a store keeps besides the records it lists: the changes not synced yet (removed records
 * still to be destroyed, edited records a load took off the list) and, while a load is in flight,
 * the writes that completed after it was sent. `mergeLoaded` says how a load's answer meets all
 * of that; it is pure, so tests can run it on plain objects.
 */

/** Writes that completed after a load was sent: its answer may predate them. */
export interface SinceLoad<R> {
  /** Records whose create completed. */
  readonly created: Set<R>;
  /** Records whose update (or create) completed. */
  readonly written: Set<R>;
  /** Ids of records destroyed (as keys: see MergeContext.key). */
  readonly erased: Set<string | number>;
  /** A discarding load: the edit clock when it was called, and the new and removed records then. */
  readonly called: { readonly at: number; readonly pending: ReadonlySet<R> } | undefined;
}

export function sinceLoad<R>(called?: SinceLoad<R>['called']): SinceLoad<R> {
  return { created: new Set(), written: new Set(), erased: new Set(), called };
}

/** What `mergeLoaded` needs to know of the records and of the store. */
export interface MergeContext<R> {
  /** The record's id as a map key (ids equal as strings are equal keys); undefined when it has none. */
  key(record: R): string | number | undefined;
  /** Not on the server yet (phantom): kept whatever the load says. */
  isNew(record: R): boolean;
  /** With unsaved edits: kept for the next sync when the load does not list it. */
  isDirty(record: R): boolean;
  /** Removed records still to be destroyed: the load does not bring them back. */
  readonly removed: readonly R[];
  /** Edited records a load of another page took off the list, still to be synced. */
  readonly offPage: readonly R[];
  /** What completed while the load was in flight. */
  readonly since: SinceLoad<R>;
  /** Drop unsynced changes (`load({ discardChanges: true })`). */
  readonly discard: boolean;
  /** With discard: whether a record's changes came after the load was called, or a write of it runs or completed since: kept. */
  spared?(record: R): boolean;
  /** Add the loaded records to the list instead of replacing it (`load({ addRecords: true })`). */
  readonly append: boolean;
}

export interface MergePlan<R> {
  /** The records to list, in order. */
  readonly list: R[];
  /** Edited records kept for the next sync though not listed. */
  readonly offPage: R[];
  /** Records removed and still to be destroyed. */
  readonly removed: R[];
  /** Held records that take the server's values of a loaded one: `[held, loaded]`. */
  readonly updates: [R, R][];
  /** Held records whose unsynced changes are dropped (discard). */
  readonly rejected: R[];
  /** Loaded records left out: an id listed twice, or one removed or destroyed meanwhile (undefined: none). */
  readonly dropped: ReadonlySet<R> | undefined;
  /**
   * The records the store held before (listed, off the page or removed) that it still holds:
   * those of `previous`, `offPage` and `removed` not in it are let go.
   */
  readonly kept: ReadonlySet<R>;
}

/**
 * Merge a load's answer into what the store holds. One record object per id: a loaded record
 * whose id the store already holds updates that record (`updates`) instead of replacing it. A
 * load never undoes a write that completed after it was sent: records written meanwhile keep
 * their values, records created meanwhile stay listed, records destroyed meanwhile stay gone.
 * Unsynced changes survive unless `discard` (and then those `spared` still do): new records
 * stay listed (first), removed ones stay removed, edited ones stay listed or off the page.
 */
export function mergeLoaded<R>(previous: readonly R[], loaded: readonly R[], context: MergeContext<R>): MergePlan<R> {
  const key = context.key;
  const drops = (record: R): boolean => context.discard && context.spared?.(record) !== true;
  const list: R[] = [];
  // Only records held before go into this set: a load of 100,000 new records would otherwise
  // pay a hash per record. A loaded record is listed once unless it is one of these.
  const kept = new Set<R>();
  const keep = (record: R): void => {
    if (kept.has(record)) return;
    kept.add(record);
    list.push(record);
  };
  // Loops over what may be 100,000 records run once per load, often before V8 optimizes them:
  // forEach and indexed loops, as an iterator allocates a result object per record until then.
  // Kept at the front, whatever the answer says: new records, and those created since it was sent.
  if (context.append) previous.forEach(keep);
  else {
    previous.forEach((record) => {
      if ((context.isNew(record) && !drops(record)) || context.since.created.has(record)) keep(record);
    });
  }

  const held = new Map<string | number, R>();
  // A new record is never matched to a row, whatever id setId gave it.
  const hold = (record: R): void => {
    const id = key(record);
    if (id !== undefined && !held.has(id) && !context.isNew(record)) held.set(id, record);
  };
  previous.forEach(hold);
  context.offPage.forEach(hold);
  const removedIds = new Set<string | number>();
  for (const record of context.removed) {
    const id = key(record);
    if (id === undefined || context.isNew(record)) continue;
    if (drops(record)) hold(record);
    else removedIds.add(id);
  }

  const updates: [R, R][] = [];
  const rejected: R[] = [];
  // Each id once. Most answers come in increasing id order: those need no set (a set of 100,000
  // ids cost such a load 10%); the first id out of order makes one of the ids before it.
  let last = -Infinity;
  let seen: Set<string | number> | undefined;
  const first = (id: string | number, index: number): boolean => {
    if (seen === undefined) {
      if (typeof id === 'number' && id > last) {
        last = id;
        return true;
      }
      // The ids of the records before this one: the answer turned out not to be in id order.
      seen = new Set(loaded.slice(0, index).map(key).filter((before) => before !== undefined));
    }
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  };
  let dropped: Set<R> | undefined;
  const drop = (record: R): void => {
    (dropped ??= new Set()).add(record);
  };
  // Nothing held that a loaded record could be (a first load): no lookups per record.
  const quick = held.size === 0 && removedIds.size === 0 && context.since.erased.size === 0;
  for (let index = 0; index < loaded.length; index++) {
    const fresh = loaded[index];
    if (fresh === undefined) continue;
    const id = key(fresh);
    if (id !== undefined) {
      if ((!quick && (context.since.erased.has(id) || removedIds.has(id))) || !first(id, index)) {
        drop(fresh);
        continue;
      }
      const mine = quick ? undefined : held.get(id);
      if (mine !== undefined) {
        held.delete(id);
        if (drops(mine) && (context.isDirty(mine) || context.removed.includes(mine))) rejected.push(mine);
        if (!context.since.written.has(mine) && !context.since.created.has(mine)) updates.push([mine, fresh]);
        keep(mine);
        continue;
      }
    }
    // A loaded record is a new object, unless a memory proxy handed out one the store holds.
    if (kept.size === 0 || !kept.has(fresh)) list.push(fresh);
  }

  // Held records the answer did not list: edited ones stay pending, off the list.
  const offPage: R[] = [];
  for (const record of held.values()) if (!kept.has(record) && context.isDirty(record) && !context.isNew(record) && !drops(record)) offPage.push(record);
  const removed = context.removed.filter((record) => !kept.has(record) && !drops(record));
  for (const record of [...offPage, ...removed]) kept.add(record);
  return { list, offPage, removed, updates, rejected, kept, dropped };
}

/** The unsynced changes a store keeps besides its list: removed records and edited ones off the page. */
export class PendingChanges<R extends { readonly dirty: boolean; readonly phantom: boolean; readonly erased: boolean }> {
  /** Records removed and still to be destroyed. */
  removed: R[] = [];
  /** Edited records that a load of another page took off the list: still to be synced. */
  offPage: R[] = [];
  /** Where each removed record stood, so that rejecting puts it back there. */
  readonly #removedAt = new WeakMap<R, number>();

  /** Whether the record is one of them (removed, or off the page). */
  has(record: R): boolean {
    return this.removed.includes(record) || this.offPage.includes(record);
  }

  /** The first removed record, else the first off the page, that passes `test`. */
  find(test: (record: R) => boolean): R | undefined {
    return this.removed.find(test) ?? this.offPage.find(test);
  }

  /** A record taken out of the list at `at`, to be destroyed by the next sync. */
  remove(record: R, at: number): void {
    this.removed.push(record);
    this.#removedAt.set(record, at);
  }

  /** Forget a removed record (added again, or destroyed): whether it was one. */
  unremove(record: R): boolean {
    const at = this.removed.indexOf(record);
    if (at !== -1) this.removed.splice(at, 1);
    return at !== -1;
  }

  /** Where a removed record stood in the list. */
  removedAt(record: R): number | undefined {
    return this.#removedAt.get(record);
  }

  /** A record saved meanwhile leaves the records kept off the page: whether it did. */
  settle(record: R): boolean {
    const at = this.offPage.indexOf(record);
    if (at === -1 || record.dirty) return false;
    this.offPage.splice(at, 1);
    return true;
  }

  /** What a sync sends for: edited or new listed records, edited ones off the page, removed ones (pruned: none erased). */
  pending(listed: readonly R[]): R[] {
    return [...listed.filter((record) => record.dirty && !record.erased), ...this.offPage.filter((record) => record.dirty), ...this.removed];
  }

  /** Saved records with unsaved edits, listed or off the page (never both: a record listed again leaves the page's). */
  updated(listed: readonly R[]): R[] {
    return [...listed, ...this.offPage].filter((record) => !record.phantom && record.dirty);
  }

  /** Forget every pending removal and every record kept off the page; returns those records. */
  clear(): R[] {
    const dropped = [...this.removed, ...this.offPage];
    this.removed = [];
    this.offPage = [];
    return dropped;
  }
}
