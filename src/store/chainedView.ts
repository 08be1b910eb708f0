/**
 * A chained store's view (API.md section 12): a RecordView that knows its source's filter may
 * leave few records, and that a filter of the source cleared again brings back what was shown
 * before it came. Reached only through ChainedStore: an app without one does not bundle it.
 */
import type { Model } from '../model/Model.js';
import type { Filter, Sorter } from '../operation/types.js';
import { groupsOf } from './find.js';
import type { Group } from './options.js';
import { RecordView, type Entry } from './view.js';
import { reader, sameList } from './viewKeys.js';

/** What was shown before the source's filter came (own filters `filters`), and the marks of then. */
interface Undo<M> {
  filters: readonly Filter[];
  shown: M[] | undefined;
  round: number;
  rest: boolean;
  /** The entries marked shown under the source's filter: shown before it too. */
  marked: Entry<M>[];
}

export class ChainedView<M extends Model<object>> extends RecordView<M> {
  /**
   * Marks by round: a shortcut marks the few entries it shows in a new round; an entry not marked
   * in the round in force is shown if `#rest` (no pass over every entry to mark it).
   */
  #round = 0;
  #rest = true;
  /** Kept while nothing changed since the source's filter came. */
  #undo: Undo<M> | undefined;
  /** While arranging: the records the source shows, and the own filters before if the source had none. */
  #within: readonly M[] | undefined;
  #open: readonly Filter[] | undefined;

  /** As RecordView's (`within`: the records the source shows now, after its filters changed). */
  override arrange(sorters: readonly Sorter[], filters: readonly Filter[], force: boolean, also?: (record: M) => boolean, within?: readonly M[]): void {
    this.#within = within;
    this.#open = this.also ? undefined : this.filters;
    try {
      super.arrange(sorters, filters, force, also);
    } finally {
      this.#within = this.#open = undefined;
    }
  }

  /**
   * The records shown, cut by `field` (no cut of the list in its own order, as RecordView's: a
   * record the source inserts is placed among its ties as added last, not where the list has it).
   */
  override groups(field: string): Group<M>[] {
    return groupsOf(this.shown(), reader<M>(field));
  }

  protected override mark(entry: Entry<M>, shown?: boolean): boolean {
    if (shown === undefined) return entry.round === this.#round ? entry.shown : this.#rest;
    entry.round = this.#round;
    return (entry.shown = shown);
  }

  protected override retest(ordered: M[]): void {
    const { test, index } = this;
    const undo = this.#undo;
    this.#undo = undefined;
    if (undo && !this.also && sameList(this.filters, undo.filters)) {
      // The source's filter went, nothing changed since it came: what was shown then, as it was marked.
      this.#round = undo.round;
      this.#rest = undo.rest;
      for (const entry of undo.marked) this.mark(entry, true);
      return super.retest(ordered, undo.shown, true);
    }
    // Few records can pass (those the source shows): those tested and put in order, not every record.
    const within = this.#within;
    const few = test && index && within && !this.byIdentity && within.length * 8 < ordered.length ? inOrder(within.filter(test), index, this.compare) : undefined;
    if (few === undefined || index === undefined) {
      this.#rest = true;
      return super.retest(ordered);
    }
    const open = this.#open;
    const before: Undo<M> = { filters: open ?? [], shown: this.shown(), round: this.#round, rest: this.#rest, marked: [] };
    this.#round++;
    this.#rest = false;
    for (const entry of few) this.mark(entry, true);
    before.marked = few;
    // The source's filter came, own filters the same (some: else all were shown): what was shown is kept for when it goes.
    if (open?.length && this.also && sameList(open, this.filters)) this.#undo = before;
    super.retest(ordered, few.map((entry) => entry.record), true);
  }

  override invalidate(): void {
    this.#undo = undefined;
    super.invalidate();
  }

  override touched(record: M): void {
    this.#undo = undefined;
    super.touched(record);
  }

  override added(records: readonly M[], atEnd: boolean): void {
    this.#undo = undefined;
    super.added(records, atEnd);
  }

  override removed(records: readonly M[]): void {
    this.#undo = undefined;
    super.removed(records);
  }
}

/** The entries of records of the list, in the view's order (undefined: one is not indexed). */
function inOrder<M>(records: M[], index: Map<M, Entry<M>>, compare: ((a: Entry<M>, b: Entry<M>) => number) | undefined): Entry<M>[] | undefined {
  const entries: Entry<M>[] = [];
  for (const record of records) {
    const entry = index.get(record);
    if (entry === undefined) return undefined;
    entries.push(entry);
  }
  return entries.sort(compare);
}
