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
  /** Ids of records destroyed. */
  readonly erased: Set<string>;
}

export function sinceLoad<R>(): SinceLoad<R> {
  return { created: new Set(), written: new Set(), erased: new Set() };
}

/** What `mergeLoaded` needs to know of the records and of the store. */
export interface MergeContext<R> {
  /** The record's id as a string; undefined when it has none. */
  key(record: R): string | undefined;
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
}

/**
 * Merge a load's answer into what the store holds. One record object per id: a loaded record
 * whose id the store already holds updates that record (`updates`) instead of replacing it. A
 * load never undoes a write that completed after it was sent: records written meanwhile keep
 * their values, records created meanwhile stay listed, records destroyed meanwhile stay gone.
 * Unsynced changes survive unless `discard`: new records stay listed (first), removed ones
 * stay removed, edited ones stay listed or off the page.
 */
export function mergeLoaded<R>(previous: readonly R[], loaded: readonly R[], context: MergeContext<R>): MergePlan<R> {
  const { key, since, discard } = context;
  const list: R[] = [];
  const listed = new Set<R>();
  const add = (record: R): void => {
    if (listed.has(record)) return;
    listed.add(record);
    list.push(record);
  };
  // Kept at the front, whatever the answer says: new records, and those created since it was sent.
  if (context.append) for (const record of previous) add(record);
  else for (const record of previous) if ((context.isNew(record) && !discard) || since.created.has(record)) add(record);

  const held = new Map<string, R>();
  const hold = (record: R): void => {
    const id = key(record);
    if (id !== undefined && !held.has(id)) held.set(id, record);
  };
  for (const record of previous) hold(record);
  for (const record of context.offPage) hold(record);
  const removedIds = new Set<string>();
  for (const record of context.removed) {
    const id = key(record);
    if (id === undefined) continue;
    if (discard) hold(record);
    else removedIds.add(id);
  }

  const updates: [R, R][] = [];
  const rejected: R[] = [];
  const seen = new Set<string>();
  const quick = held.size === 0 && removedIds.size === 0 && since.erased.size === 0;
  for (const fresh of loaded) {
    if (quick) {
      // Nothing held that a loaded record could be: take the answer as it is.
      add(fresh);
      continue;
    }
    const id = key(fresh);
    if (id !== undefined) {
      if (seen.has(id) || since.erased.has(id) || removedIds.has(id)) continue;
      seen.add(id);
      const mine = held.get(id);
      if (mine !== undefined) {
        held.delete(id);
        if (discard && (context.isDirty(mine) || context.removed.includes(mine))) rejected.push(mine);
        if (!since.written.has(mine) && !since.created.has(mine)) updates.push([mine, fresh]);
        add(mine);
        continue;
      }
    }
    add(fresh);
  }

  // Held records the answer did not list: edited ones stay pending, off the list.
  const offPage: R[] = [];
  if (!discard) for (const record of held.values()) if (!listed.has(record) && context.isDirty(record) && !context.isNew(record)) offPage.push(record);
  const removed = discard ? [] : context.removed.filter((record) => !listed.has(record));
  return { list, offPage, removed, updates, rejected };
}

/** The unsynced changes a store keeps besides its list: removed records and edited ones off the page. */
export class PendingChanges<R extends { readonly dirty: boolean; readonly phantom: boolean; readonly erased: boolean }> {
  /** Records removed and still to be destroyed. */
  removed: R[] = [];
  /** Edited records that a load of another page took off the list: still to be synced. */
  offPage: R[] = [];
  /** Where each removed record stood, so that rejecting puts it back there. */
  readonly #removedAt = new WeakMap<R, number>();

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

  /** What a sync sends for: edited or new listed records, edited ones off the page, removed ones. */
  pending(listed: readonly R[]): R[] {
    return [...listed.filter((record) => record.dirty && !record.erased), ...this.offPage.filter((record) => record.dirty), ...this.removed.filter((record) => !record.erased)];
  }

  /** Saved records with unsaved edits, listed or off the page. */
  updated(listed: readonly R[]): R[] {
    const updated = listed.filter((record) => !record.phantom && record.dirty);
    for (const record of this.offPage) if (record.dirty && !record.phantom && !updated.includes(record)) updated.push(record);
    return updated;
  }

  /** Forget every pending removal and every record kept off the page; returns those records. */
  clear(): R[] {
    const dropped = [...this.removed, ...this.offPage];
    this.removed = [];
    this.offPage = [];
    return dropped;
  }
}
