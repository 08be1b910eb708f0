/**
 * What `session.sync()` does with the session's stores and the records it holds strongly: their
 * pending records in dependency order (./sync.ts); those of models attached to an Outbox
 * (rest-proxy/offline) through it, each store's sync and each other edited record's save; the
 * outcomes joined in one Batch, or one BatchError of every failure.
 */
import { BatchError, queuedBatch } from '../errors/BatchError.js';
import { ProxyError } from '../errors/ProxyError.js';
import { extensions } from '../model/extensions.js';
import type { Model } from '../model/Model.js';
import type { ModelClass } from '../model/types.js';
import { Batch } from '../operation/Batch.js';
import { Operation } from '../operation/Operation.js';
import type { SyncOptions } from '../store/options.js';
import type { Store } from '../store/Store.js';
import { planSync, SHARED, type SyncShare } from '../store/sync.js';
import { syncGraph } from './sync.js';

type AnyModel = Model;
type Rec = Model<object>;

/** Send what the stores list as pending, the other edited records of `strong`, and what collected stores `left` pending (true: to destroy). */
export async function syncStores(stores: readonly Store<AnyModel>[], strong: ReadonlySet<AnyModel>, left: ReadonlyMap<AnyModel, boolean>, options: SyncOptions): Promise<Batch> {
  const destroy: AnyModel[] = [];
  const records = new Set<AnyModel>();
  /** Which stores hear of each record's write. */
  const hears = new Map<object, SyncShare[]>();
  const shares: SyncShare[] = [];
  // Models attached to an outbox (rest-proxy/offline) write through it: their stores' syncs and
  // their records' saves are its entries (durable, kept when they fail), in its order.
  const gated = (model: ModelClass<Model<object>>): boolean => extensions.outboxOf?.(model) !== undefined;
  const queued: (() => Promise<Batch | Operation>)[] = [];
  const inQueued = new Set<AnyModel>();
  const listing: { share: SyncShare<AnyModel>; removed: AnyModel[]; listed: AnyModel[] }[] = [];
  /** Records of a store whose `beforesync` said false: left pending, as its own sync leaves them. */
  const refused = new Set<AnyModel>();
  for (const store of stores) {
    const removed = store.getRemovedRecords().filter((record) => !record.erased);
    const listed = [...store.getNewRecords(), ...store.getUpdatedRecords()];
    if (removed.length + listed.length === 0) continue;
    if (gated(store.model)) {
      for (const record of listed) inQueued.add(record);
      queued.push(() => store.sync(options));
      continue;
    }
    const share = store[SHARED]();
    const plan = planSync([...listed, ...removed], new Set(removed));
    if (share.before(plan.create, plan.update, plan.destroy)) listing.push({ share, removed, listed });
    else {
      share.end(new Batch(), undefined);
      for (const record of [...listed, ...removed]) refused.add(record);
    }
  }
  for (const { removed, listed } of listing) {
    destroy.push(...removed);
    for (const record of listed) records.add(record);
  }
  // Edited records no store lists (loaded by Model.load, or reached by an accessor).
  for (const record of strong) {
    if (record.phantom || record.erased || !record.dirty || inQueued.has(record) || refused.has(record)) continue;
    if (gated(record.getModelClass())) {
      inQueued.add(record);
      queued.push(() => record.save());
    } else records.add(record);
  }
  for (const [record, removed] of left) {
    if (record.erased || inQueued.has(record)) continue;
    if (gated(record.getModelClass())) {
      if (!removed) inQueued.add(record);
      queued.push(() => (removed ? record.destroy() : record.save()));
    } else if (removed) {
      if (!destroy.includes(record)) destroy.push(record);
    } else records.add(record);
  }
  // Nested write: new and edited records a clean owner carries go in its update (its save), not alone.
  const carriers = new Set<Rec>();
  for (const record of records) {
    const owner = extensions.nestedWrite?.carrierOf(record);
    if (owner === undefined || gated(owner.getModelClass())) continue;
    records.delete(record);
    carriers.add(owner);
  }
  for (const owner of carriers) queued.push(() => owner.save());
  const across = crossings([...inQueued, ...records], gated);
  if (across.length > 0) {
    const refusing = refusal(across);
    for (const { share } of listing) share.end(refusing.batch, refusing);
    throw refusing;
  }
  for (const { share, removed, listed } of listing) {
    shares.push(share);
    for (const record of [...removed, ...listed]) hears.set(record, [...(hears.get(record) ?? []), share]);
  }
  const wrote = (operation: Operation): void => {
    if (operation.wasSuccessful()) for (const share of new Set(operation.records.flatMap((record) => hears.get(record) ?? []))) share.wrote(operation);
  };
  const graph = async (): Promise<Batch> => {
    try {
      const batch = await syncGraph({ create: [...records], destroy }, { ...options, onOperationComplete: wrote });
      for (const share of shares) share.end(batch, undefined);
      return batch;
    } catch (error) {
      for (const share of shares) share.end(error instanceof BatchError ? error.batch : new Batch(), error instanceof BatchError ? error : undefined);
      throw error;
    }
  };
  if (queued.length === 0) return graph();
  const sent = queued.map((send) => send());
  if (records.size + destroy.length > 0) sent.push(graph());
  return joinOutcomes(await Promise.allSettled(sent));
}

/** The outcomes of a session's syncs and saves as one Batch: resolved, or rejected with a BatchError of every failure. */
function joinOutcomes(outcomes: PromiseSettledResult<Batch | Operation>[]): Batch {
  const batch = new Batch();
  for (const outcome of outcomes) {
    const value = outcome.status === 'fulfilled' ? outcome.value : outcome.reason;
    if (value instanceof Batch || value instanceof BatchError) {
      const part = value instanceof Batch ? value : value.batch;
      batch.operations.push(...part.operations);
      batch.exceptions.push(...part.exceptions);
      batch.unsent.push(...part.unsent);
    } else if (value instanceof Operation) batch.operations.push(value);
    else if (value instanceof ProxyError && value.operation !== undefined) {
      value.operation.error ??= value;
      batch.operations.push(value.operation);
      batch.exceptions.push(value.operation);
    } else throw value;
  }
  batch.isComplete = batch.unsent.length === 0;
  const errors = batch.exceptions.flatMap((operation) => operation.error ?? []);
  if (errors.length > 0) throw queuedBatch(new BatchError(batch, errors));
  return batch;
}

/**
 * The records that wait, at any depth, for a new record on the other side of the outbox (one of
 * an attached model and the other not), each with that record: neither the outbox nor the graph
 * can order such a pair, so session.sync() refuses them before any request.
 */
function crossings(pending: readonly Rec[], gated: (model: ModelClass<Rec>) => boolean): [Rec, Rec][] {
  const waitsFor = extensions.waitsFor;
  const found: [Rec, Rec][] = [];
  if (waitsFor === undefined) return found;
  const seen = new Set<Rec>(pending);
  const visit = [...pending];
  for (let record = visit.pop(); record !== undefined; record = visit.pop()) {
    for (const parent of waitsFor(record)) {
      if (!parent.phantom || parent.erased) continue;
      if (gated(parent.getModelClass()) !== gated(record.getModelClass())) found.push([record, parent]);
      if (!seen.has(parent)) {
        seen.add(parent);
        visit.push(parent);
      }
    }
  }
  return found;
}

/** The BatchError of a refused session.sync(): kind 'config' for each record that waits across the outbox; nothing was sent. */
function refusal(across: readonly [Rec, Rec][]): BatchError {
  const batch = new Batch();
  const errors = across.map(([record, parent]) => {
    const name = (model: Rec): string => `${model.getModelClass().getEntityName()} ${model.clientId}`;
    const error = new ProxyError('config', `session.sync() refused: ${name(record)} waits for the new ${name(parent)}, and only one of their models is attached to an Outbox; attach both, or save ${name(parent)} first; nothing was sent`, { mayHaveBeenApplied: false });
    const operation = new Operation({ action: record.phantom ? 'create' : 'update', records: [record] });
    operation.setException(error);
    batch.operations.push(operation);
    batch.exceptions.push(operation);
    return error;
  });
  batch.isPaused = true;
  return new BatchError(batch, errors);
}
