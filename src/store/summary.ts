/**
 * Live summaries (API.md section 12): `store.summarize({ total: sum('amount'), n: count() })`
 * keeps one result per name, and per group, as records are added, removed, edited, rejected,
 * loaded and filtered. An edit costs what changed: each record's last values are kept, so a
 * change takes the old value out and puts the new one in (min and max scan a group again only
 * when its extreme leaves). This module is reached only through what `sum`, `count`, ... return:
 * an app that imports none of them does not bundle it.
 */
import type { Model } from '../model/Model.js';
import { View, type Subscriber } from '../util/notify.js';
import { describeValue } from '../util/options.js';
import { HELD } from './base.js';
import { checkFieldNames } from './fieldNames.js';
import { before, comparable, isComparable, isNone, numberOf, type Comparable } from './find.js';
import { followersOf, type Follower } from './follow.js';
import { MAKE, type Aggregator, type AggregatorKind, type LiveSummary, type SummaryHost, type SummarySnapshot } from './summaryTypes.js';
import { compareKeys, reader, sortKey, type Read } from './viewKeys.js';

export type { Aggregator, AggregatorKind, LiveSummary, SummarySnapshot };

/** One aggregator's running state over one group's values. */
interface Acc {
  n: number;
  sum: number;
  best: Comparable | null;
  /** The best is gone: scan the group again when read. */
  stale: boolean;
  /** A value of a wrong kind (counted: it may leave again), and the last one seen. */
  bad: number;
  badValue: unknown;
  kind: string | undefined;
}

interface GroupState<M> {
  name: unknown;
  members: Set<M>;
  accs: Acc[];
}

interface Held<M> {
  group: GroupState<M>;
  values: unknown[];
}

const newAcc = (): Acc => ({ n: 0, sum: 0, best: null, stale: false, bad: 0, badValue: undefined, kind: undefined });

const kindOf = (value: unknown): string => (value instanceof Date ? 'Date' : typeof value);

function make<F extends string | undefined, K extends AggregatorKind>(kind: K, field: F): Aggregator<F, K> {
  if (field !== undefined && (typeof field !== 'string' || field === '')) throw new TypeError(`${kind}: the field must be a field name, got ${describeValue(field)}`);
  return Object.freeze({ kind, field, [MAKE]: summarize });
}

/** The sum of a numeric field's values (no value: 0). */
export function sum<F extends string>(field: F): Aggregator<F, 'sum'> {
  return make('sum', field);
}

/** The mean of a numeric field's values (no value: null). */
export function average<F extends string>(field: F): Aggregator<F, 'average'> {
  return make('average', field);
}

/** The least value of a field (no value: null). */
export function min<F extends string>(field: F): Aggregator<F, 'min'> {
  return make('min', field);
}

/** The greatest value of a field (no value: null). */
export function max<F extends string>(field: F): Aggregator<F, 'max'> {
  return make('max', field);
}

/** How many records (with a field: how many have a value there). */
export function count(): Aggregator<undefined, 'count'>;
export function count<F extends string>(field: F): Aggregator<F, 'count'>;
export function count(field?: string): Aggregator<string | undefined, 'count'> {
  return make('count', field);
}

function summarize<M extends Model, V extends object>(host: SummaryHost<M>, spec: Readonly<Record<string, Aggregator>>, bypassFilter: boolean): Summary<M, V> {
  return new Summary<M, V>(host, spec, bypassFilter);
}

/** A summary kept current; `getSnapshot()` is the same object until a value, group or `partial` changes. */
class Summary<M extends Model, V extends object> implements Follower<M>, LiveSummary<V> {
  readonly #host: SummaryHost<M>;
  readonly #names: string[];
  readonly #aggs: Aggregator[];
  readonly #reads: Array<Read<M> | undefined>;
  readonly #bypass: boolean;
  readonly #view: View<SummarySnapshot<V>>;
  #held = new Map<M, Held<M>>();
  #all: GroupState<M> | undefined;
  #groups = new Map<unknown, GroupState<M>>();
  #group: Read<M> | undefined;
  #stale = true;
  #stop: () => void;

  constructor(host: SummaryHost<M>, spec: Readonly<Record<string, Aggregator>>, bypassFilter: boolean) {
    for (const [name, entry] of Object.entries(spec)) {
      if (!(MAKE in Object(entry))) throw new TypeError(`summarize: "${name}" must be an aggregator (sum('amount'), count(), ...), got ${describeValue(entry)}`);
    }
    checkFieldNames(host.store.model, 'summarize', Object.values(spec).flatMap(({ field }) => (field === undefined ? [] : [{ property: field }])));
    this.#host = host;
    this.#names = Object.keys(spec);
    this.#aggs = Object.values(spec);
    this.#reads = this.#aggs.map(({ field }) => (field === undefined ? undefined : reader<M>(field)));
    this.#bypass = bypassFilter;
    this.#view = new View<SummarySnapshot<V>>(() => this.#make(), sameSummary);
    this.#stop = followersOf(host.view).add(this, true);
  }

  /** The results now: `values` per name, `groups` per group name, `partial` while the store holds fewer records than its total. */
  getSnapshot(): SummarySnapshot<V> {
    return this.#view.get();
  }

  /** Hear of each new snapshot (once per synchronous run of changes); returns the function that unsubscribes. */
  subscribe(listener: Subscriber<SummarySnapshot<V>>): () => void {
    return this.#view.add(listener);
  }

  /** Stop following the store (the last snapshot stays). */
  destroy(): void {
    this.#stop();
    this.#view.clear();
    this.#held.clear();
    this.#groups.clear();
  }

  // ---- following the store ---------------------------------------------------------------------

  /** @internal */
  touched(record: M): void {
    if (this.#stale) return;
    const held = this.#held.get(record);
    const counts = this.#counts(record);
    if (held === undefined) {
      if (counts) this.#add(record);
      return;
    }
    if (!counts) {
      this.#remove(record, held);
      return;
    }
    const values = this.#values(record);
    const group = this.#groupOf(record);
    if (group === held.group && values.every((value, i) => sameValue(value, held.values[i]))) return; // nothing read changed
    this.#remove(record, held);
    this.#add(record, values, group);
  }

  /** @internal */
  added(records: readonly M[]): void {
    if (this.#stale) return;
    for (const record of records) if (this.#counts(record) && !this.#held.has(record)) this.#add(record);
  }

  /** @internal */
  removed(records: readonly M[]): void {
    if (this.#stale) return;
    for (const record of records) {
      const held = this.#held.get(record);
      if (held !== undefined) this.#remove(record, held);
    }
  }

  /** @internal */
  reset(retested: boolean): void {
    if (retested && this.#bypass) return;
    this.#stale = true;
    this.#held = new Map();
    this.#view.changed();
  }

  /** @internal */
  release(): void {
    this.destroy();
  }

  #counts(record: M): boolean {
    return this.#bypass || this.#host.view.passes(record);
  }

  #values(record: M): unknown[] {
    return this.#reads.map((read) => (read === undefined ? undefined : read(record)));
  }

  #groupOf(record: M): GroupState<M> | undefined {
    const read = this.#group;
    if (read === undefined) return undefined;
    const value = read(record);
    const key = value instanceof Date ? value.getTime() : value;
    let group = this.#groups.get(key);
    if (group === undefined) this.#groups.set(key, (group = { name: value, members: new Set(), accs: this.#aggs.map(newAcc) }));
    return group;
  }

  #add(record: M, values = this.#values(record), group = this.#groupOf(record)): void {
    const all = this.#all;
    if (all === undefined) return;
    const target = group ?? all;
    this.#held.set(record, { group: target, values });
    all.members.add(record);
    if (group !== undefined) group.members.add(record);
    for (let i = 0; i < values.length; i++) {
      put(all.accs[i], this.#aggs[i], values[i]);
      if (group !== undefined) put(group.accs[i], this.#aggs[i], values[i]);
    }
    this.#view.changed();
  }

  #remove(record: M, held: Held<M>): void {
    const all = this.#all;
    if (all === undefined) return;
    this.#held.delete(record);
    all.members.delete(record);
    const group = held.group === all ? undefined : held.group;
    group?.members.delete(record);
    for (let i = 0; i < held.values.length; i++) {
      take(all.accs[i], this.#aggs[i], held.values[i]);
      if (group !== undefined) take(group.accs[i], this.#aggs[i], held.values[i]);
    }
    // An emptied group leaves.
    if (group !== undefined && group.members.size === 0) this.#groups.delete(keyOf(group.name));
    this.#view.changed();
  }

  /** Every record counted again (a load, a reject, a filter, a sort). */
  #rebuild(): void {
    this.#stale = false;
    const field = this.#host.store.groupField;
    this.#group = field === undefined ? undefined : reader<M>(field);
    this.#groups = new Map();
    this.#all = { name: undefined, members: new Set(), accs: this.#aggs.map(newAcc) };
    const view = this.#host.view;
    const records = this.#bypass ? view.ordered() : view.shown();
    for (const record of records) this.#add(record);
  }

  #results(group: GroupState<M>): V {
    const values: Record<string, unknown> = {};
    this.#names.forEach((name, i) => {
      const acc = group.accs[i];
      const agg = this.#aggs[i];
      if (acc === undefined || agg === undefined) return;
      if (acc.stale) rescan(acc, agg, group, i, this.#held);
      values[name] = result(acc, agg);
    });
    return Object.freeze(values) as V;
  }

  #make(): SummarySnapshot<V> {
    if (this.#stale) this.#rebuild();
    const all = this.#all;
    const store = this.#host.store;
    const dir = store.groupDir === 'DESC' ? -1 : 1;
    const groups = [...this.#groups.values()].sort((a, b) => compareKeys(sortKey(a.name), sortKey(b.name)) * dir);
    return Object.freeze({
      values: all === undefined ? ({} as V) : this.#results(all),
      groups: new Map(groups.map((group) => [group.name, this.#results(group)])),
      partial: store[HELD]().length < store.getTotalCount(),
    });
  }
}

const keyOf = (value: unknown): unknown => (value instanceof Date ? value.getTime() : value);

/** The same value for a summary: SameValueZero, Dates by time. */
function sameValue(a: unknown, b: unknown): boolean {
  const x = keyOf(a);
  const y = keyOf(b);
  return x === y || (x !== x && y !== y);
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
  if (acc.best === null || (agg.kind === 'max' ? before(acc.best, value) : before(value, acc.best))) acc.best = value;
}

function wrong(acc: Acc, value: unknown): void {
  acc.bad++;
  acc.badValue = value;
}

/** A value out of an aggregator's state; an extreme that leaves marks the group for a scan. */
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
  if (acc.bad > 0 || acc.n === 0 || sameValue(value, acc.best)) acc.stale = true;
}

/** min or max of a group scanned again from the values its records hold. */
function rescan<M>(acc: Acc, agg: Aggregator, group: GroupState<M>, i: number, held: Map<M, Held<M>>): void {
  Object.assign(acc, newAcc());
  for (const record of group.members) put(acc, agg, held.get(record)?.values[i]);
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

function sameResults(a: object, b: object): boolean {
  const x = Object.entries(a);
  return x.length === Object.keys(b).length && x.every(([name, value]) => sameValue(value, Reflect.get(b, name)));
}

/** Two summary snapshots that show the same. */
function sameSummary<V extends object>(a: SummarySnapshot<V>, b: SummarySnapshot<V>): boolean {
  if (a.partial !== b.partial || a.groups.size !== b.groups.size || !sameResults(a.values, b.values)) return false;
  const others = [...b.groups];
  let i = 0;
  for (const [name, values] of a.groups) {
    const other = others[i++];
    if (other === undefined || !sameValue(name, other[0]) || !sameResults(values, other[1])) return false;
  }
  return true;
}
