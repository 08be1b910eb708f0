/**
 * What Store and ChainedStore share: the records shown, and the finders and aggregates of API.md
 * section 12 over them (one line each over the pure functions of find.ts). They send no request.
 */
import type { DataOf, Model, ModelClass } from '../model/Model.js';
import type { Direction } from '../operation/types.js';
import { dev } from '../util/dev.js';
import { Observable } from '../util/events.js';
import { checkFieldNames } from './fieldNames.js';
import { aggregateOf, collect, each, exactly, fieldTest, indexWhere, matcher, mustBeFunction, perGroup, type AggregateKind, type CollectOptions, type FindOptions, type GroupedOptions, type NumericFieldName, type ScopeOptions } from './find.js';
import type { FieldName } from './options.js';
import { MAKE, type Aggregator, type LiveSummary, type RemoteSummary, type SpecOf, type ValuesOf } from './summaryTypes.js';
import type { RecordView } from './view.js';

/** @internal The records shown, in order (the store's own array: copy before keeping it). */
export const SHOWN: unique symbol = Symbol(dev('rest-proxy.shown'));
/** @internal The records held, shown or not (removed ones aside), in order. */
export const HELD: unique symbol = Symbol(dev('rest-proxy.held'));
/** @internal The server's summary at the last load (a Store sets it). */
export const REMOTE: unique symbol = Symbol(dev('rest-proxy.remote'));
/** @internal The view that shows them (live summaries and chained stores follow it). */
export const VIEW: unique symbol = Symbol(dev('rest-proxy.view'));

/**
 * The server's figures as the RemoteSummary of any model: every field of one is optional and
 * unknown, so any object of figures is one, which TypeScript cannot see through the generic mapped
 * type; the overload says it, and nothing is tested at run time (there is nothing to test).
 */
function figures<M extends Model>(summary: Readonly<Record<string, unknown>> | undefined): RemoteSummary<M> | undefined;
function figures(summary: Readonly<Record<string, unknown>> | undefined): RemoteSummary | undefined {
  return summary;
}

type One = GroupedOptions & { grouped?: false };
type Each = GroupedOptions & { grouped: true };

export abstract class StoreBase<M extends Model, Events extends object> extends Observable<Events> implements Iterable<M> {
  /** The Model class of the records. */
  declare model: ModelClass<M>;
  /** The field the records are grouped by. */
  declare groupField?: FieldName<M> | undefined;
  /** The direction of the groups. */
  declare groupDir: Direction;

  /** @internal */
  abstract [SHOWN](): M[];
  /** @internal */
  abstract [HELD](): readonly M[];
  /** @internal */
  abstract [VIEW](): RecordView<M>;

  /** The record with this id, among all records (also those a local filter hides). */
  abstract getById(id: unknown): M | undefined;

  /** The total the server reported at the last load (a chained store: its count). */
  abstract getTotalCount(): number;

  /** @internal */
  [REMOTE]: Readonly<Record<string, unknown>> | undefined;

  /**
   * The server's summary of the whole collection at the last successful load (the reader's
   * `summaryRootProperty`; a chained store: its source's), frozen; undefined when it had none.
   * Never computed here nor changed by edits: `sum()` and the others cover the records held.
   */
  getRemoteSummary(): RemoteSummary<M> | undefined {
    return figures<M>(this[REMOTE]);
  }

  /** The number of records shown (local filters applied). */
  getCount(): number {
    return this[SHOWN]().length;
  }

  /** The record shown at an index. */
  getAt(index: number): M | undefined {
    return this[SHOWN]()[index];
  }

  /** Where a record is shown, else -1. */
  indexOf(record: M): number {
    return this[SHOWN]().indexOf(record);
  }

  /** The records shown from `start` to `end`, both included (all by default). */
  getRange(start = 0, end?: number): M[] {
    const list = this[SHOWN]();
    const to = end === undefined ? list.length : end + 1;
    // The whole list spread, not sliced: the view's array may be frozen (a snapshot holds it), and V8 slices those slowly.
    return start === 0 && to >= list.length ? [...list] : list.slice(start, to);
  }

  [Symbol.iterator](): Iterator<M> {
    return this[SHOWN]()[Symbol.iterator]();
  }

  // ---- finders (Ext's names; an options object for Ext's flags) ------------------------------

  /** The records a finder sees: those shown, then (`bypassFilter`) those the filters hide. */
  #seen(options: ScopeOptions | undefined): readonly M[] {
    const shown = this[SHOWN]();
    if (options?.bypassFilter !== true) return shown;
    const held = this[HELD]();
    if (held.length === shown.length) return shown;
    const listed = new Set(shown);
    return [...shown, ...held.filter((record) => !listed.has(record))];
  }

  /** `compute` over the records seen, or (`grouped`) over each group's. */
  #per<R>(options: GroupedOptions | undefined, compute: (records: readonly M[]) => R): unknown {
    return perGroup(this.#seen(options), options?.grouped, this.groupField, compute);
  }

  #field(where: string, field: string): string {
    checkFieldNames(this.model, where, [{ property: field }]);
    return field;
  }

  /** A test of records on `field` (checked: `where` names the method in the error) against `value` (find's rules). */
  #match(where: string, field: string, value: unknown, options: FindOptions): (record: M) => boolean {
    return fieldTest(this.#field(where, field), matcher(value, options));
  }

  /** One aggregate of a field over the records seen, or (`grouped`) over each group's. */
  #aggregate(kind: AggregateKind, field: string, options: GroupedOptions | undefined): unknown {
    this.#field(kind, field);
    return this.#per(options, (records) => aggregateOf(kind, records, field));
  }

  /** The index of the first record whose field matches (a string as Ext: begins with it; see FindOptions), else -1. */
  find(field: FieldName<M>, value: unknown, options: FindOptions = {}): number {
    return indexWhere(this.#seen(options), this.#match('find', field, value, options), options.start);
  }

  /** The index of the first record whose field is `value` (SameValueZero, Dates by time), else -1. */
  findExact<F extends FieldName<M>>(field: F, value: DataOf<M>[F], start?: number): number {
    return indexWhere(this[SHOWN](), fieldTest(this.#field('findExact', field), exactly(value)), start);
  }

  /** The index of the first record for which `fn(record, index)` is truthy, else -1. */
  findBy(fn: (record: M, index: number) => unknown, start?: number): number {
    return indexWhere(this[SHOWN](), mustBeFunction('findBy', fn), start);
  }

  /** The first record that `find` finds, else undefined. */
  findRecord(field: FieldName<M>, value: unknown, options: FindOptions = {}): M | undefined {
    const records = this.#seen(options);
    return records[indexWhere(records, this.#match('findRecord', field, value, options), options.start)];
  }

  /** Every record whose field matches (as `find`), in a new array. */
  query(field: FieldName<M>, value: unknown, options: FindOptions = {}): M[] {
    return this.#seen(options).filter(this.#match('query', field, value, options));
  }

  /** Every record for which `fn(record, index)` is truthy, in a new array. */
  queryBy(fn: (record: M, index: number) => unknown, options?: ScopeOptions): M[] {
    return this.#seen(options).filter(mustBeFunction('queryBy', fn));
  }

  /** `fn(record, index)` for each record (over a copy), in order; returning false stops. */
  each(fn: (record: M, index: number) => unknown, options?: ScopeOptions): void {
    each(this.#seen(options), mustBeFunction('each', fn));
  }

  /** The distinct values of a field, in order of first appearance (null and undefined only with `allowNull`). */
  collect<F extends FieldName<M>>(field: F, options?: CollectOptions): Array<DataOf<M>[F]>;
  collect(field: FieldName<M>, options?: CollectOptions): unknown[] {
    return collect(this.#seen(options), this.#field('collect', field), options?.allowNull);
  }

  /** The first record shown (`grouped`: of each group). */
  first(options?: One): M | undefined;
  first(options: Each): Map<unknown, M>;
  first(options?: GroupedOptions): unknown {
    return this.#per(options, (records) => records[0]);
  }

  /** The last record shown (`grouped`: of each group). */
  last(options?: One): M | undefined;
  last(options: Each): Map<unknown, M>;
  last(options?: GroupedOptions): unknown {
    return this.#per(options, (records) => records.at(-1));
  }

  /** Where the record with this id is shown, else -1. */
  indexOfId(id: unknown): number {
    const record = this.getById(id);
    return record === undefined ? -1 : this.indexOf(record);
  }

  // ---- aggregates over the records held (never the server's collection) ----------------------

  /** How many records (with a field: how many have a value there). */
  count(options?: One): number;
  count(options: Each): Map<unknown, number>;
  count(field: FieldName<M>, options?: One): number;
  count(field: FieldName<M>, options: Each): Map<unknown, number>;
  count(fieldOrOptions?: FieldName<M> | GroupedOptions, maybe?: GroupedOptions): unknown {
    return typeof fieldOrOptions === 'string' ? this.#aggregate('count', fieldOrOptions, maybe) : this.#per(fieldOrOptions, (records) => records.length);
  }

  /** The sum of a numeric field's values (no value: 0; a value not a number: TypeError). */
  sum(field: NumericFieldName<M>, options?: One): number;
  sum(field: NumericFieldName<M>, options: Each): Map<unknown, number>;
  sum(field: NumericFieldName<M>, options?: GroupedOptions): unknown {
    return this.#aggregate('sum', field, options);
  }

  /** The mean of a numeric field's values (no value: null). */
  average(field: NumericFieldName<M>, options?: One): number | null;
  average(field: NumericFieldName<M>, options: Each): Map<unknown, number | null>;
  average(field: NumericFieldName<M>, options?: GroupedOptions): unknown {
    return this.#aggregate('average', field, options);
  }

  /** The least value of a field (numbers by value, strings by code point, Dates by time; no value: null). */
  min<F extends FieldName<M>>(field: F, options?: One): NonNullable<DataOf<M>[F]> | null;
  min<F extends FieldName<M>>(field: F, options: Each): Map<unknown, NonNullable<DataOf<M>[F]> | null>;
  min(field: FieldName<M>, options?: GroupedOptions): unknown {
    return this.#aggregate('min', field, options);
  }

  /** The greatest value of a field (as `min`). */
  max<F extends FieldName<M>>(field: F, options?: One): NonNullable<DataOf<M>[F]> | null;
  max<F extends FieldName<M>>(field: F, options: Each): Map<unknown, NonNullable<DataOf<M>[F]> | null>;
  max(field: FieldName<M>, options?: GroupedOptions): unknown {
    return this.#aggregate('max', field, options);
  }

  /**
   * A summary kept current as records are added, removed, edited, rejected, loaded and filtered:
   * `store.summarize({ total: sum('amount'), n: count() })`. Its snapshot changes only when a
   * result does; `destroy()` stops it (so does the store's).
   */
  summarize<S extends Record<string, Aggregator>>(spec: S & SpecOf<M, S>, options?: ScopeOptions): LiveSummary<ValuesOf<M, S>> {
    // Made (and its entries checked) by the engine its aggregators carry.
    const make = Object.values(Object(spec)).find((entry): entry is Aggregator => MAKE in Object(entry))?.[MAKE];
    if (make === undefined) throw new TypeError(`summarize: no aggregator in ${JSON.stringify(Object.keys(Object(spec)))}${dev(" (sum('amount'), count(), ...)")}`);
    return make<M, ValuesOf<M, S>>({ store: this, view: this[VIEW]() }, spec, options?.bypassFilter === true);
  }

  /** `fn(records)` over a copy of the records (`grouped`: of each group's). */
  aggregate<R>(fn: (records: M[]) => R, options?: One): R;
  aggregate<R>(fn: (records: M[]) => R, options: Each): Map<unknown, R>;
  aggregate<R>(fn: (records: M[]) => R, options?: GroupedOptions): unknown {
    mustBeFunction('aggregate', fn);
    return this.#per(options, (records) => fn([...records]));
  }
}
