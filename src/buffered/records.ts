/**
 * The records a buffered store holds: one record per id across its pages (an index by id), the
 * new records on top, the removed ones still to be destroyed, and what the store hears of its
 * records (the core's owner hooks: an edit, a write's answer, a destroy). A page's records are
 * released when the page goes, unless they hold unsaved changes.
 */
import { Model, recordFromServer, type DataOf, type ModelClass, type ModelInit } from '../model/Model.js';
import { join, META, recordOwner, RELIST, unjoin, type OwnerHooks, type RecordOwner } from '../model/internal.js';
import { takeServerRecord } from '../model/persistence.js';
import { mayBeGone } from '../model/writeState.js';
import { WRITE_STATE } from '../operation/protocol.js';
import { ProxyError } from '../errors/ProxyError.js';
import type { Proxy } from '../proxy/Proxy.js';
import { idKey, keyOf, type IdKey } from '../store/list.js';
import { toDestroy } from '../store/records.js';
import { describeValue, isPlainObject } from '../util/options.js';

/** What the records need of their store. */
export interface RecordsHost<M extends Model> {
  model(): ModelClass<M>;
  proxy(): Proxy | undefined;
  /** Fields of a record were edited (by the user). */
  edited(record: M, names: readonly string[]): void;
  /** Values of a record became the saved ones, or were rejected. */
  committed(record: M, names: readonly string[], operation: 'commit' | 'reject'): void;
  /** The record is gone from the server (destroyed). */
  erased(record: M): void;
  /** Anything visible about the record changed. */
  changed(record: M): void;
  /** Its write ended (saved, or its edits rejected): let it go if no row shows it. */
  settled(record: M): void;
  /** Its destroy was dropped (an outbox entry discarded): its row is back. */
  relisted(record: M): void;
}

/** Whether the record holds something not on the server yet: its page is pinned, and a purge keeps it. */
export function unsaved(record: Model<object>): boolean {
  return record.phantom || record.dirty || record.saving;
}

export class BufferedRecords<M extends Model> {
  /** The records held, by id: those of the cached pages, and those with unsaved changes. */
  readonly byId = new Map<IdKey, M>();
  /**
   * Removed records still to be destroyed, with their server index of this generation: undefined
   * for one removed from the top, -1 for a server row no page of this generation showed yet.
   */
  readonly removed = new Map<M, number | undefined>();
  readonly owner: RecordOwner;
  /** Removed rows this generation's total counts: placed by one of its pages, or known to be among its rows. */
  readonly #counted = new WeakSet<M>();
  /** Rows this generation's total counts, destroyed since, that none of its pages placed. */
  #goneUnplaced = 0;
  /** The records held seen saving: when the write ends, one no row shows is let go. */
  readonly #writing = new WeakSet<M>();

  constructor(readonly host: RecordsHost<M>) {
    const own = (record: object): M | undefined => (record instanceof host.model() ? record : undefined);
    const hooks: OwnerHooks = {
      proxy: () => host.proxy(),
      holds: (id, record) => {
        const key = keyOf(id);
        const holder = key === undefined ? undefined : this.byId.get(key);
        return holder !== undefined && holder !== record;
      },
      afterEdit: (record, names) => {
        const mine = own(record);
        if (mine === undefined) return;
        if (names.includes(host.model().idProperty)) this.reindex();
        host.edited(mine, names);
      },
      afterCommit: (record, names) => {
        const mine = own(record);
        if (mine === undefined) return;
        // A created record now has its server id.
        const key = idKey(mine);
        if (key !== undefined && !this.removed.has(mine)) this.byId.set(key, mine);
        host.committed(mine, names, 'commit');
      },
      afterReject: (record) => {
        const mine = own(record);
        if (mine === undefined) return;
        host.committed(mine, [], 'reject');
        host.settled(mine);
      },
      afterErase: (record) => {
        const mine = own(record);
        if (mine === undefined) return;
        if (this.removed.get(mine) === -1 && this.#counted.has(mine)) this.#goneUnplaced++;
        this.removed.delete(mine);
        this.#forget(mine);
        unjoin(mine, this.owner);
        host.erased(mine);
      },
      afterChange: (record) => {
        const mine = own(record);
        if (mine === undefined) return;
        host.changed(mine);
        // A write ends after its answer is committed: the record is no longer saving.
        if (mine.saving) this.#writing.add(mine);
        else if (this.#writing.delete(mine)) host.settled(mine);
      },
      [RELIST]: (record) => {
        const mine = own(record);
        if (mine !== undefined && this.removed.has(mine)) host.relisted(mine);
      },
    };
    this.owner = recordOwner(hooks);
  }

  #forget(record: M): void {
    const key = idKey(record);
    if (key !== undefined && this.byId.get(key) === record) this.byId.delete(key);
  }

  /** Ids changed: index the records held again. */
  reindex(): void {
    const records = [...this.byId.values()];
    this.byId.clear();
    for (const record of records) this.hold(record);
  }

  /** Hold a record (indexed by id when it has one) and hear of its changes. */
  hold(record: M): void {
    const key = idKey(record);
    if (key !== undefined) this.byId.set(key, record);
    if (record.saving) this.#writing.add(record);
    join(record, this.owner);
  }

  /** Let a record go, unless it has unsaved changes or is removed and still to be destroyed. */
  release(record: M): void {
    if (unsaved(record) || this.removed.has(record)) return;
    this.#forget(record);
    unjoin(record, this.owner);
  }

  /** Let every record go (the store is destroyed). */
  releaseAll(others: Iterable<M>): void {
    for (const record of [...this.byId.values(), ...this.removed.keys(), ...others]) unjoin(record, this.owner);
    this.byId.clear();
    this.removed.clear();
  }

  /**
   * The records of a page read sent at `sentAt`: a row whose id is held updates that record (one
   * record per id; unsaved edits stay on top), unless a write of it completed after the read was sent.
   */
  adopt(items: readonly unknown[], sentAt: number): M[] {
    const model = this.host.model();
    return items.map((item) => {
      const fresh = item instanceof model ? item : item instanceof Model ? recordFromServer(model, item.getData()) : isPlainObject(item) ? recordFromServer(model, item) : undefined;
      if (fresh === undefined) throw new ProxyError('parse', `the proxy read ${describeValue(item)} where a record was expected`);
      const key = idKey(fresh);
      const held = key === undefined ? undefined : this.byId.get(key);
      if (held === undefined) {
        this.hold(fresh);
        return fresh;
      }
      if (!held.saving && (held[META]?.wrote ?? 0) <= sentAt) takeServerRecord(held, fresh);
      return held;
    });
  }

  /** Records of the model made of what is added (records, or objects of values); a TypeError for an id already held. */
  toRecords(items: ReadonlyArray<M | ModelInit<DataOf<M>>> | M | ModelInit<DataOf<M>>): M[] {
    const model = this.host.model();
    const name = model.getEntityName();
    const records = (Array.isArray(items) ? items : [items]).map((item: unknown) => {
      if (item instanceof model) return item;
      if (item instanceof Model) throw new TypeError(`BufferedStore of ${name}: cannot add a record of ${item.getModelClass().getEntityName()}`);
      if (!isPlainObject(item)) throw new TypeError(`BufferedStore of ${name}: expected a record or an object of values, got ${describeValue(item)}`);
      return new model(item);
    });
    for (const record of records) {
      const key = idKey(record);
      const holder = key === undefined ? undefined : this.byId.get(key);
      if (holder !== undefined && holder !== record) throw new TypeError(`BufferedStore of ${name}: a record with id ${key} is already in the store`);
    }
    return records;
  }

  /**
   * Mark a record removed: kept for the next sync to destroy when it is on the server. Returns
   * whether it is kept. `counted`: the server's total counts its row (by default, when placed).
   */
  remove(record: M, server: number | undefined, counted = server !== undefined && server >= 0): boolean {
    if (!toDestroy(record)) {
      this.#forget(record);
      unjoin(record, this.owner);
      return false;
    }
    this.removed.set(record, server);
    if (counted) this.#counted.add(record);
    else this.#counted.delete(record);
    return true;
  }

  /** A page of this generation shows the removed row at server index `at`. */
  place(record: M, at: number): void {
    this.removed.set(record, at);
    this.#counted.add(record);
  }

  /** Rows the server's total counts, removed or destroyed since, that no page placed (the local offsets leave out the others). */
  unplaced(): number {
    let count = this.#goneUnplaced;
    // Read by every getCount (a grid's getRange too): no walk when nothing is removed.
    if (this.removed.size === 0) return count;
    for (const [record, at] of this.removed) if (at === -1 && this.#counted.has(record)) count++;
    return count;
  }

  /**
   * A new generation: no removed row is placed. The server counts those it counted before when it
   * reads the same rows (`same`), and every one when it reads all rows (`all`: no filter).
   */
  renumber(same: boolean, all: boolean): void {
    this.#goneUnplaced = 0;
    for (const [record, at] of this.removed) {
      if (all || (same && at !== undefined && this.#counted.has(record))) this.#counted.add(record);
      else this.#counted.delete(record);
      this.removed.set(record, -1);
    }
  }

  /** Forget the pending removals (taken as done: their rows stay out); returns the records. */
  forgetRemoved(): M[] {
    this.#goneUnplaced = this.unplaced();
    const removed = [...this.removed.keys()];
    this.removed.clear();
    return removed;
  }

  /** The removed records still to destroy (a new one whose create failed with nothing applied is let go). */
  prune(): M[] {
    for (const record of [...this.removed.keys()]) {
      if (toDestroy(record)) continue;
      this.removed.delete(record);
      this.#forget(record);
      unjoin(record, this.owner);
    }
    return [...this.removed.keys()];
  }

  /** Saved records with unsaved edits (not removed). */
  updated(): M[] {
    return [...this.byId.values()].filter((record) => !record.phantom && record.dirty && !record.erased && !this.removed.has(record));
  }

  /**
   * Undo the removals: each removed record back (its edits undone) with its server index, unless
   * its destroy may have been applied (it stays removed; the next sync confirms it).
   */
  restore(): [M, number | undefined][] {
    const back: [M, number | undefined][] = [];
    for (const [record, server] of [...this.removed]) {
      record.reject();
      if (mayBeGone(record[WRITE_STATE])) continue;
      this.removed.delete(record);
      back.push([record, server]);
    }
    return back;
  }
}
