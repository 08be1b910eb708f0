/**
 * Where the optional subpaths (`rest-proxy/associations`, `rest-proxy/offline`) plug into the
 * core without the core importing them: each sets its hooks when it is first imported. Unset, a
 * hook costs one property read where the core consults it, so an app that imports neither pays
 * nothing for them.
 */
import type { Batch } from '../operation/Batch.js';
import type { Operation } from '../operation/Operation.js';
import type { SyncOptions } from '../store/options.js';
import type { SyncHost } from '../store/sync.js';
import type { Model, PersistOptions, SaveOptions } from './Model.js';
import type { ModelClass } from './types.js';

/** What the core asks of an outbox a model is attached to: its records' writes go through it. */
export interface OutboxGate {
  save(record: Model<object>, options: SaveOptions): Promise<Operation>;
  destroy(record: Model<object>, options: PersistOptions): Promise<Operation>;
  /** A store of the model loads: the records the outbox restored join it (once per store). */
  restore<M extends Model<object>>(store: { readonly model: ModelClass<M>; add(records: readonly M[]): unknown; remove(records: readonly M[]): unknown }): void;
  /** A store's sync of its pending records, through the outbox. */
  sync<M extends Model<object>>(host: SyncHost<M>, options: SyncOptions): Promise<Batch>;
}

/**
 * The hooks. Each subpath owns its own members; the core only calls them.
 * @internal
 */
export interface Extensions {
  /**
   * Associations: the identity map a store of `model` uses when its config gives none
   * (`Session.default` for a model with associations; undefined keeps per-store identity).
   */
  defaultSession?: (model: ModelClass<Model<object>>) => object | undefined;
  /**
   * Associations: the new records that must be created before `record` is written (its phantom
   * parents, through the keys it references). Empty for a record that waits for nothing.
   */
  waitsFor?: (record: Model<object>) => readonly Model<object>[];
  /** Offline: the outbox a record of `model` writes through, when its model is attached to one. */
  outboxOf?: (model: ModelClass<Model<object>>) => OutboxGate | undefined;
}

/** @internal The hooks set by the subpaths imported so far. */
export const extensions: Extensions = {};
