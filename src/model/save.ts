/**
 * One record's write path, top to bottom: `save()` and `destroy()` decide what to send (a create,
 * an update, a destroy, or nothing), queue it (one write of a record in flight at a time; an edit
 * made meanwhile waits for the next), send it through the proxy, then commit (the answer applied)
 * or fail (the record left exactly as it was). The proxy reaches the last steps through the
 * record's protocol symbols (operation/protocol.ts): SEND snapshots what a write sends, SUCCEED
 * commits it, FAIL leaves the record as it was, ERASE ends it. The helpers each step calls are
 * below it. An outbox (rest-proxy/offline) takes a model's writes through extensions.outboxOf;
 * associations order them (extensions.inOrder) and carry children (extensions.nestedWrite).
 */
import type { FieldErrors } from '../errors/ProxyError.js';
import { Operation } from '../operation/Operation.js';
import { ResultSet } from '../operation/ResultSet.js';
import { isValidId, type Action } from '../operation/types.js';
import type { Proxy } from '../proxy/Proxy.js';
import { put } from '../util/path.js';
import { extensions, type OutboxGate } from './extensions.js';
import { INVALID } from './fields.js';
import { committed, DATA, eachOwner, firstOwner, META, metaOf, stampWrite, tidy, touch, type Internals } from './internal.js';
import type { Model, PersistOptions, SaveOptions } from './Model.js';
import { entityNameOf, recordInfo } from './modelInfo.js';
import { invalidError } from './validate.js';
import { asFieldValue, mergeServerValues, ownValue, readField, sameFieldValue, type ValueHolder } from './values.js';
import { dev } from '../util/dev.js';
import { ERASED, isPhantom, mayExist, reduce, SAVED, type CreateRequest } from './writeState.js';

// ---- save() and destroy() ---------------------------------------------------------------

/**
 * record.save(): one save in the record's write queue. A create re-sent under its key after the
 * record was edited may be answered for its first try (the server replays it): the edits made
 * since are then sent by an update, queued after the create (and after the write of a load's copy
 * the record took the place of), so that a save that resolves has saved them. Resolves with the
 * create.
 */
export async function saveRecord(record: Model<object>, options: SaveOptions): Promise<Operation> {
  const gate = gateOf(record, options);
  if (gate) return gate.save(record, options);
  const validate = options.validate !== false;
  // With rest-proxy/associations: the new records it waits for (its phantom parents) are saved first.
  const first = extensions.inOrder?.save(record);
  if (first !== undefined) await first;
  // Queued after the write in flight; then decided and sent (runSave); its answer commits or fails it (below).
  let followUp = false;
  const operation = await enqueue(record, async () => {
    const replayable = editedSinceApplied(record);
    const done = await runSave(record, options, validate);
    followUp = replayable && !record.phantom && record.dirty;
    return done;
  });
  if (followUp) await enqueue(record, () => (record.erased ? Promise.resolve(operation) : runSave(record, options, validate)));
  return operation;
}

/** record.destroy(): in the record's write queue, or through its model's outbox. */
export function destroyRecord(record: Model<object>, options: PersistOptions): Promise<Operation> {
  return gateOf(record, options)?.destroy(record, options) ?? enqueue(record, () => runDestroy(record, options));
}

/** The outbox the record's model writes through (rest-proxy/offline), unless a proxy is given. */
export const gateOf = (record: Model<object>, options: PersistOptions): OutboxGate | undefined => (options.proxy ? undefined : extensions.outboxOf?.(record.getModelClass()));

// ---- decide --------------------------------------------------------------------------------

/** Decide: a new record is created, an edited one (or one whose body carries its children's changes, nested write) updated, a clean one sends nothing. */
function decide(record: Model<object>): Action | undefined {
  if (record.erased) throw new TypeError(`${entityNameOf(recordInfo(record).model)}.save: the record was destroyed${dev('; make a new one to create it again')}`);
  return record.phantom ? 'create' : record.dirty || extensions.nestedWrite?.carries(record) === true ? 'update' : undefined;
}

/**
 * Whether the record was edited since the try of its create that may have been applied: a server
 * that replays that try answers without those edits, and an update must follow the create.
 */
export function editedSinceApplied(record: ValueHolder): boolean {
  const state = record[META]?.state;
  const applied = state && 'applied' in state ? state.applied : undefined;
  if (applied === undefined) return false;
  const info = recordInfo(record);
  const data = record[DATA];
  for (const name of new Set([...Object.keys(applied), ...Object.keys(data)])) {
    if (name === info.idProperty || info.byName.get(name)?.persist === false) continue;
    if (!sameFieldValue(record, name, readField(record, name), ownValue(applied, name))) return true;
  }
  return false;
}

// ---- queue ---------------------------------------------------------------------------------

/** Run `run` as the record's next write: after the one in flight, if any (saves of one record never overlap). */
export function enqueue<T>(record: Internals, run: () => Promise<T>): Promise<T> {
  const meta = metaOf(record);
  const before = meta.writing;
  const next = (before ?? Promise.resolve()).then(run, run);
  meta.writing = next;
  if (before === undefined) touch(record); // now saving (a save queued behind another changes nothing visible)
  const settle = (): void => {
    if (meta.writing !== next) return;
    meta.writing = undefined;
    touch(record);
  };
  next.then(settle, settle);
  return next;
}

/**
 * Make `work` the write of every record (a save called meanwhile waits for it), and return the
 * writes already in flight that it must wait for before it sends anything. One settled promise
 * is shared by all the records of a sync: no promise is made per record.
 */
export function claimWrites(records: readonly Internals[], work: Promise<unknown>): Promise<unknown>[] {
  const waits: Promise<unknown>[] = [];
  const settled = work.then(ignore, ignore);
  for (const record of records) {
    const meta = metaOf(record);
    const before = meta.writing;
    meta.writing = settled;
    if (before === undefined) touch(record);
    else if (before !== settled) waits.push(before.then(ignore, ignore)); // a record listed twice never waits for itself
  }
  void settled.then(() => {
    for (const record of records) {
      const meta = record[META];
      if (meta === null || meta.writing !== settled) continue;
      meta.writing = undefined;
      touch(record);
    }
  });
  return waits;
}

/** For a promise whose failure is reported elsewhere (by its own promise, or the write of a copy). */
export function ignore(): void {
  // reported elsewhere
}

// ---- send ----------------------------------------------------------------------------------

/** Send: the save `decide` asks for, through the record's proxy (checked first, when `validate`). Nothing to send resolves at once. */
async function runSave(record: Model<object>, options: PersistOptions, validate = false): Promise<Operation> {
  const action = decide(record);
  if (action === undefined) return nothingSent(new Operation({ action: 'update', records: [record] }), record);
  const invalid = validate ? invalidError(record, action) : undefined;
  if (invalid !== undefined) throw invalid;
  const operation = operationOf(options, { action, records: [record] });
  const proxy = proxyOf(record, options);
  await (action === 'create' ? proxy.create(operation) : proxy.update(operation));
  return operation;
}

async function runDestroy(record: Model<object>, options: PersistOptions): Promise<Operation> {
  const operation = operationOf(options, { action: 'destroy', records: [record] });
  const state = record[META]?.state ?? SAVED;
  if (state.status === 'erased') return nothingSent(operation, record);
  // Its create may have been applied: confirm it (same idempotency key), then destroy it.
  if (mayExist(state)) await runSave(record, options);
  if (record.phantom) {
    eraseRecord(record);
    return nothingSent(operation, record);
  }
  await proxyOf(record, options).destroy(operation);
  return operation;
}

/** A write with nothing to send (a clean record's save, an erased or new record's destroy): it succeeds at once. */
function nothingSent(operation: Operation, record: Model<object>): Operation {
  operation.setSuccessful(new ResultSet({ records: [record] }));
  return operation;
}

/** The proxy a record is saved through: the one given, its store's, else its model's. */
export function proxyOf(record: Model<object>, options: PersistOptions): Proxy {
  if (options.proxy) return options.proxy;
  let proxy = firstOwner(record)?.proxy();
  // The first owner may be a session, which has no proxy: the first store's that has one.
  if (proxy === undefined) eachOwner(record, (owner) => (proxy ??= owner.proxy()));
  return proxy ?? record.getModelClass().getProxy();
}

/** A new operation of one record (a write, or a read by id) with the request options given (a falsy one as not given). */
export function operationOf(options: PersistOptions, config: { action: Action; records?: Model<object>[]; id?: unknown }): Operation {
  return new Operation({ ...config, params: options.params || undefined, signal: options.signal || undefined, headers: options.headers || undefined });
}

/** What a record looked like when a write was sent. */
class WriteSnapshot {
  declare readonly values: Record<string, unknown>;
  /** The record's meta.version then, or -1 when it had no meta (never taken as unedited). */
  declare readonly version: number;
  constructor(values: Record<string, unknown>, version: number) {
    this.values = values;
    this.version = version;
  }
}

/** A write of the record is about to be sent: snapshot what it sends (a create, in `request`). */
export function sendWrite(record: ValueHolder, action: Action, request?: CreateRequest): WriteSnapshot {
  const watch = watched.get(record);
  if (watch !== undefined) watch.sent = true;
  const meta = record[META];
  const version = meta === null ? -1 : meta.version;
  if (action === 'destroy') return new WriteSnapshot({}, version);
  // Copied as stored (a date may still be its ISO string): succeedWrite compares values with
  // sameFieldValue, so nothing is converted just for this.
  if (meta !== null && request !== undefined && isPhantom(meta.state)) {
    const values = { ...record[DATA] };
    meta.state = reduce(meta.state, { type: 'send', values, request });
    return new WriteSnapshot(values, version);
  }
  const values: Record<string, unknown> = {};
  const modified = meta?.modified;
  if (modified !== undefined) for (const key of Object.keys(modified)) put(values, key, ownValue(record[DATA], key));
  return new WriteSnapshot(values, version);
}

/** Records whose writes are noted while a write of another object (`by`) for their row is in flight (adoptCopy). */
const watched = new WeakMap<object, { sent: boolean; by: object }>();

/** Note whether the record sends a write until `ended`, the write of `by`, settles. */
export function watchSends(record: object, by: object, ended: Promise<unknown>): { sent: boolean } {
  const watch = { sent: false, by };
  watched.set(record, watch);
  const stop = (): void => {
    if (watched.get(record) === watch) watched.delete(record);
  };
  ended.then(stop, stop);
  return watch;
}

/** Stop noting the record's writes when the other object's write is one of `done` (a sync that sent it before). */
export function unwatchSends(record: object, done: ReadonlySet<object>): void {
  const watch = watched.get(record);
  if (watch !== undefined && done.has(watch.by)) watched.delete(record);
}

// ---- commit or fail (the proxy calls these through SUCCEED, FAIL and ERASE) ----------------

export const SUCCEED = { type: 'succeed' } as const;
const ERASE = { type: 'erase' } as const;

/**
 * The write succeeded: commit what was sent (fields edited since stay dirty), merge the server's
 * answer, and take the id it assigned to a new record (`assignedId`: from a Location header).
 */
export function succeedWrite(record: ValueHolder, snapshot: unknown, serverData: Record<string, unknown> | undefined, assignedId: unknown, written?: Record<string, unknown>): void {
  // rest-proxy/associations: the records the write carried commit, and nested association data
  // is checked, before anything is applied (a throw refuses the answer); the data is read once the record is committed.
  const nested = extensions.readAnswer?.(record, serverData);
  const meta = metaOf(record);
  const state = meta.state;
  const sent = snapshot instanceof WriteSnapshot ? snapshot.values : {};
  // A create re-sent under its idempotency key may be answered for an earlier try: what the
  // server holds is then what that try sent, and edits made since must stay unsaved.
  const baseline = state.status === 'creating' && state.applied !== undefined ? state.applied : sent;
  const info = recordInfo(record);
  let names: string[];
  if (baseline === sent && snapshot instanceof WriteSnapshot && snapshot.version === meta.version) {
    // No value changed since the write was sent: every sent field is saved as it is.
    names = Object.keys(sent);
    const modified = meta.modified;
    if (modified !== undefined) for (const name of names) delete modified[name];
  } else {
    names = [];
    for (const name of baseline === sent ? Object.keys(sent) : new Set([...Object.keys(sent), ...Object.keys(baseline)])) {
      const saved = Object.hasOwn(baseline, name) ? baseline[name] : ownValue(sent, name);
      if (sameFieldValue(record, name, readField(record, name), saved) && (!Object.hasOwn(sent, name) || sameFieldValue(record, name, sent[name], saved))) {
        if (meta.modified) delete meta.modified[name];
        names.push(name);
      } else if (info.byName.get(name)?.persist !== false) {
        put((meta.modified ??= {}), name, asFieldValue(record, name, saved)); // edited since it was sent: still unsaved
      }
    }
  }
  tidy(meta);
  if (serverData !== undefined) {
    // A re-sent create: the answer says what the server holds (an earlier try's values if it
    // replayed), so an echo of this try's values is no echo to skip.
    // Pushed: `names` is this call's own array (concat takes a slower path, per record of a sync).
    for (const name of mergeServerValues(record, serverData, baseline === sent ? written : undefined)) names.push(name);
  }
  const created = state.status === 'creating';
  if (created) {
    // The id comes from the body, else from the Location header of a 201.
    if ((serverData === undefined || serverData[info.idKey] === undefined) && isValidId(assignedId)) {
      const converted = info.idField ? info.idField.convert(assignedId, record) : assignedId;
      record[DATA][info.idProperty] = converted === INVALID ? assignedId : converted;
      meta.version++;
    }
  }
  meta.state = reduce(state, SUCCEED);
  meta.errors = undefined;
  stampWrite(meta);
  committed(record, names, created);
  nested?.();
}

/**
 * The write failed; `applied`: whether it may still have reached the server. An update that may
 * have been applied notes, per field, the confirmed value and the one it sent (see rejectEdits);
 * `destroy`: the write was a destroy.
 */
export function failWrite(record: ValueHolder, applied: 'no' | 'maybe', body?: unknown, errors?: FieldErrors, snapshot?: unknown, destroy?: boolean): void {
  const meta = metaOf(record);
  const state = meta.state;
  let sent: Record<string, readonly [unknown, unknown]> | undefined;
  if (applied === 'maybe' && state.status === 'saved' && snapshot instanceof WriteSnapshot) {
    sent = { ...state.sent };
    const modified = meta.modified;
    for (const [name, value] of Object.entries(snapshot.values)) {
      const had = Object.hasOwn(sent, name) ? sent[name] : undefined;
      const confirmed = had ? had[0] : modified && Object.hasOwn(modified, name) ? modified[name] : readField(record, name);
      const now = asFieldValue(record, name, value);
      // A try that sent the confirmed value back leaves the earlier one's, which may hold.
      if (!sameFieldValue(record, name, now, confirmed)) put(sent, name, [confirmed, now]);
    }
  }
  meta.state = reduce(state, { type: 'fail', applied, body, sent, destroy });
  if (errors !== undefined) meta.errors = Object.keys(errors).length === 0 ? undefined : errors;
  touch(record);
  extensions.nestedWrite?.fail(record, applied, errors); // so did the records it carried
}

/** The record is gone from the server (or was dropped while new). */
export function eraseRecord(record: Internals): void {
  const meta = metaOf(record);
  if (meta.state === ERASED) return;
  meta.state = reduce(meta.state, ERASE);
  stampWrite(meta);
  touch(record);
  eachOwner(record, (owner) => owner.afterErase(record));
}
