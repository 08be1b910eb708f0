/**
 * The records a store holds: its list, its unsynced changes, and what it does when one of its
 * records tells of a change (an edit, a write's answer, a destroy) or a load's answer arrives.
 */
import { ProxyError } from '../errors/ProxyError.js';
import { ADOPT, extensions, HOLD } from '../model/extensions.js';
import { belongsTo, join, recordOwner, RELIST, unjoin, type RecordOwner } from '../model/internal.js';
import { Model, recordFromServer, type DataOf, type ModelClass, type ModelInit } from '../model/Model.js';
import { adoptCopy, takeServerRecord } from '../model/persistence.js';
import { rejectEdits } from '../model/values.js';
import { mayBeGone, mayExist } from '../model/writeState.js';
import { WRITE_STATE } from '../operation/protocol.js';
import { describeValue, isPlainObject } from '../util/options.js';
import { dev } from '../util/dev.js';
import { idKey, keyOf, RecordList } from './list.js';
import type { LoadOptions, StoreEvents } from './options.js';
import type { Store } from './Store.js';
import { mergeLoaded, PendingChanges, type SinceLoad } from './pending.js';

/** What the records need of their store. */
export interface RecordsHost<M extends Model> {
  readonly store: Store<M>;
  model(): ModelClass<M>;
  /** What completed since the load in flight was sent (undefined when none runs). */
  since(): SinceLoad<M> | undefined;
  /** `update` (its payload made only when someone listens). */
  updated(record: M, operation: StoreEvents<M>['update']['operation'], names: readonly string[]): void;
  /** Records left the list: sort and filter again, then `remove` and `datachanged`. */
  removed(records: M[], indexes: number[]): void;
  /** Sort and filter the list again (local sorters, filters, grouping). */
  arrange(): void;
  /** An edit happened: sync soon when autoSync is on. */
  edited(): void;
  /** Something visible changed (for subscriptions). */
  changed(): void;
}

/** @internal Store[UNLIST]: take records out of the list without marking them for destroy. */
export const UNLIST: unique symbol = Symbol(dev('rest-proxy.unlist'));

/** Whether a removed record is to be destroyed: saved, or new with a create that may have been applied or is running. */
export function toDestroy(record: Model<object>): boolean {
  return (!record.phantom || record.saving || mayExist(record[WRITE_STATE])) && !record.erased;
}

export class StoreRecords<M extends Model> {
  readonly list = new RecordList<M>();
  readonly changes = new PendingChanges<M>();
  /** How the records reach their store (kept off the store's public face). */
  readonly owner: RecordOwner;

  constructor(readonly host: RecordsHost<M>) {
    this.owner = recordOwner({
      proxy: () => this.host.store.proxy,
      holds: (id, record) => {
        const key = keyOf(id);
        if (key === undefined) return false;
        const holder = this.list.find(key);
        return (holder !== undefined && holder !== record) || this.changes.find((other) => other !== record && idKey(other) === key) !== undefined;
      },
      afterEdit: this.#mine((own, names) => {
        if (names.includes(this.host.model().idProperty)) this.list.reindex(); // re-keyed on next lookup
        this.host.updated(own, 'edit', names);
        this.host.edited();
      }),
      afterCommit: this.#mine((own, names, created) => {
        const since = this.host.since();
        if (since !== undefined) {
          if (created) since.created.add(own);
          since.written.add(own);
        }
        if (created) this.#replaceCopy(own);
        if (!this.changes.removed.includes(own)) this.list.index(own); // a created record now has its server id
        if (this.changes.settle(own)) unjoin(own, this.owner);
        this.host.updated(own, 'commit', names);
      }),
      afterReject: this.#mine((own) => {
        // Its id may be back to the one it had (one it lists, not a removed one: a rejectChanges of many builds no index per record).
        if (!this.changes.has(own)) this.list.recheck(own);
        this.host.updated(own, 'reject', []);
      }),
      afterErase: this.#mine((own) => {
        const key = idKey(own);
        const since = this.host.since();
        if (since !== undefined && key !== undefined) since.erased.add(key);
        unjoin(own, this.owner);
        // Removed from the store before, so not listed: no need to look for it (a sync that
        // destroys 2,000 of 100,000 records looked through all of them 2,000 times).
        if (this.changes.unremove(own)) return;
        const [taken] = this.list.take(new Set([own]));
        if (taken !== undefined) this.host.removed([own], [taken[1]]);
      }),
      afterChange: (record) => {
        if (record instanceof this.host.model() && this.#listed(record)) this.list.view.touched(record);
        this.host.changed();
      },
      [RELIST]: this.#mine((own) => {
        if (this.changes.removed.includes(own)) this.host.store.insert(this.changes.removedAt(own) ?? 0, own);
      }),
    });
  }

  /** A hook that hears of the store's own records (of its model) only. */
  #mine<A extends unknown[]>(hook: (own: M, ...args: A) => void): (record: object, ...args: A) => void {
    return (record, ...args) => {
      if (record instanceof this.host.model()) hook(record, ...args);
    };
  }

  /**
   * A created record whose id a load already brought (the load saw the row of a create that was
   * not confirmed yet): the user's record takes the copy's place, with the later of their edits
   * (adoptCopy); if the user removed the copy, the record is removed in its place.
   */
  #replaceCopy(own: M): void {
    const key = idKey(own);
    if (key === undefined) return;
    const copy = this.list.find(key, own);
    if (copy === undefined) {
      // The user removed the load's copy: that row is to be destroyed, and the record with it.
      const removed = this.changes.removed.find((record) => record !== own && idKey(record) === key);
      if (removed === undefined) return;
      this.changes.unremove(removed);
      unjoin(removed, this.owner);
      this.host.store.remove(own);
      return;
    }
    if (copy === own) return;
    const [taken] = this.list.take(new Set([copy]));
    if (taken === undefined) return;
    unjoin(copy, this.owner);
    adoptCopy(own, copy);
    this.host.removed([copy], [taken[1]]);
  }

  /** Whether the record is in the list (not removed, not an edited record off the page). */
  #listed(record: M): boolean {
    // By the id index (one lookup per edit); a record with no id, or a draft whose id a row of
    // the list also has, by the pending lists.
    const key = idKey(record);
    if (this.list.find(key) === record) return true;
    return (key === undefined || record.phantom) && !this.changes.has(record);
  }

  /**
   * Unlist records: saved ones (`destroy`) kept for the next sync to destroy, the others let go;
   * the store is told (`removed`, then `edited` for a destroy). Returns the records removed.
   */
  take(records: readonly M[], destroy: boolean): M[] {
    const taken = this.list.take(new Set(records));
    // Each kept as if removed one by one (where it stood once the ones before it were out), so that putting them back last first restores the order.
    for (const [k, [record, , at]] of taken.entries()) {
      if (destroy && toDestroy(record)) this.changes.remove(record, at - k);
      else unjoin(record, this.owner);
    }
    const removed = taken.map(([record]) => record);
    if (removed.length > 0) {
      this.host.removed(removed, taken.map(([, shownAt]) => shownAt));
      if (destroy) this.host.edited();
    }
    return removed;
  }

  /** Whether anything waits to be synced (Store.hasChanges). */
  hasChanges(): boolean {
    // The listed records that may be dirty are kept aside: no look at every record per snapshot.
    // Once pruned, no removed record is erased (see toDestroy).
    return this.list.view.anyDirty((record) => belongsTo(record, this.owner)) || this.changes.offPage.some((record) => record.dirty) || this.prune().length > 0;
  }

  /** Take every edit as saved and forget pending removals (Store.commitChanges). */
  commitAll(): void {
    for (const record of this.changes.updated(this.list.all)) record.commit();
    for (const record of this.changes.clear()) unjoin(record, this.owner);
    this.host.changed();
  }

  /** Undo every unsynced change (Store.rejectChanges); `news`: the new records listed. */
  rejectAll(news: readonly M[]): void {
    const unconfirmed: [record: M, at: number][] = [];
    for (const record of news) {
      if (record.saving) continue;
      const index = this.list.all.indexOf(record);
      if (index !== -1) this.list.all.splice(index, 1);
      if (mayExist(record[WRITE_STATE])) unconfirmed.push([record, index]);
      else unjoin(record, this.owner);
    }
    for (const record of [...this.list.all, ...this.changes.offPage]) if (record.dirty) record.reject();
    const restore = this.changes.removed;
    this.changes.clear();
    // Last removed first: each index was taken from the list as it stood at that removal.
    for (const record of [...restore].reverse()) {
      const index = this.changes.removedAt(record) ?? this.list.all.length;
      record.reject();
      // Its destroy may have been applied: it stays removed, and the next sync confirms it.
      if (mayBeGone(record[WRITE_STATE])) this.changes.remove(record, index);
      else this.list.all.splice(index, 0, record); // past the end: at the end
    }
    for (const [record, at] of unconfirmed) this.changes.remove(record, at);
    this.list.reindex();
  }

  /** Let every record go and hold none (the store is destroyed). */
  release(): void {
    this.owner.released?.();
    for (const record of [...this.list.all, ...this.changes.clear()]) unjoin(record, this.owner);
    this.list.all = [];
    this.list.reindex();
    this.list.view.arrange([], [], false);
  }


  /** Records of the store's model made of what is added (records, or objects of values). */
  #toRecords(items: ReadonlyArray<M | ModelInit<DataOf<M>>> | M | ModelInit<DataOf<M>>): M[] {
    const model = this.host.model();
    const list = Array.isArray(items) ? items : [items];
    return list.map((item: unknown) => {
      if (item instanceof model) return item;
      const name = model.getEntityName();
      if (item instanceof Model) throw new TypeError(`Store of ${name}: cannot add a record of ${item.getModelClass().getEntityName()}${dev("; make a record of the store's model instead")}`);
      if (!isPlainObject(item)) throw new TypeError(`Store of ${name}: expected a record or an object of values, got ${describeValue(item)}`);
      return new model(item);
    });
  }

  /**
   * List records at an index (records, or objects of values made into records): those not listed
   * yet, a removed one taken back. Returns the records added; a TypeError for an id already held.
   */
  insert(index: number, items: ReadonlyArray<M | ModelInit<DataOf<M>>> | M | ModelInit<DataOf<M>>): M[] {
    const batch = new Set<M>();
    for (const record of this.#toRecords(items)) {
      if (batch.has(record) || (belongsTo(record, this.owner) && !this.changes.has(record))) continue; // already here
      const key = idKey(record);
      const holder = this.list.find(key);
      if (holder !== undefined && holder !== record) throw new TypeError(`Store of ${this.host.model().getEntityName()}: a record with id ${key} is already in the store`);
      batch.add(record);
    }
    const added = [...batch];
    // A record of another session refused before the session holds any of them.
    const session = this.host.store.session;
    if (session !== undefined) for (const record of [...added.filter((one) => one.session !== undefined && one.session !== session), ...added]) session[HOLD](record, this);
    for (const record of added) this.changes.unremove(record);
    this.changes.offPage = this.changes.offPage.filter((record) => !batch.has(record)); // listed again: pending once
    this.list.insert(index, added);
    for (const record of added) join(record, this.owner);
    return added;
  }

  /**
   * The removed records still to destroy: a new one whose save failed with nothing applied (it
   * was removed while the save ran) has no row, and is let go.
   */
  prune(): M[] {
    for (const record of this.changes.removed.filter((removed) => !toDestroy(removed))) {
      this.changes.unremove(record);
      unjoin(record, this.owner);
    }
    return this.changes.removed;
  }

  /** What a sync sends for (see PendingChanges.pending). */
  pending(): M[] {
    this.prune();
    const pending = this.changes.pending(this.list.all);
    // Nested write (rest-proxy/associations): a clean record whose children changed sends them.
    const owners = extensions.nestedWrite?.owners(this.list.all);
    return owners === undefined || owners.length === 0 ? pending : [...pending, ...owners];
  }

  /**
   * The page as the server sent it: the records listed (also those a local filter hides) and those
   * removed since, back where they stood (the last removed first); new records aside.
   */
  page(): M[] {
    const all = [...this.list.all];
    for (const record of [...this.changes.removed].reverse()) all.splice(this.changes.removedAt(record) ?? all.length, 0, record);
    return all.filter((record) => !record.phantom);
  }

  /** Records of the store's model from what the proxy read. */
  adopt(items: readonly unknown[]): M[] {
    const model = this.host.model();
    const records = items.map((item) => {
      if (item instanceof model) return item;
      if (item instanceof Model) return recordFromServer(model, item.getData());
      if (isPlainObject(item)) return recordFromServer(model, item);
      throw new ProxyError('parse', `the proxy read ${describeValue(item)} where a record was expected`);
    });
    return this.host.store.session?.[ADOPT](model, records, this) ?? records;
  }

  /**
   * A discarding load drops what was pending when it was called: edits made before then are
   * undone now, except in records with a write running or completed since. Returns which records
   * keep their changes (made later, or written).
   */
  #discardCalled(since: SinceLoad<M>, called: NonNullable<SinceLoad<M>['called']>): (record: M) => boolean {
    const written = (record: M): boolean => record.saving || since.written.has(record) || since.created.has(record);
    const removed = new Set(this.changes.removed);
    for (const records of [this.list.all, this.changes.offPage, this.changes.removed]) {
      for (const record of records) if (record.dirty && !record.phantom && !written(record)) rejectEdits(record, called.at);
    }
    return (record) => written(record) || (!called.pending.has(record) && (record.phantom || removed.has(record) || record.dirty));
  }

  /** Merge a load's answer into the store (see mergeLoaded); returns the records it lists now. */
  applyLoad(loaded: M[], options: LoadOptions, since: SinceLoad<M>): M[] {
    const previous = this.list.all;
    const spared = since.called === undefined ? undefined : this.#discardCalled(since, since.called);
    const plan = mergeLoaded<M>(previous, loaded, {
      spared,
      key: idKey,
      isNew: (record) => record.phantom,
      isDirty: (record) => record.dirty,
      removed: this.changes.removed,
      offPage: this.changes.offPage,
      since,
      discard: options.discardChanges === true,
      append: options.addRecords === true,
    });
    for (const record of plan.rejected) rejectEdits(record, Infinity, false); // the server's values follow
    for (const [held, fresh] of plan.updates) takeServerRecord(held, fresh);
    // Indexed loops over what may be 100,000 records, in code that runs once per load (see mergeLoaded).
    const owner = this.owner;
    for (const records of [previous, this.changes.offPage, this.changes.removed]) {
      for (let index = 0; index < records.length; index++) {
        const record = records[index];
        if (record !== undefined && !plan.kept.has(record)) unjoin(record, owner);
      }
    }
    for (const records of [plan.list, plan.offPage, plan.removed]) {
      for (let index = 0; index < records.length; index++) {
        const record = records[index];
        if (record !== undefined) join(record, owner);
      }
    }
    this.list.all = plan.list;
    this.changes.offPage = plan.offPage;
    this.changes.removed = plan.removed;
    this.list.reindex();
    this.host.arrange();
    // The answer's records as the store lists them: held ones instead of their copies, without those left out.
    const dropped = plan.dropped;
    const shown = dropped === undefined ? loaded : loaded.filter((record) => !dropped.has(record));
    const held = new Map(plan.updates.map(([mine, fresh]) => [fresh, mine]));
    return held.size === 0 ? shown : shown.map((record) => held.get(record) ?? record);
  }
}
