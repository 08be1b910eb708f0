/**
 * Writes in dependency order: new parents are created before their children at any depth, across
 * models and stores (a parent in another store, or in none, is saved first); updates that need a
 * created record follow it; owned children are destroyed before their parent. When a write fails,
 * what waited for it is not sent: it fails with kind 'dependency' (its `cause` the error it
 * waited on) and stays pending, so that the next sync sends it. A cycle of keys among new records
 * is refused with kind 'config' before any request. Importing this module plugs it into the core
 * (`extensions.inOrder`): a store's sync and a record's save then go through it.
 */
import { BatchError } from '../errors/BatchError.js';
import { ProxyError } from '../errors/ProxyError.js';
import { extensions } from '../model/extensions.js';
import { META } from '../model/internal.js';
import { Model } from '../model/Model.js';
import { holdInvalid, invalidError } from '../model/validate.js';
import { claimWrites, editedSinceApplied, proxyOf, unwatchSends } from '../model/save.js';
import { Batch } from '../operation/Batch.js';
import { planSync } from '../store/sync.js';
import { Operation } from '../operation/Operation.js';
import type { Action } from '../operation/types.js';
import type { BatchOptions, Proxy } from '../proxy/Proxy.js';
import { orderLevels } from './order.js';

type Rec = Model<object>;

/** The records to write, per action: what `session.sync()` found pending, across models. */
export interface GraphRecords {
  create?: readonly Model<object>[];
  update?: readonly Model<object>[];
  destroy?: readonly Model<object>[];
}

/** The new records `record` waits for now (its phantom parents). */
function parentsOf(record: Rec): Rec[] {
  const waitsFor = extensions.waitsFor;
  return waitsFor === undefined ? [] : waitsFor(record).filter((parent) => parent.phantom && !parent.erased);
}

/** The records whose destroy must go before `record`'s (its owned children). */
function destroyedFirst(record: Rec): readonly Rec[] {
  return extensions.destroysFirst?.(record) ?? [];
}

/** A parent `record` references that was destroyed before it was created: it cannot be sent until given another parent or none. */
function lostParent(record: Rec): Rec | undefined {
  return extensions.waitsFor?.(record).find((parent) => parent.erased);
}

function lostParentError(action: Action | 'save', record: Rec, parent: Rec): ProxyError {
  return new ProxyError('dependency', `${action} of ${record.clientId} not sent: it waits for ${parent.clientId}, which was destroyed before it was created; give it another parent or none`, { mayHaveBeenApplied: false });
}

/**
 * The owned records that end with `destroy`, at any depth (API.md 9.3): the saved ones join the
 * destroys (each before its parent's), the new ones are sent by no one (dropped when their parent
 * is erased), and neither is created nor updated by this sync.
 */
function ownedEnd(destroy: readonly Rec[]): { destroy: Rec[]; ending: Set<Rec> } {
  const ending = new Set<Rec>();
  const all = new Set(destroy);
  for (const record of all) {
    for (const child of destroyedFirst(record)) {
      if (ending.has(child) || child.erased) continue;
      ending.add(child);
      if (!child.phantom) all.add(child); // visited too, as the loop reaches it
      else for (const grandchild of ownedEnd([child]).ending) ending.add(grandchild);
    }
  }
  return { destroy: [...all], ending };
}

/** The new records these wait for at any depth that `known` does not hold (added to it). */
function ancestors(records: readonly Rec[], known: Set<Rec>): Rec[] {
  const found: Rec[] = [];
  const visit = [...records];
  for (let record = visit.pop(); record !== undefined; record = visit.pop()) {
    for (const parent of parentsOf(record)) {
      if (known.has(parent)) continue;
      known.add(parent);
      found.push(parent);
      visit.push(parent);
    }
  }
  return found;
}

function cycleError(cycle: readonly Rec[], among = 'keys among new records'): ProxyError {
  return new ProxyError('config', `write refused: a cycle of ${among}: ${cycle.map((record) => record.clientId).join(' -> ')}; nothing was sent`, { mayHaveBeenApplied: false });
}

function dependencyError(action: Action | 'save', record: Rec, on: Rec, cause: unknown): ProxyError {
  return new ProxyError('dependency', `${action} of ${record.clientId} not sent: it waits for ${on.clientId}, whose write failed`, { cause, mayHaveBeenApplied: false });
}

function ignore(): void {
  // the write reports its own outcome
}

/** Wait until none of the records has a write in flight, then make `until` their write (taken in one step: nothing starts in between). */
async function claimFree(records: readonly Rec[], until: Promise<unknown>): Promise<void> {
  for (;;) {
    const busy = records.flatMap((record) => record[META]?.writing ?? []);
    if (busy.length === 0) {
      claimWrites(records, until);
      return;
    }
    await Promise.all(busy.map((write) => write.then(ignore, ignore)));
  }
}

/** The order of a sync's writes, or the cycle that refuses it. */
function plan(create: readonly Rec[], update: readonly Rec[], destroy: readonly Rec[]): { extra: Rec[]; creates: Rec[][]; destroys: Rec[][]; cycle?: Rec[]; destroyCycle?: Rec[] } {
  const known = new Set(create);
  const extra = ancestors([...create, ...update], known);
  const creates = orderLevels([...create, ...extra], parentsOf);
  const inDestroy = new Set(destroy);
  const destroys = orderLevels(destroy, (record) => destroyedFirst(record).filter((child) => inDestroy.has(child)));
  return { extra, creates: creates.levels ?? [], destroys: destroys.levels ?? [], cycle: creates.cycle, destroyCycle: destroys.cycle };
}

/** One sync's run: the Batch it fills, and which records failed (what waits for them is not sent). */
class Run {
  readonly failed = new Map<object, ProxyError>();
  stopped = false;

  constructor(
    readonly batch: Batch,
    readonly options: BatchOptions,
    readonly proxyFor: (record: Rec) => Proxy,
    /** The records the caller gave (and checked); a parent added from outside them is checked here. */
    readonly own: ReadonlySet<object> = new Set(),
  ) {}

  fail(action: Action, record: Rec, error: ProxyError): void {
    const operation = new Operation({ action, records: [record] });
    operation.setException(error);
    this.batch.operations.push(operation);
    this.batch.exceptions.push(operation);
    this.failed.set(record, error);
  }

  /** Send one level of one action: one `proxy.batch` per proxy, all at once; what waits for a failed write fails with 'dependency'. */
  async step(action: Action, records: readonly Rec[], waitsFor: (record: Rec) => readonly Rec[]): Promise<void> {
    const batch = this.batch;
    if (this.stopped) {
      const unsent = records.map((record) => new Operation({ action, records: [record] }));
      batch.operations.push(...unsent);
      batch.unsent.push(...unsent);
      return;
    }
    const groups = new Map<Proxy, Rec[]>();
    for (const record of records) {
      const lost = action === 'destroy' ? undefined : lostParent(record);
      if (lost !== undefined) {
        this.fail(action, record, lostParentError(action, record, lost));
        continue;
      }
      const on = waitsFor(record).find((dep) => action !== 'destroy' || this.failed.has(dep));
      if (on !== undefined) {
        this.fail(action, record, dependencyError(action, record, on, this.failed.get(on)));
        continue;
      }
      // An invalid parent from outside is not sent (its store's sync reports it): what waits for it fails.
      const invalid = action === 'create' && !this.own.has(record) ? invalidError(record, action) : undefined;
      if (invalid !== undefined) this.failed.set(record, invalid);
      else {
        const proxy = this.proxyFor(record);
        const group = groups.get(proxy);
        if (group === undefined) groups.set(proxy, [record]);
        else group.push(record);
      }
    }
    const sent = await Promise.all([...groups].map(([proxy, group]) => proxy.batch({ [action]: group }, this.options)));
    for (const each of sent) this.take(each);
    if (batch.pauseOnException && batch.hasException()) this.stopped = true;
  }

  take(sent: Batch): void {
    const batch = this.batch;
    batch.operations.push(...sent.operations);
    batch.exceptions.push(...sent.exceptions);
    batch.unsent.push(...sent.unsent);
    for (const operation of sent.exceptions) for (const record of operation.records) if (operation.error) this.failed.set(record, operation.error);
    if (sent.isPaused) this.stopped = true;
  }
}

/**
 * A store's sync, in order: `proxy` sends the records given, each parent they wait for outside
 * them is saved through its own (its store's, else its model's), once no write of it is in flight
 * (`held`: the records the caller has made its write already, never waited for). Resolves with the Batch (look at
 * its exceptions); without anything to order, it is `proxy.batch(records)` as without this module.
 */
export async function sendInOrder(records: GraphRecords, options: BatchOptions, proxy?: Proxy, held: readonly object[] = []): Promise<Batch> {
  const own = new Set<object>([...(records.create ?? []), ...(records.update ?? []), ...(records.destroy ?? [])]);
  const { destroy, ending } = ownedEnd(records.destroy ?? []);
  const create = (records.create ?? []).filter((record) => !ending.has(record));
  const update = (records.update ?? []).filter((record) => !ending.has(record));
  const batch = new Batch({ concurrency: options.concurrency, pauseOnException: options.pauseOnException });
  let order = plan(create, update, destroy);
  let release = ignore;
  try {
    const ours = new Set(held);
    const outside = [...order.extra, ...destroy].filter((record) => !ours.has(record) && !own.has(record));
    if (order.cycle === undefined && outside.length > 0) {
      // The parents outside: once no write of theirs is in flight, this sync writes them.
      await claimFree(outside, new Promise<void>((resolve) => (release = resolve)));
      order = plan(create, update, destroy);
    }
    const { creates, destroys, destroyCycle } = order;
    const cycle = order.cycle ?? destroyCycle;
    if (cycle !== undefined) {
      // Nothing is sent: the records of the cycle fail, the others are not sent.
      const error = order.cycle ? cycleError(cycle) : cycleError(cycle, 'owned records destroyed');
      const run = new Run(batch, options, (record) => proxyOf(record, {}));
      const looped = new Set(cycle);
      for (const record of looped) run.fail(order.cycle ? 'create' : 'destroy', record, error);
      run.stopped = batch.isPaused = true;
      await run.step('create', create.filter((record) => !looped.has(record)), parentsOf);
      await run.step('update', update, parentsOf);
      await run.step('destroy', destroy.filter((record) => !looped.has(record)), destroyedFirst);
      return batch;
    }
    const report = options.onOperationComplete;
    // A store hears of its own records' writes only.
    const sendOptions = report === undefined ? options : { ...options, onOperationComplete: (operation: Operation) => operation.records.every((record) => own.has(record)) && report(operation) };
    const run = new Run(batch, sendOptions, (record) => (proxy !== undefined && own.has(record) ? proxy : proxyOf(record, {})), own);
    if (order.extra.length === 0 && creates.length <= 1 && destroys.length <= 1 && ![...create, ...update].some((record) => parentsOf(record).length > 0 || lostParent(record))) {
      // Nothing waits for anything: as without this module, each proxy's batch in its batchOrder.
      const groups = new Map<Proxy, { create: Rec[]; update: Rec[]; destroy: Rec[] }>();
      for (const [action, list] of [['create', create], ['update', update], ['destroy', destroy]] as const) {
        for (const record of list) {
          const to = run.proxyFor(record);
          let group = groups.get(to);
          if (group === undefined) groups.set(to, (group = { create: [], update: [], destroy: [] }));
          group[action].push(record);
        }
      }
      for (const sent of await Promise.all([...groups].map(([to, group]) => to.batch(group, sendOptions)))) run.take(sent);
    } else {
      for (const level of creates) await run.step('create', level, parentsOf);
      await run.step('update', update, parentsOf);
      for (const level of destroys) await run.step('destroy', level, destroyedFirst);
    }
    batch.isPaused = run.stopped;
    batch.isComplete = !run.stopped;
    return batch;
  } finally {
    release();
  }
}

/**
 * Save first the new records `record` waits for (each saves its own first); undefined when it
 * waits for none. Rejects with kind 'dependency' when one of them failed (its error as `cause`),
 * with kind 'config' for a cycle of keys: `record` is then not sent.
 */
export function saveFirst(record: Rec): Promise<void> | undefined {
  const lost = lostParent(record);
  if (lost !== undefined) return Promise.reject(lostParentError('save', record, lost));
  const parents = parentsOf(record);
  if (parents.length === 0) return undefined;
  const order = orderLevels([record, ...ancestors([record], new Set([record]))], parentsOf);
  if (order.cycle !== undefined) return Promise.reject(cycleError(order.cycle));
  const saves = parents.map((parent) => parent.save().catch((error: unknown) => Promise.reject(dependencyError('save', record, parent, error))));
  return Promise.all(saves).then(() => {
    const left = parentsOf(record)[0];
    if (left !== undefined) throw dependencyError('save', record, left, undefined);
  });
}

/**
 * Send pending records of any models in dependency order, as `store.sync()` sends a store's (what
 * `session.sync()` calls): each record goes through its store's proxy, else its model's. Waits
 * for the writes in flight of these records first; resolves with the Batch, rejects with a
 * BatchError when an operation failed (what failed stays pending for the next call).
 */
export async function syncGraph(pending: GraphRecords, options: BatchOptions = {}): Promise<Batch> {
  const lists = typeof pending === 'object' && pending !== null ? [pending.create ?? [], pending.update ?? [], pending.destroy ?? []] : [];
  if (lists.length === 0 || !lists.every((list) => Array.isArray(list) && list.every((record) => record instanceof Model))) {
    throw new TypeError('syncGraph: expected { create?, update?, destroy? } arrays of records');
  }
  let release = ignore;
  try {
    const all = reach([...new Set(lists.flat())]);
    await claimFree(all, new Promise<void>((resolve) => (release = resolve)));
    // What is still pending once the writes in flight have ended, as a store's sync plans it (a
    // removed record whose create may have been applied is created, confirmed, then destroyed).
    const removed = new Set(lists[2]);
    const { create, update, destroy } = planSync(all, removed);
    const invalid = holdInvalid(create, update, removed);
    // A create re-sent under its key may be answered for its first try: edits made since follow it (as in a store's sync).
    const replayable = create.filter(editedSinceApplied);
    const batch = await sendInOrder({ create, update, destroy }, options, undefined, all);
    const left = replayable.filter((record) => !record.phantom && !record.erased && record.dirty);
    if (left.length > 0 && !batch.hasException()) {
      const sent = new Set<object>(lists.flat());
      for (const record of left) unwatchSends(record, sent);
      const followUp = await sendInOrder({ update: left }, options, undefined, all);
      batch.operations.push(...followUp.operations);
      batch.exceptions.push(...followUp.exceptions);
      batch.unsent.push(...followUp.unsent);
      batch.isComplete = followUp.isComplete;
      batch.isPaused = followUp.isPaused;
    }
    batch.operations.push(...invalid);
    batch.exceptions.push(...invalid);
    const errors = batch.exceptions.flatMap((operation) => operation.error ?? []);
    if (errors.length > 0) throw new BatchError(batch, errors);
    return batch;
  } finally {
    release();
  }
}

/** `records` and the new parents they need outside them, at any depth: what a sync of them takes as its writes at once. */
export function reach<R extends Rec>(records: R[]): (R | Rec)[] {
  const extra = ancestors(records, new Set(records));
  return extra.length === 0 ? records : [...records, ...extra];
}

extensions.inOrder = { save: saveFirst, reach, send: sendInOrder };
