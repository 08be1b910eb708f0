/**
 * Reading stored entries back on open(): each checked against this version's shape (else
 * migrated, else kept as a foreign entry, failed 'config'), and the records they belong to made
 * again from them.
 */
import { reserveClientId, type Model } from '../model/Model.js';
import { metaOf } from '../model/internal.js';
import type { WriteState } from '../model/writeState.js';
import { Operation } from '../operation/Operation.js';
import { ServerProxy } from '../proxy/ServerProxy.js';
import { checkEntry, type Entry, type Fields } from './entry.js';
import { heldRecord } from './held.js';
import type { StoredObject } from './storage.js';
import type { AnyModel } from './types.js';

export interface Read {
  /** The entries, in sequence order. */
  readonly entries: Entry[];
  /** Objects this version cannot read and `migrate` could not make current. */
  readonly foreign: StoredObject[];
  /** What migration changed, to commit. */
  readonly change: { put: Entry[]; delete: string[] };
}

export function readStored(stored: StoredObject[], models: ReadonlyMap<string, AnyModel>, migrate: ((entry: StoredObject) => StoredObject | null) | undefined): Read {
  const read: Read = { entries: [], foreign: [], change: { put: [], delete: [] } };
  const seqOf = (object: StoredObject): number => (typeof object['seq'] === 'number' ? object['seq'] : 0);
  for (const raw of stored.sort((a, b) => seqOf(a) - seqOf(b))) {
    let entry = checkEntry(raw);
    if (entry === undefined && migrate !== undefined) {
      let migrated: unknown;
      try {
        migrated = migrate(structuredClone(raw));
      } catch {
        migrated = undefined; // a migrate that throws keeps the entry as it is (failed 'config')
      }
      if (migrated === null) {
        read.change.delete.push(raw.id);
        continue;
      }
      entry = isStored(migrated) ? checkEntry(migrated) : undefined;
      if (entry !== undefined) read.change.put.push(entry);
      if (entry !== undefined && entry.id !== raw.id) read.change.delete.push(raw.id);
    }
    if (entry === undefined) {
      read.foreign.push(raw);
      continue;
    }
    // Of a model not attached, or values it cannot take: failed, never sent, and left in storage as it is.
    const model = models.get(entry.entity);
    const problem = model === undefined ? `Outbox: no attached model is named "${entry.entity}"` : unreadable(entry, model);
    if (problem !== undefined) entry = { ...entry, phase: 'failed', error: { kind: 'config', status: 0, message: problem } };
    else if (entry.phase === 'sending' || entry.phase === 'done') entry = { ...entry, phase: 'queued' };
    reserveClientId(entry.clientId); // a record made after a reload must not take its client id
    read.entries.push(entry);
  }
  // A record's writes go in order: one unreadable fails the others of its record too.
  const bad = new Map(read.entries.flatMap((entry) => (entry.error?.kind === 'config' && entry.phase === 'failed' ? [[entry.clientId, entry.error]] : [])));
  read.entries.forEach((entry, i) => {
    const error = bad.get(entry.clientId);
    if (error !== undefined && entry.phase !== 'failed') read.entries[i] = { ...entry, phase: 'failed', error };
  });
  return read;
}

/** Why the model cannot take the entry's values (a name it lacks, such as "__proto__"; a value it cannot convert), if it cannot. */
function unreadable(entry: Entry, model: AnyModel): string | undefined {
  const names = [...Object.keys(entry.values), ...Object.keys(entry.before)];
  const unknown = names.find((name) => !model.getFields().some((field) => field.name === name));
  if (unknown !== undefined) return `Outbox: ${entry.entity} has no field "${unknown}"`;
  try {
    new model({ ...entry.before, ...entry.values, ...(entry.rid === null ? {} : { [model.idProperty]: entry.rid }) });
    return undefined;
  } catch (error) {
    return `Outbox: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function isStored(value: unknown): value is StoredObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof Reflect.get(value, 'id') === 'string';
}

/**
 * Make a record of stored entries again (its entries in order): its base, then each entry's values
 * on top. A saved row the session already holds (from a page a ReadCache showed, or a load, before
 * the outbox opened) is that record, the entries' values put on top of it: one record per row,
 * whose write's answer is applied to it.
 */
export function restoreRecord(clientId: string, entries: readonly Entry[], models: ReadonlyMap<string, AnyModel>): Model<object> | undefined {
  const first = entries[0];
  const model = first === undefined ? undefined : models.get(first.entity);
  if (first === undefined || model === undefined) return undefined;
  // Only declared fields: a stored name the model lacks ("__proto__", a field since removed) failed its entry ('config').
  const known = (values: Fields): Record<string, unknown> => Object.fromEntries(Object.entries(values).filter(([name]) => model.getFields().some((field) => field.name === name)));
  // Only a session's record: a store's row may be a copy of an earlier outbox's (the soak found a
  // create lost when a row a closed outbox's store still listed took the entries).
  const held = first.action === 'create' || first.rid === null ? undefined : heldRecord(model, first.rid, false);
  // (A held record with a client id or a write in flight has writes of its own: it is left alone.)
  const adopt = held !== undefined && !held.phantom && metaOf(held).clientId === undefined && metaOf(held).writing === undefined;
  const base = known(first.action === 'create' ? first.values : first.before);
  if (first.rid !== null) base[model.idProperty] = first.rid;
  try {
    const record = adopt ? held : new model(base);
    metaOf(record).clientId = clientId;
    if (first.etag !== null) record.etag = first.etag; // the version the edits were made on
    for (const entry of entries) if (entry.action !== 'destroy' && (entry !== first || entry.action === 'update')) record.set(known(entry.values));
    return record;
  } catch {
    return undefined; // its entries failed on reading (readStored)
  }
}

/**
 * The write state of a record whose create was sent before a reload and may have been applied:
 * unconfirmed, its request the one first sent (the entry's key, the body written from the entry's
 * values), so that it is sent again as it was and edits made since follow in an update.
 */
export function sentCreate(record: Model<object>, entry: Entry, model: AnyModel): WriteState {
  const proxy = model.getProxy();
  const scratch = new model(entry.values);
  metaOf(scratch).clientId = entry.clientId;
  const operation = new Operation({ action: 'create', records: [scratch] });
  let body: { data: unknown; written: (Record<string, unknown> | undefined)[] } | undefined;
  if (proxy instanceof ServerProxy) {
    const request = proxy.buildRequest(operation);
    proxy.writer.write(request);
    body = { data: request.jsonData, written: operation.written };
  }
  return { status: 'unconfirmed', request: { key: entry.key, records: [record], ...(body ? { body } : {}) }, applied: { ...entry.values } };
}
