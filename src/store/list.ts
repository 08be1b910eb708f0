/**
 * The records a store lists, in order, with the ones its local filters show and an index by id
 * (built when first asked for, kept up to date afterwards).
 */
import type { Model } from '../model/Model.js';
import { readField } from '../model/values.js';
import type { Filter, Sorter } from '../operation/types.js';
import { filterItems } from '../util/filtering.js';
import { comparator } from '../util/sorting.js';

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

export class RecordList<M extends Model<object>> {
  /** Every record, in order. */
  all: M[] = [];
  /** The records that pass the local filters, or null when none are set. */
  #view: M[] | null = null;
  #byId: Map<IdKey, M> | null = null;
  /** The records of the view as a set, made when first asked for. */
  #shown: Set<M> | null = null;

  /** The records shown: all of them, or those the local filters keep. */
  get visible(): M[] {
    return this.#view ?? this.all;
  }

  /** Whether the local filters keep a listed record (true when none are set). */
  keeps(record: M): boolean {
    return this.#view === null || (this.#shown ??= new Set(this.#view)).has(record);
  }

  /** The record listed for an id. `except` is left out of an index built now (a record whose id just changed). */
  find(key: IdKey, except?: M): M | undefined {
    if (this.#byId === null) {
      const map = new Map<IdKey, M>();
      for (const record of this.all) {
        const id = record === except ? undefined : idKey(record);
        if (id !== undefined) map.set(id, record);
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

  /** Forget the id index (ids changed, or the list was replaced): built again when next asked for. */
  reindex(): void {
    this.#byId = null;
  }

  /** Insert records at an index (bounded to the list), indexed by id. */
  insert(index: number, records: readonly M[]): void {
    this.all.splice(Math.max(0, Math.min(index, this.all.length)), 0, ...records);
    for (const record of records) this.index(record);
  }

  /**
   * Take records out of the list. Returns each with the index it was shown at (-1 when the local
   * filters hid it) and the index it had in the whole list.
   */
  take(wanted: ReadonlySet<M>): { record: M; shownAt: number; at: number }[] {
    const taken: { record: M; shownAt: number; at: number }[] = [];
    const visible = this.visible;
    // Where each record is shown, found once rather than by a search per removed record.
    const shown = visible === this.all || wanted.size === 1 ? undefined : new Map(visible.map((record, index) => [record, index]));
    const kept: M[] = [];
    this.all.forEach((record, at) => {
      if (!wanted.has(record)) {
        kept.push(record);
        return;
      }
      taken.push({ record, at, shownAt: visible === this.all ? at : (shown?.get(record) ?? visible.indexOf(record)) });
      this.unindex(record);
    });
    if (taken.length > 0) this.all = kept;
    return taken;
  }

  /** Sort the records in place, and make the view of those the filters keep. */
  arrange(sorters: readonly Sorter[], filters: readonly Filter[]): void {
    const valueOf = (record: M, property: string): unknown => readField(record, property);
    if (sorters.length > 0) this.all.sort(comparator(sorters, valueOf));
    this.#view = filters.length === 0 ? null : filterItems(this.all, filters, valueOf);
    this.#shown = null;
  }
}
