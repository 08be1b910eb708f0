/**
 * Where the optional subpaths (`rest-proxy/associations`, `rest-proxy/offline`) plug into the
 * core without the core importing them: each sets its hooks when it is first imported. Unset, a
 * hook costs one property read where the core consults it, so an app that imports neither pays
 * nothing for them.
 */
import type { FieldErrors } from '../errors/ProxyError.js';
import type { Batch } from '../operation/Batch.js';
import type { Request } from '../operation/Request.js';
import type { RecordLike, RecordWriter } from '../operation/types.js';
import type { BatchOptions, Proxy } from '../proxy/Proxy.js';
import type { Operation } from '../operation/Operation.js';
import type { SyncOptions } from '../store/options.js';
import type { SyncHost } from '../store/sync.js';
import type { Model, PersistOptions, SaveOptions } from './Model.js';
import type { ModelClass } from './types.js';
import { dev } from '../util/dev.js';

/** @internal A session takes a load's records in (Identity). */
export const ADOPT: unique symbol = Symbol(dev('rest-proxy.adopt'));
/** @internal A session holds a record a store lists (Identity). */
export const HOLD: unique symbol = Symbol(dev('rest-proxy.hold'));

/**
 * One record per (model, id) across stores: a `Session` of `rest-proxy/associations`. Its
 * members are internal (symbols the package does not export).
 */
export interface Identity {
  /** @internal A load's records as the session's ones (one per id; nested data read). `from`: the loading store's records (StoreRecords). */
  [ADOPT]<M extends Model>(model: ModelClass<M>, records: M[], from?: object): M[];
  /**
   * @internal A store lists the record: the session holds it (a TypeError for a record of another
   * session). `from`: the store's records (StoreRecords): the store is then the session's, and
   * `session.sync()` sends its pending records (as it does for a store `from` of ADOPT).
   */
  [HOLD](record: Model, from?: object): void;
}

/** What the core asks of an outbox a model is attached to: its records' writes go through it. */
export interface OutboxGate {
  save(record: Model<object>, options: SaveOptions): Promise<Operation>;
  destroy(record: Model<object>, options: PersistOptions): Promise<Operation>;
  /** A store of the model loads (`read`'s answer): the records the outbox restored join it (once per store); rows whose destroy is pending are taken out of the answer. */
  restore<M extends Model<object>>(store: { readonly model: ModelClass<M>; add(records: readonly M[]): unknown; remove(records: readonly M[]): unknown; getById(id: unknown): M | undefined }, read: Operation): void;
  /** Before open() restored its records: resolves once it has (a store that read before then joins them). Undefined after. */
  restoring(): Promise<void> | undefined;
  /** A created record took the place of a copy a load listed (the same row): the copy's writes are the record's. */
  adopted(record: Model<object>, copy: Model<object>): void;
  /** A store's sync of its pending records, through the outbox. */
  sync<M extends Model<object>>(host: SyncHost<M>, options: SyncOptions): Promise<Batch>;
}

/** What the core asks of nested write (rest-proxy/associations, associations/nestedWrite.ts). */
export interface NestedWrite {
  /** The record travels in its parent's body: its own store's sync does not send it. */
  carried(record: Model<object>): boolean;
  /** The saved, clean owner whose body would carry the record, if any (`session.sync()` sends it in that owner's update). */
  carrierOf(record: Model<object>): Model<object> | undefined;
  /** A clean record has such records to send: its save sends an update for them. */
  carries(record: Model<object>): boolean;
  /** The clean records among a store's `records` that carry such records: its sync sends them (an update for them). */
  owners<R extends Model<object>>(records: readonly R[]): R[];
  /** The body of a write of `record` (`data`, as the writer made it) with the records it carries, each made by `writer`; undefined when it carries none. */
  write(record: RecordLike, data: Record<string, unknown>, request: Request, writer: RecordWriter): Record<string, unknown> | undefined;
  /** The record's write failed: so did the records it carried, each with its share of `errors`. */
  fail(record: object, applied: 'no' | 'maybe', errors: FieldErrors | undefined): void;
}

/**
 * What `record.session` is typed as: rest-proxy/associations declares `session: Session` here. A
 * plain interface merges safely; an augmentation of the Model class loses its symbol members in
 * some check orders.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SessionType {}
/** The type of `record.session`: the associations' `Session` once that subpath is imported. */
export type RecordSession = SessionType extends { session: infer S } ? S : Identity;

/**
 * The hooks. Each subpath owns its own members; the core only calls them.
 * @internal
 */
export interface Extensions {
  /**
   * Associations: the identity map a store of `model` uses when its config gives none
   * (`Session.default` for a model with associations; undefined keeps per-store identity).
   */
  defaultSession?: (model: ModelClass<Model<object>>) => Identity | undefined;
  /** Associations: the session that holds a record (`record.session`). */
  sessionOf?: (record: object) => RecordSession | undefined;
  /** Associations: the record of (model, id) the session `Model.load` joins already holds (its ETag goes as If-None-Match). */
  heldFor?: (model: ModelClass<Model>, id: unknown, options: PersistOptions) => Model | undefined;
  /**
   * Associations: a model class is first used (its field table was just built): check and
   * install what it declares. Runs once per class; a throw is the model's first use failing.
   */
  modelReady?: (model: object) => void;
  /**
   * Associations: a write's answer for `record` arrived (`item`: undefined for an answer without
   * one). The records its write carried commit (nested write) and the nested data in `item` is
   * checked, before anything is applied (a throw refuses the answer, nothing committed); returns
   * what reads that data once the record is committed, if anything. `read`: a reload's answer
   * (nothing was carried).
   */
  readAnswer?: (record: object, item: Record<string, unknown> | undefined, read?: true) => (() => void) | undefined;
  /**
   * Associations: the new records that must be created before `record` is written (its phantom
   * parents, through the keys it references). Empty for a record that waits for nothing.
   */
  waitsFor?: (record: Model<object>) => readonly Model<object>[];
  /** Associations: the keys of `record` that wait for a phantom parent, each with that parent (what an outbox stores, to fill them after a reload). */
  referencesOf?: (record: Model<object>) => readonly (readonly [string, Model<object>])[];
  /**
   * Associations, nested write: records that travel in their parent's body (the rails preset's
   * accepts_nested_attributes_for), with no patch of the writer or the record: a custom writer
   * need not call `super` for it, and nothing depends on the order of imports.
   */
  nestedWrite?: NestedWrite;
  /**
   * Associations: the records whose destroy must be sent before `record`'s (its owned children
   * being destroyed). Empty for a record that waits for nothing.
   */
  destroysFirst?: (record: Model<object>) => readonly Model<object>[];
  /**
   * Associations (src/associations/sync.ts): writes in dependency order. `save` saves what a
   * record waits for first (undefined when it waits for nothing; rejects with kind 'dependency'
   * or 'config'); `send` is a store sync's `proxy.batch`, in order, saving first what its records
   * wait for outside it (`proxy`: the store's, for the records given; `held`: the records the
   * sync holds, whose writes it is).
   */
  inOrder?: {
    save(record: Model<object>): Promise<void> | undefined;
    /** The records a sync of `records` writes: with the new parents they need outside them, at any depth (`records` itself when none). */
    reach(records: Model<object>[]): Model<object>[];
    send(records: { create?: readonly Model<object>[]; update?: readonly Model<object>[]; destroy?: readonly Model<object>[] }, options: BatchOptions, proxy: Proxy, held: readonly object[]): Promise<Batch>;
  };
  /** Associations: whether the record's `name` is a foreign key waiting for a new parent (it reads as undefined until the parent is created). Asked only of the names in its model's `recordInfo(record).keys`: add a key there before it can wait. */
  keyWaits?: (record: object, name: string) => boolean;
  /** Offline: the outbox a record of `model` writes through, when its model is attached to one. */
  outboxOf?: (model: ModelClass<Model<object>>) => OutboxGate | undefined;
}

/** @internal The hooks set by the subpaths imported so far. */
export const extensions: Extensions = {};
