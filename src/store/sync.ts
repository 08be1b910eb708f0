/**
 * How a store syncs: one sync after the other; each first waits for the writes in flight of the
 * records it would send (a save of one of them, another store's sync), then sends what is still
 * pending, so that a sync that resolves has sent every change made before it was called.
 */
import { BatchError } from '../errors/BatchError.js';
import { extensions } from '../model/extensions.js';
import type { Model } from '../model/Model.js';
import { claimWrites, editedSinceApplied, ignore, unwatchSends } from '../model/save.js';
import { holdInvalid } from '../model/validate.js';
import { mayExist } from '../model/writeState.js';
import { Batch } from '../operation/Batch.js';
import type { Operation } from '../operation/Operation.js';
import { WRITE_STATE } from '../operation/protocol.js';
import type { BatchOptions, Proxy } from '../proxy/Proxy.js';
import type { SyncOptions } from './options.js';
import { dev } from '../util/dev.js';

/** What a sync needs of its store. */
export interface SyncHost<M extends Model<object>> {
  /** The records with unsynced changes now: new, edited (listed or off the page) and removed ones. */
  pending(): M[];
  /** The records removed and still to be destroyed. */
  removed(): readonly M[];
  proxy(): Proxy;
  /** `beforesync`: false cancels the sync. */
  before(create: M[], update: M[], destroy: M[]): boolean;
  /** An operation of the sync succeeded. */
  wrote(operation: Operation): void;
  /** The sync sent its batch; `error` when an operation of it failed. */
  ended(batch: Batch, error: BatchError | undefined): void;
  /** Whether a sync runs changed. */
  changed(): void;
}

/** What a sync sends for these records: creates, updates and destroys. */
export function planSync<M extends Model<object>>(records: readonly M[], removed: ReadonlySet<M>): { create: M[]; update: M[]; destroy: M[] } {
  const create: M[] = [];
  const update: M[] = [];
  const destroy: M[] = [];
  // With rest-proxy/associations: records that travel in their parent's body are not sent here.
  const nested = extensions.nestedWrite;
  for (const record of records) {
    if (record.erased || nested?.carried(record) === true) continue;
    const state = record[WRITE_STATE];
    if (removed.has(record)) {
      // Removed while its create may have been applied: created (confirmed) first, then destroyed.
      if (mayExist(state)) create.push(record);
      if (!record.phantom || mayExist(state)) destroy.push(record);
    } else if (record.phantom) create.push(record);
    else if (record.dirty || nested?.carries(record) === true) update.push(record); // a clean one: its children changed (nested write)
  }
  return { create, update, destroy };
}

/** @internal Store[SHARED]: a session's sync writes the store's records. */
export const SHARED: unique symbol = Symbol(dev('rest-proxy.shared'));

/** A sync of others writing a store's records: `before` asks the store's `beforesync` (false: leave them out, then `end`), `wrote` per operation of them that succeeded, `end` once. */
export interface SyncShare<M extends Model<object> = Model<object>> {
  before(create: M[], update: M[], destroy: M[]): boolean;
  wrote(operation: Operation): void;
  end(batch: Batch, error: BatchError | undefined): void;
}


export class Syncs<M extends Model<object>> {
  #chain: Promise<unknown> = Promise.resolve();
  #running = 0;

  constructor(private readonly host: SyncHost<M>) {}

  /** True while a sync runs. */
  get running(): boolean {
    return this.#running > 0;
  }

  /** A sync of others writes the store's records: it runs (syncing) until `end`. */
  share(): SyncShare<M> {
    this.#running++;
    this.host.changed();
    return {
      before: this.host.before,
      wrote: this.host.wrote,
      end: (batch, error) => {
        this.#running--;
        this.host.ended(batch, error);
        this.host.changed();
      },
    };
  }

  /** Run a sync after the ones before it. */
  run(options: SyncOptions): Promise<Batch> {
    // Through an outbox (rest-proxy/offline): stored in this run, in order per record there.
    const first = extensions.outboxOf && this.host.pending()[0];
    const gate = first && extensions.outboxOf?.(first.getModelClass());
    if (gate) return gate.sync(this.host, options);
    const run = this.#chain.then(() => this.#once(options));
    this.#chain = run.catch(ignore);
    return run;
  }

  /** Update the records a replayed create left dirty (not removed meanwhile), in `batch`: one Batch tells all a sync sent. */
  async #followUp(batch: Batch, replayable: readonly M[], sent: ReadonlySet<object>, options: BatchOptions): Promise<void> {
    const removed = new Set(this.host.removed());
    const left = replayable.filter((record) => !record.phantom && !record.erased && record.dirty && !removed.has(record));
    if (left.length === 0 || !this.host.before([], left, [])) return;
    // A load's copy a record took the place of, written by this sync: its write has ended.
    for (const record of left) unwatchSends(record, sent);
    const followUp = await this.host.proxy().batch({ update: left }, options);
    batch.operations.push(...followUp.operations);
    batch.exceptions.push(...followUp.exceptions);
    batch.unsent.push(...followUp.unsent);
    batch.isComplete = followUp.isComplete;
    batch.isPaused = followUp.isPaused;
  }

  async #once(options: SyncOptions): Promise<Batch> {
    // An option left undefined takes the Batch's default.
    const empty = (): Promise<Batch> => new Batch({ concurrency: options.concurrency, pauseOnException: options.pauseOnException }).run([], () => Promise.resolve());
    const candidates = this.host.pending();
    if (candidates.length === 0) return empty();
    let finish = ignore;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    this.#running++;
    this.host.changed();
    try {
      // Their writes in flight first: a save of one of them, or another store's sync. With
      // rest-proxy/associations, the new parents they need are taken with them, at once.
      const order = extensions.inOrder;
      const held = order?.reach(candidates) ?? candidates;
      const waits = claimWrites(held, done);
      if (waits.length > 0) await Promise.all(waits);
      const removed = new Set(this.host.removed());
      const { create, update, destroy } = planSync(candidates, removed);
      // Invalid new and edited records are not sent: each fails alone, and stays pending.
      const invalid = holdInvalid(create, update, removed);
      const sending = create.length + update.length + destroy.length > 0;
      if ((!sending && invalid.length === 0) || (sending && !this.host.before(create, update, destroy))) return await empty();
      // A create re-sent under its key after an edit may be answered for its first try (the
      // server replays it): the edits made since are then not in the row, and this sync sends
      // them after it (edits made while it runs wait for the next sync, as on a first try).
      const replayable = create.filter((record) => !removed.has(record) && editedSinceApplied(record));
      const batchOptions = { ...options, onOperationComplete: (operation: Operation) => operation.wasSuccessful() && this.host.wrote(operation) };
      // With rest-proxy/associations: parents first, at any depth, across stores.
      const records = { create, update, destroy };
      const proxy = this.host.proxy();
      const batch = sending ? await (order?.send(records, batchOptions, proxy, held) ?? proxy.batch(records, batchOptions)) : await empty();
      if (replayable.length > 0 && !batch.hasException()) await this.#followUp(batch, replayable, new Set(candidates), batchOptions);
      batch.operations.push(...invalid);
      batch.exceptions.push(...invalid);
      const error = batch.hasException() ? new BatchError(batch, batch.exceptions.flatMap((operation) => operation.error ?? [])) : undefined;
      this.host.ended(batch, error);
      if (error !== undefined) throw error;
      return batch;
    } finally {
      finish();
      this.#running--;
      this.host.changed();
    }
  }
}
