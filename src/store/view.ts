/**
 * The store's ordered, filtered view, kept incrementally (API.md section 8: a snapshot costs what
 * changed). A change says which record changed; the view moves that one record by binary search,
 * re-tests it against the local filters, and hands a snapshot the records already in order: a new
 * array when something shown changed, the same array otherwise. Sort keys are converted once per
 * record and sorter; ties keep the order the records were added or loaded in.
 */
import type { Model } from '../model/Model.js';
import { readField } from '../model/values.js';
import type { Filter, Sorter } from '../operation/types.js';
import type { Group } from './options.js';
import { valueTest } from '../util/filtering.js';
import { groupsOf } from './find.js';
import type { Followers } from './follow.js';
import { reader, sameItems, sameList } from './viewKeys.js';
import { compareKeys, sortKey } from '../util/sorting.js';
import { moveItem } from '../util/arrays.js';

/** What the view knows of a listed record: where it came (ord), whether it is shown, its sort keys, where it was last seen in the view's arrays. */
export interface Entry<M> {
  readonly record: M;
  readonly ord: number;
  shown: boolean;
  /** When `shown` was marked (a chained store's view: chainedView.ts). */
  round?: number;
  /** The first sort key (read at each step of a search: no array to go through), and all of them when there are several (else none). */
  key: unknown;
  keys: readonly unknown[];
  at: number;
  shownAt: number;
}

export class RecordView<M extends Model<object>> {
  #sorters: readonly Sorter[] = [];
  protected filters: readonly Filter[] = [];
  /** Set while sorted or filtered locally: the comparator (keys, then ord), the keys of a record, the filters' test. */
  protected compare: ((a: Entry<M>, b: Entry<M>) => number) | undefined;
  #keysOf: (record: M) => unknown[] = () => [];
  protected test: ((record: M) => boolean) | undefined;
  /** A sorter with a function: its keys cannot be kept, so a record is found by identity. */
  protected byIdentity = false;
  /** The records in order (undefined: not sorted, the list's own order), and those shown (undefined: all of them). */
  #ordered: M[] | undefined;
  #shown: M[] | undefined;
  /** The entries of the last sort, in order, and the index of every listed record (built at the first change). */
  #entries: Entry<M>[] | undefined;
  protected index: Map<M, Entry<M>> | undefined;
  #nextOrd = 0;
  /** Made again from the list when next read (a load, a reject, records inserted in the middle). */
  #stale = true;
  #rebuilt = false;
  /** Records changed since the view was last read. */
  readonly #pending = new Set<M>();
  /** Whether what is shown changed since the last copy handed to a snapshot. */
  #changed = true;
  #copy: readonly M[] | undefined;
  /** Records that were dirty when last seen (undefined: not known, the list is read when asked). */
  #dirty: Set<M> | undefined;

  /** Who else hears of each change (live summaries, chained stores). */
  followers: Followers<M> | undefined = undefined;
  protected also: ((record: M) => boolean) | undefined;

  constructor(readonly all: () => M[]) {}

  /**
   * Sort and filter by these (all applied locally; `also`: a test the filters add, a chained
   * store's source's). Unless `force`, the same sorters and filters change nothing. New filters
   * under the same sorters keep the order known: one pass, no sort (API.md section 12).
   */
  arrange(sorters: readonly Sorter[], filters: readonly Filter[], force: boolean, also?: (record: M) => boolean): void {
    const sameSort = sameList(sorters, this.#sorters);
    const sameTest = sameList(filters, this.filters) && also === this.also;
    if (!force && !this.#stale && sameSort && sameTest) return;
    this.also = also;
    this.#sorters = sorters;
    this.filters = filters;
    const reads = sorters.map((sorter) => (sorter.sorterFn ? undefined : reader<M>(sorter.property)));
    this.#keysOf = (record) => reads.map((read) => read && sortKey(read(record)));
    this.byIdentity = sorters.some((sorter) => sorter.sorterFn);
    const dirs = sorters.map((sorter) => (sorter.direction === 'DESC' ? -1 : 1));
    const [first] = sorters;
    const dir = dirs[0] ?? 1;
    this.compare = sorters.length + filters.length === 0 && !also ? undefined : sorters.length === 1 && !first?.sorterFn ? (a, b) => compareKeys(a.key, b.key) * dir || a.ord - b.ord : (a, b) => {
      for (let i = 0; i < sorters.length; i++) {
        const fn = sorters[i]?.sorterFn;
        const result = fn ? fn(a.record, b.record) : compareKeys(a.keys[i], b.keys[i]);
        if (result !== 0) return result * (dirs[i] ?? 1);
      }
      return a.ord - b.ord;
    };
    const tests = filters.map((filter): ((record: M) => boolean) => {
      const test = valueTest(filter);
      const read = filter.filterFn ? (record: M) => readField(record, filter.property) : reader<M>(filter.property);
      return (record) => test(read(record), record);
    });
    if (also) tests.unshift(also);
    this.test = tests.length === 0 ? undefined : tests.length === 1 ? tests[0] : (record) => tests.every((test) => test(record));
    if (sameSort && !sameTest && !this.#stale && this.#pending.size === 0 && this.#ordered !== undefined) this.retest(this.#ordered);
    else this.invalidate();
  }

  /** The sorters in force (the order a chained store without its own takes). */
  get sorters(): readonly Sorter[] {
    return this.#sorters;
  }

  /** The list changed in a way the view was not told: made again when next read. */
  invalidate(): void {
    this.#stale = true;
    this.#dirty = undefined;
    this.followers?.reset(false);
  }

  /** Whether some records may be hidden (filters, or a chained store's source's). */
  get filtering(): boolean {
    return this.test !== undefined;
  }

  /** Whether the filters pass a record (it is shown if listed). */
  passes(record: M): boolean {
    return this.test?.(record) ?? true;
  }

  /** The filters changed, not the order: the records in order filtered again, or `shown` (and `marked`) as found otherwise (chainedView.ts); an index made already marks what is shown, where it finds by search. */
  protected retest(ordered: M[], shown = this.test && ordered.filter(this.test), marked?: boolean): void {
    // Marked from the records shown: the filters run once per record, not twice.
    if (this.index !== undefined && !marked) this.#markShown(this.index, shown);
    this.#shown = shown;
    this.#changed = true;
    this.followers?.reset(true);
  }

  /** Every entry of `index` marked shown if among `shown` (all: undefined), and where it is there. */
  #markShown(index: Map<M, Entry<M>>, shown: readonly M[] | undefined): void {
    for (const entry of index.values()) this.mark(entry, !shown);
    shown?.forEach((record, at) => {
      const entry = index.get(record);
      if (entry === undefined) return;
      this.mark(entry, true);
      entry.shownAt = at;
    });
  }

  /** Whether a record is shown, by its entry (`shown`: marked so first). */
  protected mark(entry: Entry<M>, shown?: boolean): boolean { return (entry.shown = shown ?? entry.shown); }

  /** The records shown, in order (the view's own array: copy before keeping it). */
  shown(): M[] {
    try {
      // Several records changed under a sorter function: each may be out of place for the others.
      if (this.#stale || (this.byIdentity && this.#pending.size > 1)) this.#rebuild();
      else if (this.#pending.size > 0) this.#update();
    } catch (error) {
      // A sorter or filter function threw: made again from the list when next read.
      this.#stale = true;
      throw error;
    }
    return this.#shown ?? this.#ordered ?? this.all();
  }

  /** Every listed record, in order (those the filters hide too). */
  ordered(): M[] {
    this.shown();
    return this.#ordered ?? this.all();
  }

  /** The records shown, for a snapshot: a new frozen array when something shown changed, else the last one. */
  records(): readonly M[] {
    const shown = this.shown();
    let records = this.#copy;
    if (this.#changed || records === undefined || (this.#rebuilt && !sameItems(records, shown))) {
      // The view's own array is handed over as it is (and copied before its next change); the list's is copied.
      // A record in it changed: a new array all the same (the one handed over last is kept as it was).
      records = Object.freeze(shown === this.all() ? shown.slice() : shown === records ? this.#own(shown) : shown);
    }
    this.#copy = records;
    this.#changed = false;
    this.#rebuilt = false;
    return records;
  }

  /** The records shown, by the value of `field` (Dates by time), in the order each value first comes. */
  groups(field: string): Group<M>[] {
    const shown = this.shown();
    const read = reader<M>(field);
    const [first, more] = this.#sorters;
    // Sorted by this field alone, none hidden: cut from the list in its own order (each record read
    // where it lies in memory, not in the view's order), the groups then put in the view's order
    // (as it puts ties: the first to come first), when their sort keys are of one kind (keys of
    // several kinds compare as text, which the view's sort may have done in another order).
    const groups = !more && !this.test && first?.property === field && !first.sorterFn ? groupsOf(this.all(), read) : [];
    const kinds = new Set(groups.map(({ name }) => typeof sortKey(name)));
    kinds.delete('undefined');
    return kinds.size === 1 ? groups.sort((a, b) => compareKeys(sortKey(a.name), sortKey(b.name)) * (first?.direction === 'DESC' ? -1 : 1)) : groupsOf(shown, read);
  }

  /** Whether a record held is dirty, not erased and `held` (a record the store still holds). */
  anyDirty(held: (record: M) => boolean): boolean {
    let dirty = this.#dirty;
    dirty ??= this.#dirty = new Set(this.all().filter((record) => record.dirty));
    for (const record of dirty) {
      if (record.dirty && !record.erased && held(record)) return true;
      dirty.delete(record);
    }
    return false;
  }

  /** Something visible about a record changed (its values, its state). */
  touched(record: M): void {
    this.followers?.touched(record);
    if (this.#dirty !== undefined && record.dirty) this.#dirty.add(record);
    if (this.compare === undefined || this.#stale) this.#changed = true;
    else this.#pending.add(record);
  }

  /** Records were added to the list: at its end (`atEnd`), or elsewhere. */
  added(records: readonly M[], atEnd: boolean): void {
    this.followers?.added(records);
    for (const record of records) this.touched(record);
    const index = this.#each(!atEnd || records.length > 16);
    if (index === undefined) return;
    for (const record of records) {
      const entry = entryOf(record, this.#nextOrd++, this.#keysOf(record), 0);
      this.mark(entry, this.test?.(record) ?? true);
      index.set(record, entry);
      this.#pending.delete(record);
      if (this.#ordered) this.#own(this.#ordered).splice((entry.at = this.#search(this.#ordered, entry)), 0, record);
      if (this.#shown && entry.shown) this.#own(this.#shown).splice((entry.shownAt = this.#search(this.#shown, entry)), 0, record);
    }
  }

  /** Records were taken out of the list. */
  removed(records: readonly M[]): void {
    this.followers?.removed(records);
    const index = this.#each(records.length > 16);
    if (index === undefined) return;
    for (const record of records) {
      const entry = index.get(record);
      // Not indexed (the index was made after it left the list): found by identity.
      for (const array of [this.#ordered, entry !== undefined && !this.mark(entry) ? undefined : this.#shown]) {
        const at = array === undefined ? -1 : entry === undefined ? array.indexOf(record) : this.#locate(array, entry, array !== this.#ordered);
        if (array !== undefined && at !== -1) this.#own(array).splice(at, 1);
      }
      index.delete(record);
      this.#pending.delete(record);
    }
  }

  /** Records were added or removed: the index to place them by, else none (unsorted and unfiltered, or `many`: made again when next read). */
  #each(many: boolean): Map<M, Entry<M>> | undefined {
    this.#changed = true;
    return this.compare === undefined || this.#stale || (this.#stale = many) ? undefined : this.#indexed();
  }

  #rebuild(): void {
    const all = this.all();
    this.#stale = false;
    this.#rebuilt = true;
    this.#pending.clear();
    this.index = undefined;
    this.#nextOrd = all.length;
    const keysOf = this.#keysOf;
    // Sorted: the entries compared (sorters make a comparator), one array made per pass.
    const entries = this.#sorters.length > 0 ? all.map((record, ord) => entryOf(record, ord, keysOf(record), ord)).sort(this.compare) : undefined;
    this.#entries = entries;
    this.#ordered = entries?.map((entry) => entry.record);
    this.#shown = this.test && (this.#ordered ?? all).filter(this.test);
  }

  /** Every listed record's entry, made at the first change after a rebuild. */
  #indexed(): Map<M, Entry<M>> {
    if (this.index !== undefined) return this.index;
    const index = new Map<M, Entry<M>>();
    const all = this.all();
    const entries = this.#entries ?? all.map((record, ord) => entryOf(record, ord, NONE, ord));
    entries.forEach((entry, at) => {
      entry.at = at;
      index.set(entry.record, entry);
    });
    // Marked from what is shown, not walked beside the list: a record may have left the list
    // already (the index is made at the first change, which can be its removal).
    if (this.#shown !== undefined) this.#markShown(index, this.#shown);
    this.#nextOrd = Math.max(this.#nextOrd, all.length);
    return (this.index = index);
  }

  /** Each changed record moved to its place, and shown or hidden by the filters. */
  #update(): void {
    const index = this.#indexed();
    for (const record of this.#pending) {
      const entry = index.get(record);
      if (entry === undefined) continue; // not listed (removed, or off the page)
      const keys = this.#keysOf(record);
      const show = this.test?.(record) ?? true;
      const wasShown = this.mark(entry);
      const moved = this.#ordered !== undefined && (this.byIdentity || keys.some((key, i) => compareKeys(key, i === 0 ? entry.key : entry.keys[i]) !== 0));
      if (wasShown || show) this.#changed = true;
      if (!moved && wasShown === show) {
        setKeys(entry, keys);
        continue;
      }
      const ordered = this.#ordered;
      const from = ordered !== undefined && moved ? this.#locate(ordered, entry, false) : -1;
      const shownAt = this.#shown !== undefined && wasShown ? this.#locate(this.#shown, entry, true) : -1;
      setKeys(entry, keys);
      this.mark(entry, show);
      if (ordered !== undefined && from !== -1) entry.at = this.#move(this.#own(ordered), from, entry);
      if (this.#shown === undefined) continue;
      const shown = this.#own(this.#shown);
      if (shownAt !== -1 && show) entry.shownAt = this.#move(shown, shownAt, entry);
      else if (shownAt !== -1) shown.splice(shownAt, 1);
      else if (show) shown.splice((entry.shownAt = this.#search(shown, entry)), 0, record);
    }
    this.#pending.clear();
  }

  /** An array of the view to change: copied first if a snapshot holds it (frozen: copy on write). */
  #own(array: M[]): M[] {
    if (!Object.isFrozen(array)) return array;
    // Spread, not slice: slicing a frozen array takes V8's slow path (about 50 times slower).
    const copy = [...array];
    if (array === this.#shown) this.#shown = copy;
    else if (array === this.#ordered) this.#ordered = copy;
    return copy;
  }

  /** Move the record at `from` to its place by its entry; where it went. */
  #move(array: M[], from: number, entry: Entry<M>): number {
    const to = this.#search(array, entry, false, from);
    moveItem(array, from, to);
    return to;
  }

  /** Where a record is in an array of the view (`inShown`: the records shown), near where it was last seen, or found by its keys as they were when placed. */
  #locate(array: M[], entry: Entry<M>, inShown: boolean): number {
    // Each record moved, added or removed since shifts it by one at most.
    const seen = inShown ? entry.shownAt : entry.at;
    for (let i = 0; i < 64; i++) {
      if (array[seen + i] === entry.record) return seen + i;
      if (seen >= i && array[seen - i] === entry.record) return seen - i;
    }
    const at = this.byIdentity ? -1 : this.#search(array, entry, true);
    return array[at] === entry.record ? at : array.indexOf(entry.record);
  }

  /** The first index whose entry comes after `entry` (`atOrAfter`: not before it), in the array without index `skip`. */
  #search(array: M[], entry: Entry<M>, atOrAfter = false, skip = array.length): number {
    const compare = this.compare;
    const index = this.index;
    if (compare === undefined || index === undefined) return array.length;
    let low = 0;
    let high = skip < array.length ? array.length - 1 : array.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const other = array[mid < skip ? mid : mid + 1];
      const there = other === undefined ? undefined : index.get(other);
      const order = there === undefined ? 1 : compare(there, entry);
      if (order < 0 || (order === 0 && !atOrAfter)) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

const NONE: readonly unknown[] = [];

function entryOf<M>(record: M, ord: number, keys: readonly unknown[], at: number): Entry<M> {
  return setKeys({ record, ord, shown: true, key: undefined, keys: NONE, at, shownAt: 0 }, keys);
}

function setKeys<M>(entry: Entry<M>, keys: readonly unknown[]): Entry<M> {
  entry.key = keys[0];
  entry.keys = keys.length > 1 ? keys : NONE;
  return entry;
}
