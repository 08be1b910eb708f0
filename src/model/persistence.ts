/**
 * Saving, destroying and re-reading a record through its proxy: the operations a record's
 * save(), destroy() and reload() run in its write queue.
 */
import { Operation } from '../operation/Operation.js';
import { ResultSet } from '../operation/ResultSet.js';
import type { Action } from '../operation/types.js';
import type { Proxy } from '../proxy/Proxy.js';
import { DATA, eachOwner, firstOwner, META, tidy, touch } from './internal.js';
import type { Model, PersistOptions, SaveOptions } from './Model.js';
import { entityNameOf, recordInfo } from './modelInfo.js';
import { sameShown } from './snapshot.js';
import { mergeServerValues, ownValue, readField, sameFieldValue } from './values.js';
import { editedSinceApplied, enqueue, eraseRecord, ignore, metaOf, SUCCEED, watchSends } from './writes.js';
import { mayExist, reduce, SAVED } from './writeState.js';
import { sameValue } from './fields.js';
import { invalidError } from './validate.js';
import { put } from '../util/path.js';
import { extensions, type OutboxGate } from './extensions.js';

/**
 * Take a freshly read copy of a record (its values and ETag): fields with local edits keep them
 * on top; the stores that hold it and its subscribers hear of the change.
 */
export function takeServerRecord(record: Model<object>, fresh: Model<object>): void {
  if (fresh.etag !== undefined) record.etag = fresh.etag;
  // A read that shows what a lost update sent proves it applied (one with the old values may predate it).
  const meta = record[META];
  const state = meta?.state;
  if (meta && state?.status === 'saved' && state.sent && Object.entries(state.sent).some(([name, [, sent]]) => sameFieldValue(record, name, ownValue(fresh[DATA], name), sent))) meta.state = reduce(state, SUCCEED);
  // An edited field's saved value may change, or the server may now hold the edit (clean again):
  // visible in `modified` and `dirty` though no value changed.
  const modified = record[META]?.modified;
  const before = modified === undefined ? undefined : { ...modified };
  const changed = mergeServerValues(record, fresh[DATA]);
  if (changed.length === 0 && sameShown(before, record[META]?.modified)) return;
  touch(record);
  eachOwner(record, (owner) => owner.afterCommit(record, changed, false));
}

/**
 * Until a create is confirmed, a load may list its row as another object (a copy), and the user
 * may edit either. When the create is confirmed, the record takes, field by field, whichever edit
 * came last: the copy's (saved or not) or its own; a field neither edited takes the copy's value.
 * What the server holds is what the copy knows (it was read after the create was applied, and the
 * record has written nothing since). A copy still saving: the record takes its edits as unsaved
 * (sending them again is harmless), its later writes wait for the copy's, and the fields the copy
 * then saved with the value the record still has are saved for the record too.
 */
export function adoptCopy(record: Model<object>, copy: Model<object>): void {
  const taken = takeCopy(record, copy);
  gateOf(record, {})?.adopted(record, copy);
  const writing = copy[META]?.writing;
  if (writing === undefined) return;
  const watch = watchSends(record, copy, writing);
  void enqueue(record, () => writing.then(ignore, ignore).then(() => afterCopyWrote(record, copy, taken, watch.sent)));
}

/**
 * The write of a copy the record took the place of has ended. A field the copy saved with the
 * value the record still has is saved. When the record sent a write meanwhile, the copy's may
 * have landed after it: a field where they differ may hold the copy's value on the server now,
 * so it is unsaved again and the next save sends it.
 */
function afterCopyWrote(record: Model<object>, copy: Model<object>, taken: readonly string[], overlapped: boolean): void {
  if (copy.erased || record.erased) return;
  const meta = metaOf(record);
  const stillEdited = copy[META]?.modified;
  const info = recordInfo(record);
  let changed = false;
  for (const name of info.fields.length > 0 ? info.fields.map((field) => field.name) : Object.keys(copy[DATA])) {
    if (name === info.idProperty || info.byName.get(name)?.persist === false || (stillEdited !== undefined && Object.hasOwn(stillEdited, name))) continue;
    const theirs = readField(copy, name);
    const unsaved = meta.modified !== undefined && Object.hasOwn(meta.modified, name);
    if (sameValue(readField(record, name), theirs)) {
      if (!unsaved || !taken.includes(name) || meta.modified === undefined) continue;
      delete meta.modified[name];
    } else if (overlapped && !unsaved) {
      put((meta.modified ??= {}), name, theirs);
    } else continue;
    changed = true;
  }
  if (!changed) return;
  tidy(meta);
  touch(record);
  eachOwner(record, (owner) => owner.afterCommit(record, [], false));
}

/** Take the copy's later edits and what it knows the server holds; returns the fields taken from the copy. */
function takeCopy(record: Model<object>, copy: Model<object>): string[] {
  const meta = metaOf(record);
  const theirs = copy[META];
  const info = recordInfo(record);
  const data = record[DATA];
  const changed: string[] = [];
  const taken: string[] = [];
  const names = info.fields.length > 0 ? info.fields.map((field) => field.name) : Object.keys(copy[DATA]);
  for (const name of names) {
    if (name === info.idProperty) continue;
    const mine = meta.stamps?.get(name) ?? 0;
    const their = theirs?.stamps?.get(name) ?? 0;
    const value = mine > their ? readField(record, name) : readField(copy, name);
    // What the server holds, as the copy knows it (a field it is saving now is still unsaved).
    const saved = theirs?.modified !== undefined && Object.hasOwn(theirs.modified, name) ? theirs.modified[name] : readField(copy, name);
    if (mine <= their) taken.push(name);
    if (!sameValue(readField(record, name), value)) {
      put(data, name, value);
      changed.push(name);
    }
    if (their > mine) (meta.stamps ??= new Map()).set(name, their);
    if (info.byName.get(name)?.persist === false) continue; // not sent: never unsaved
    if (!sameValue(value, saved)) put((meta.modified ??= {}), name, saved);
    else if (meta.modified !== undefined) delete meta.modified[name];
  }
  tidy(meta);
  if (changed.length > 0) meta.version++;
  if (theirs?.etag !== undefined) meta.etag = theirs.etag;
  touch(record);
  if (changed.length > 0) eachOwner(record, (owner) => owner.afterEdit(record, changed));
  return taken;
}

/** The proxy a record is saved through: the one given, its store's, else its model's. */
export function proxyOf(record: Model<object>, options: PersistOptions): Proxy {
  if (options.proxy) return options.proxy;
  let proxy = firstOwner(record)?.proxy();
  // The first owner may be a session, which has no proxy: the first store's that has one.
  if (proxy === undefined) eachOwner(record, (owner) => (proxy ??= owner.proxy()));
  return proxy ?? record.getModelClass().getProxy();
}

export async function runSave(record: Model<object>, options: PersistOptions, validate = false): Promise<Operation> {
  if (record.erased) throw new TypeError(`${entityNameOf(recordInfo(record).model)}.save: the record was destroyed; make a new one to create it again`);
  const action: Action | undefined = record.phantom ? 'create' : record.dirty || extensions.nestedWrite?.carries(record) === true ? 'update' : undefined;
  if (action === undefined) {
    const operation = new Operation({ action: 'update', records: [record] });
    operation.setSuccessful(new ResultSet({ records: [record] }));
    return operation;
  }
  const invalid = validate ? invalidError(record, action) : undefined;
  if (invalid !== undefined) throw invalid;
  const operation = new Operation({ action, records: [record], ...requestOptions(options) });
  const proxy = proxyOf(record, options);
  await (action === 'create' ? proxy.create(operation) : proxy.update(operation));
  return operation;
}

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

/** The outbox the record's model writes through (rest-proxy/offline), unless a proxy is given. */
const gateOf = (record: Model<object>, options: PersistOptions): OutboxGate | undefined => (options.proxy ? undefined : extensions.outboxOf?.(record.getModelClass()));

/** record.destroy(): in the record's write queue, or through its model's outbox. */
export function destroyRecord(record: Model<object>, options: PersistOptions): Promise<Operation> {
  return gateOf(record, options)?.destroy(record, options) ?? enqueue(record, () => runDestroy(record, options));
}

export async function runDestroy(record: Model<object>, options: PersistOptions): Promise<Operation> {
  const operation = new Operation({ action: 'destroy', records: [record], ...requestOptions(options) });
  const state = record[META]?.state ?? SAVED;
  if (state.status === 'erased') {
    operation.setSuccessful(new ResultSet({ records: [record] }));
    return operation;
  }
  // Its create may have been applied: confirm it (same idempotency key), then destroy it.
  if (mayExist(state)) await runSave(record, options);
  if (record.phantom) {
    eraseRecord(record);
    operation.setSuccessful(new ResultSet({ records: [record] }));
    return operation;
  }
  await proxyOf(record, options).destroy(operation);
  return operation;
}

/** A read by id; the record's ETag goes as If-None-Match (a 304 then leaves the record as it is). */
export function readById(id: unknown, options: PersistOptions, etag?: string): Operation {
  const operation = new Operation({ action: 'read', id, ...requestOptions(options) });
  if (etag !== undefined) operation.validator = { etag };
  return operation;
}

export function requestOptions(options: PersistOptions): { params?: Record<string, unknown>; signal?: AbortSignal; headers?: Record<string, string> } {
  return {
    ...(options.params ? { params: options.params } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  };
}
