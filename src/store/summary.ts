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
import { followersOf, type Follower } from './follow.js';
import { MAKE, type Aggregator, type AggregatorKind, type LiveSummary, type SummaryHost, type SummarySnapshot } from './summaryTypes.js';
import { sameValue, Tally } from './tally.js';
import { reader, type Read } from './viewKeys.js';
import { compareKeys, sortKey } from '../util/sorting.js';

export type { Aggregator, AggregatorKind, LiveSummary, SummarySnapshot };

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

/**
 * A summary kept current; `getSnapshot()` is the same object until a value, group or `partial`
 * changes. It keeps a tally of every record listed and, while the store filters (and the summary
 * does not bypass it), one of those shown: a filter counts what it shows, and clearing it takes
 * the tally of all again, however many records it had hidden.
 */
class Summary<M extends Model, V extends object> implements Follower<M>, LiveSummary<V> {
  readonly #host: SummaryHost<M>;
  readonly #names: string[];
  readonly #aggs: Aggregator[];
  readonly #reads: Array<Read<M> | undefined>;
  readonly #bypass: boolean;
  readonly #view: View<SummarySnapshot<V>>;
  /** Every record listed, and those shown (undefined: counted again when next read, or not filtered). */
  #every: Tally<M> | undefined;
  #shown: Tally<M> | undefined;
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
    this.#every = this.#shown = undefined;
  }

  // ---- following the store ---------------------------------------------------------------------

  /** @internal */
  touched(record: M): void {
    const every = this.#every;
    const shown = this.#shown;
    if (every === undefined && shown === undefined) return;
    const values = this.#values(record);
    let changed = every?.set(record, values) ?? false;
    if (shown !== undefined) changed = (this.#host.view.passes(record) ? shown.set(record, values) : shown.remove(record)) || changed;
    if (changed) this.#view.changed();
  }

  /** @internal */
  added(records: readonly M[]): void {
    for (const record of records) this.touched(record);
  }

  /** @internal */
  removed(records: readonly M[]): void {
    let changed = false;
    for (const record of records) {
      if (this.#every?.remove(record)) changed = true;
      if (this.#shown?.remove(record)) changed = true;
    }
    if (changed) this.#view.changed();
  }

  /** @internal A load, a reject, a sort, a grouping: counted again when next read; a filter: those shown only. */
  reset(retested: boolean): void {
    if (retested && this.#bypass) return;
    if (!retested) this.#every = undefined;
    this.#shown = undefined;
    this.#view.changed();
  }

  /** @internal */
  release(): void {
    this.destroy();
  }

  #values(record: M): unknown[] {
    const reads = this.#reads;
    const values = new Array<unknown>(reads.length);
    for (let i = 0; i < reads.length; i++) values[i] = reads[i]?.(record);
    return values;
  }

  /** The tally the snapshot shows, counted again where it is not known. */
  #tally(): Tally<M> {
    const view = this.#host.view;
    const field = this.#host.store.groupField;
    const group = field === undefined ? undefined : reader<M>(field);
    const count = (records: readonly M[]): Tally<M> => new Tally<M>(this.#aggs, group, records, (record) => this.#values(record));
    if (this.#bypass || !view.filtering) {
      this.#shown = undefined;
      return (this.#every ??= count(view.ordered()));
    }
    return (this.#shown ??= count(view.shown()));
  }

  #make(): SummarySnapshot<V> {
    const tally = this.#tally();
    const store = this.#host.store;
    const dir = store.groupDir === 'DESC' ? -1 : 1;
    const groups = [...tally.groups.values()].sort((a, b) => compareKeys(sortKey(a.name), sortKey(b.name)) * dir);
    return Object.freeze({
      values: tally.results<V>(tally.all, this.#names),
      groups: new Map(groups.map((group) => [group.name, tally.results<V>(group, this.#names)])),
      partial: store[HELD]().length < store.getTotalCount(),
    });
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
