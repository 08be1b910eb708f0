/**
 * The running state of a live summary over one set of records (summary.ts): each record's last
 * values, and per aggregator and group a sum, a count and an extreme with how many records hold
 * it (ties: min and max scan a group again only when the last record holding the extreme leaves).
 * Reached only through what `sum`, `count`, ... return.
 */
import { before, comparable, isComparable, isNone, numberOf, type Comparable } from './find.js';
import type { Aggregator } from './summaryTypes.js';
import type { Read } from './viewKeys.js';

/** One aggregator's running state over one group's values. */
interface Acc {
  n: number;
  sum: number;
  best: Comparable | null;
  /** How many values equal the best. */
  ties: number;
  /** The best is gone: scan the group again when read. */
  stale: boolean;
  /** A value of a wrong kind (counted: it may leave again), and the last one seen. */
  bad: number;
  badValue: unknown;
  kind: string | undefined;
}

export interface GroupState<M> {
  readonly name: unknown;
  readonly members: Set<M>;
  readonly accs: Acc[];
}

interface Held<M> {
  group: GroupState<M>;
  values: unknown[];
}

const newAcc = (): Acc => ({ n: 0, sum: 0, best: null, ties: 0, stale: false, bad: 0, badValue: undefined, kind: undefined });

const kindOf = (value: unknown): string => (value instanceof Date ? 'Date' : typeof value);

export const keyOf = (value: unknown): unknown => (value instanceof Date ? value.getTime() : value);

/** The same value for a summary: SameValueZero, Dates by time. */
export function sameValue(a: unknown, b: unknown): boolean {
  const x = keyOf(a);
  const y = keyOf(b);
  return x === y || (x !== x && y !== y);
}

/** The records one summary counts (all those listed, or those shown), with their groups. */
export class Tally<M> {
  readonly #held = new Map<M, Held<M>>();
  readonly all: GroupState<M>;
  readonly groups = new Map<unknown, GroupState<M>>();

  constructor(
    readonly aggs: readonly Aggregator[],
    readonly group: Read<M> | undefined,
    records: Iterable<M>,
    values: (record: M) => unknown[],
  ) {
    this.all = { name: undefined, members: new Set(), accs: aggs.map(newAcc) };
    for (const record of records) this.add(record, values(record));
  }

  has(record: M): boolean {
    return this.#held.has(record);
  }

  /** A record counted now with these values (again: its old ones taken out first); whether anything changed. */
  set(record: M, values: unknown[]): boolean {
    const held = this.#held.get(record);
    if (held !== undefined) {
      const group = this.#groupOf(record);
      if (group === held.group && values.every((value, i) => sameValue(value, held.values[i]))) return false; // nothing read changed
      this.#take(record, held);
    }
    this.add(record, values);
    return true;
  }

  add(record: M, values: unknown[]): void {
    const all = this.all;
    const group = this.#groupOf(record);
    this.#held.set(record, { group: group ?? all, values });
    all.members.add(record);
    group?.members.add(record);
    const aggs = this.aggs;
    for (let i = 0; i < values.length; i++) {
      put(all.accs[i], aggs[i], values[i]);
      if (group !== undefined) put(group.accs[i], aggs[i], values[i]);
    }
  }

  /** A record no longer counted; whether it was. */
  remove(record: M): boolean {
    const held = this.#held.get(record);
    if (held !== undefined) this.#take(record, held);
    return held !== undefined;
  }

  #take(record: M, held: Held<M>): void {
    const all = this.all;
    this.#held.delete(record);
    all.members.delete(record);
    const group = held.group === all ? undefined : held.group;
    group?.members.delete(record);
    for (let i = 0; i < held.values.length; i++) {
      take(all.accs[i], this.aggs[i], held.values[i]);
      if (group !== undefined) take(group.accs[i], this.aggs[i], held.values[i]);
    }
    // An emptied group leaves.
    if (group !== undefined && group.members.size === 0) this.groups.delete(keyOf(group.name));
  }

  #groupOf(record: M): GroupState<M> | undefined {
    const read = this.group;
    if (read === undefined) return undefined;
    const value = read(record);
    const key = keyOf(value);
    let group = this.groups.get(key);
    if (group === undefined) this.groups.set(key, (group = { name: value, members: new Set(), accs: this.aggs.map(newAcc) }));
    return group;
  }

  /** A group's results, by name (min or max scanned again where its extreme left). */
  results<V>(group: GroupState<M>, names: readonly string[]): V {
    const values: Record<string, unknown> = {};
    names.forEach((name, i) => {
      const acc = group.accs[i];
      const agg = this.aggs[i];
      if (acc === undefined || agg === undefined) return;
      if (acc.stale) {
        Object.assign(acc, newAcc());
        for (const record of group.members) put(acc, agg, this.#held.get(record)?.values[i]);
      }
      values[name] = result(acc, agg);
    });
    return Object.freeze(values) as V;
  }
}

/** A value into an aggregator's state (no value: nothing; a wrong kind: counted, to throw when read). */
function put(acc: Acc | undefined, agg: Aggregator | undefined, value: unknown): void {
  if (acc === undefined || agg === undefined) return;
  if (agg.kind === 'count' && agg.field === undefined) {
    acc.n++;
    return;
  }
  if (isNone(value)) return;
  acc.n++;
  if (agg.kind === 'count') return;
  const kind = kindOf(value);
  if (agg.kind === 'sum' || agg.kind === 'average') {
    if (typeof value === 'number') acc.sum += value;
    else wrong(acc, value);
    return;
  }
  if (!isComparable(value) || (acc.kind !== undefined && acc.kind !== kind)) {
    wrong(acc, value);
    return;
  }
  acc.kind = kind;
  if (acc.best !== null && sameValue(value, acc.best)) acc.ties++;
  else if (acc.best === null || (agg.kind === 'max' ? before(acc.best, value) : before(value, acc.best))) {
    acc.best = value;
    acc.ties = 1;
  }
}

function wrong(acc: Acc, value: unknown): void {
  acc.bad++;
  acc.badValue = value;
}

/** A value out of an aggregator's state; the last record holding the extreme leaving marks the group for a scan. */
function take(acc: Acc | undefined, agg: Aggregator | undefined, value: unknown): void {
  if (acc === undefined || agg === undefined) return;
  if (agg.kind === 'count' && agg.field === undefined) {
    acc.n--;
    return;
  }
  if (isNone(value)) return;
  acc.n--;
  if (agg.kind === 'count') return;
  if (agg.kind === 'sum' || agg.kind === 'average') {
    if (typeof value === 'number') acc.sum = acc.n === 0 ? 0 : acc.sum - value;
    else acc.bad--;
    return;
  }
  // A wrong kind, or the extreme leaving: scanned again when read (what is left may be all of one kind again).
  if (acc.bad > 0 || acc.n === 0) acc.stale = true;
  else if (sameValue(value, acc.best) && --acc.ties === 0) acc.stale = true;
}

function result(acc: Acc, agg: Aggregator): unknown {
  if (acc.bad > 0) {
    // The TypeError a one-shot aggregate throws, naming the field.
    if (agg.kind === 'sum' || agg.kind === 'average') numberOf(agg.kind, agg.field ?? '', acc.badValue);
    comparable(agg.kind, agg.field ?? '', acc.badValue, acc.kind);
  }
  switch (agg.kind) {
    case 'count': return acc.n;
    case 'sum': return acc.sum;
    case 'average': return acc.n === 0 ? null : acc.sum / acc.n;
    default: return acc.n === 0 ? null : acc.best;
  }
}
