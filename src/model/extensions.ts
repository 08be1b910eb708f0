/**
 * Where the optional subpaths (`rest-proxy/associations`, `rest-proxy/offline`) plug into the
 * core without the core importing them: each sets its hooks when it is first imported. Unset, a
 * hook costs one property read where the core consults it, so an app that imports neither pays
 * nothing for them.
 */
import type { Batch } from '../operation/Batch.js';
import type { BatchOptions, Proxy } from '../proxy/Proxy.js';
import type { Model } from './Model.js';
import type { ModelClass } from './types.js';

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
  /**
   * Offline: the outbox a record of `model` writes through, when its model is attached to one.
   * (The outbox decides the gate's shape; see src/offline/.)
   */
  outboxOf?: (model: ModelClass<Model<object>>) => object | undefined;
}

/** @internal The hooks set by the subpaths imported so far. */
export const extensions: Extensions = {};
