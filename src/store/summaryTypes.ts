/** The types of live summaries (API.md section 12), apart from their engine (summary.ts), which only the aggregators reach. */
import type { DataOf, Model } from '../model/Model.js';
import { dev } from '../util/dev.js';
import type { StoreBase } from './base.js';
import type { Comparable, NumericFieldName } from './find.js';
import type { Follower } from './follow.js';
import type { FieldName } from './options.js';
import type { RecordView } from './view.js';

/** @internal What an aggregator makes a live summary with (its engine: the store reaches it only through an aggregator). */
export const MAKE: unique symbol = Symbol(dev('rest-proxy.summarize'));

export type AggregatorKind = 'sum' | 'average' | 'min' | 'max' | 'count';

/** What a summary keeps of a store. */
export interface SummaryHost<M extends Model> {
  readonly view: RecordView<M>;
  readonly store: StoreBase<M, object>;
}

/** What `sum('amount')`, `count()`, ... return: one entry of `store.summarize(spec)`. */
export interface Aggregator<F extends string | undefined = string | undefined, K extends AggregatorKind = AggregatorKind> {
  readonly kind: K;
  readonly field: F;
  /** @internal */
  readonly [MAKE]: <M extends Model, V extends object>(host: SummaryHost<M>, spec: Readonly<Record<string, Aggregator>>, bypassFilter: boolean) => Follower<M> & LiveSummary<V>;
}

/** What `summarize` keeps current: `getSnapshot`, `subscribe` (section 8), `destroy`. */
export interface LiveSummary<V extends object = Record<string, unknown>> {
  getSnapshot(): SummarySnapshot<V>;
  subscribe(listener: (snapshot: SummarySnapshot<V>) => void): () => void;
  destroy(): void;
}

/** The server's figures for the whole collection (`store.getRemoteSummary()`): read, never computed here. */
export type RemoteSummary<M extends Model = Model> = Readonly<Record<string, unknown>> & { readonly [K in FieldName<M>]?: unknown };

/** A live summary's results now. */
export interface SummarySnapshot<V extends object = Record<string, unknown>> {
  /** One result per name. */
  readonly values: Readonly<V>;
  /** The results per group name, in group order (empty when the store is not grouped). */
  readonly groups: ReadonlyMap<unknown, Readonly<V>>;
  /** True while the store holds fewer records than its total (a paged store: the loaded pages only). */
  readonly partial: boolean;
}

/** A spec whose fields the model has (sum and average: numeric ones). */
export type SpecOf<M extends Model, S> = {
  [K in keyof S]: S[K] extends Aggregator<infer F, infer Kind>
    ? Kind extends 'sum' | 'average'
      ? F extends NumericFieldName<M> ? S[K] : Aggregator<NumericFieldName<M>, Kind>
      : F extends FieldName<M> | undefined ? S[K] : Aggregator<FieldName<M>, Kind>
    : Aggregator;
};

/** The result of each name of a spec. */
export type ValuesOf<M extends Model, S> = {
  readonly [K in keyof S]: S[K] extends Aggregator<infer F, infer Kind>
    ? Kind extends 'sum' | 'count' ? number
      : Kind extends 'average' ? number | null
        : F extends FieldName<M> ? NonNullable<DataOf<M>[F]> | null : Comparable | null
    : never;
};
