/**
 * The records a store lists, in the order they were added or loaded, with the view its local
 * sorters and filters show (view.ts) and an index by id (built when first asked for, kept up to
 * date afterwards).
 */
import type { Model } from '../model/Model.js';
import { RecordView } from './view.js';

/** An id as a map key: ids equal as strings are the same key (`7` and `'7'`); undefined for no id. */
export type IdKey = string | number;

/**
 * An id as a map key: a number as it is, a string that is a number's own text (`'7'`) as that
 * number, any other string as it is. Numbers hash much faster than strings made for the purpose
 * (a load of 100,000 records keys each one). A composite id (an object or an array) keys by its
 * JSON, a Date by its time, each behind a character no id string starts with.
 */
export function keyOf(id: unknown): IdKey | undefined {
  if (typeof id === 'number') return Number.isNaN(id) ? undefined : id;
  if (id === undefined || id === null || id === '') return undefined;
  if (typeof id === 'object') return `\u0000${id instanceof Date ? id.getTime() : jsonOf(id)}`;
  const text = String(id);
  const number = Number(text);
  return String(number) === text ? number : text;
}

function jsonOf(id: object): string {
  try {
    return JSON.stringify(id);
  } catch {
    return String(id);
  }
}

/** A record's id as a map key; undefined when it has none. */
export function idKey(record: Model<object>): IdKey | undefined {
  return keyOf(record.getId());
}

/** A record taken out of the list: [record, where it was shown (-1: hidden), where it was in the whole list]. */
export type Taken<M> = [record: M, shownAt: number, at: number];

export class RecordList<M extends Model<object>> {
  /** The records, in an object of their own: a session may hold it without the view (whose sorters and filters may hold the store). */
  readonly box: { all: M[] } = { all: [] };
  /** What the local sorters and filters show, kept as records change. */
  readonly view = new RecordView<M>(() => this.all);
  /** By id key (never undefined: a record with no id is not indexed, so no id finds none). */
  #byId: Map<IdKey | undefined, M> | null = null;

  /** Every record, in the order added or loaded. Changed in place: call `arrange(..., true)` after. */
  get all(): M[] {
    return this.box.all;
  }

  set all(records: M[]) {
    this.box.all = records;
    this.view.invalidate();
  }

  /**
   * The record listed for an id. `except` is left out of an index built now (a record whose id
   * just changed). A server row's record before a new record that setId gave the same id. No id
   * (undefined): none.
   */
  find(key: IdKey | undefined, except?: M): M | undefined {
    if (this.#byId === null) {
      const map = new Map<IdKey | undefined, M>();
      for (const record of this.all) {
        const id = record === except ? undefined : idKey(record);
        if (id !== undefined && !(record.phantom && map.has(id))) map.set(id, record);
      }
      this.#byId = map;
    }
    return this.#byId.get(key);
  }

  /** Keep the id index (when built) up to date for one record. */
  index(record: M): void {
    const key = idKey(record);
    if (this.#byId !== null && key !== undefined) this.#byId.set(key, record);
  }

  unindex(record: M): void {
    const key = idKey(record);
    if (this.#byId !== null && key !== undefined && this.#byId.get(key) === record) this.#byId.delete(key);
  }

  /** The record's id may have changed back (a reject): the index, when built and not finding it by its id, is built again when next asked for. */
  recheck(record: M): void {
    const key = idKey(record);
    if (key !== undefined && this.#byId?.get(key) !== record) this.#byId = null;
  }

  /** Forget the id index (ids changed, or the list was replaced): built again when next asked for. */
  reindex(): void {
    this.#byId = null;
  }

  /** Insert records at an index of the list (Store.insert checked it), indexed by id. */
  insert(index: number, records: readonly M[]): void {
    const all = this.all;
    all.splice(index, 0, ...records);
    for (const record of records) this.index(record);
    if (records.length > 0) this.view.added(records, index === all.length - records.length);
  }

  /**
   * Take records out of the list. Returns each as [record, the index it was shown at (-1 when the
   * local filters hid it), the index it had in the whole list].
   */
  take(wanted: ReadonlySet<M>): Taken<M>[] {
    const taken: Taken<M>[] = [];
    const all = this.all;
    const visible = this.view.shown();
    // Where each record is shown, found once rather than by a search per removed record.
    const shown = visible === all || wanted.size === 1 ? undefined : new Map(visible.map((record, index) => [record, index]));
    const kept: M[] = [];
    all.forEach((record, at) => {
      if (!wanted.has(record)) {
        kept.push(record);
        return;
      }
      taken.push([record, visible === all ? at : (shown?.get(record) ?? visible.indexOf(record)), at]);
      this.unindex(record);
    });
    if (taken.length > 0) {
      this.box.all = kept;
      this.view.removed(taken.map(([record]) => record));
    }
    return taken;
  }
}
