/**
 * Failed entries as the app sees them (`outbox.failed`): each holds back only the writes that
 * depend on it, until the app retries it, discards it, or resolves its conflict.
 */
import { ProxyError } from '../errors/ProxyError.js';
import { recordFromServer, type Model } from '../model/Model.js';
import { Operation } from '../operation/Operation.js';
import { takeServerRecord } from '../model/persistence.js';
import { eraseRecord } from '../model/writes.js';
import { eachOwner, RELIST } from '../model/internal.js';
import type { Entry } from './entry.js';
import type { StorageCommit, StoredObject } from './storage.js';
import type { EntryTable } from './table.js';
import type { AnyModel, FailedEntry } from './types.js';

/** What the outbox lends its failed entries. */
export interface Host {
  readonly live: ReadonlyMap<string, Model<object>>;
  readonly models: ReadonlyMap<string, AnyModel>;
  readonly table: EntryTable;
  remove(id: string): void;
  commit(change: StorageCommit): Promise<void>;
  changed(): void;
  pump(): void;
}

export function failedEntry(host: Host, entry: Entry): FailedEntry {
  const id = entry.id;
  return {
    record: host.live.get(entry.clientId),
    action: entry.action,
    error: entry.error ?? { kind: 'server', status: 0, message: '' },
    retry: () => requeue(host, id),
    discard: () => discard(host, id),
    resolve: (side) => resolve(host, id, side),
  };
}

/** The failed entries, then the stored objects of an unknown version (`forget` discards one). */
export function listFailed(host: Host, foreign: readonly StoredObject[], forget: (raw: StoredObject) => Promise<void>): FailedEntry[] {
  const out: FailedEntry[] = [];
  for (const entry of host.table.all.values()) if (entry.phase === 'failed') out.push(failedEntry(host, entry));
  for (const raw of foreign) out.push(foreignEntry(raw, () => forget(raw)));
  return out;
}

/** Why `entry` is not sent: it waits for `failed` (its save or sync is told so, kind 'dependency'). */
export function dependencyError(entry: Entry, failed: Entry, record: Model<object> | undefined, why = 'whose write failed'): ProxyError {
  const operation = new Operation({ action: entry.action, records: record === undefined ? [] : [record] });
  return new ProxyError('dependency', `${entry.action} of ${entry.clientId} not sent: it waits for ${failed.clientId}, ${why}`, { cause: failed.error, operation, mayHaveBeenApplied: false });
}

/** A child's write kept while new parents it waits for could not be saved (invalid): told at once, kind 'dependency', kept. */
export function unsavedParentError(record: Model<object>, action: Entry['action'], parents: readonly Model<object>[]): ProxyError {
  const operation = new Operation({ action, records: [record] });
  const names = parents.map((parent) => parent.clientId).join(', ');
  const error = new ProxyError('dependency', `${action} of ${record.clientId} not sent: it waits for ${names}, whose save was refused (invalid); kept until the parent is saved or the record is given another parent or none`, { operation, mayHaveBeenApplied: false });
  Object.defineProperty(error, 'queued', { value: true, enumerable: true });
  return error;
}

/** A stored object of an unknown version: it can only be discarded. */
export function foreignEntry(raw: StoredObject, forget: () => Promise<void>): FailedEntry {
  const action = raw['action'];
  return {
    record: undefined,
    action: action === 'create' || action === 'destroy' ? action : 'update',
    error: { kind: 'config', status: 0, message: 'Outbox: an entry of an unknown version (give the outbox a migrate)' },
    retry: () => Promise.resolve(),
    discard: forget,
    resolve: () => Promise.resolve(),
  };
}

/** Send it again, attempts starting over. */
async function requeue(host: Host, id: string): Promise<void> {
  const entry = host.table.get(id);
  if (entry === undefined || !host.models.has(entry.entity)) return;
  const next = host.table.step(entry, { type: 'requeue' });
  host.changed();
  await host.commit({ put: [next] });
  host.pump();
}

/**
 * Drop the record's entries and reject its local edits: a new record leaves its stores, an edited
 * one takes back its confirmed values, a removed one is listed again (its stores send no DELETE).
 */
async function discard(host: Host, id: string): Promise<void> {
  const entry = host.table.get(id);
  if (entry === undefined) return;
  const all = host.table.of(entry.clientId);
  const record = host.live.get(entry.clientId); // (let go of once its entries are removed)
  for (const other of all) host.remove(other.id);
  host.changed();
  await host.commit({ delete: all.map((other) => other.id) });
  if (record !== undefined) {
    if (record.phantom) eraseRecord(record);
    else {
      record.reject();
      if (all.some((other) => other.action === 'destroy')) eachOwner(record, (owner) => owner[RELIST]?.(record));
    }
  }
  host.pump();
}

/** 'mine': sent again over the server's version (If-Match its ETag, else read again); 'theirs': the server's version taken. */
async function resolve(host: Host, id: string, side: 'mine' | 'theirs'): Promise<void> {
  const entry = host.table.get(id);
  const record = entry === undefined ? undefined : host.live.get(entry.clientId);
  const model = entry === undefined ? undefined : host.models.get(entry.entity);
  if (entry === undefined || record === undefined || model === undefined) return;
  if (side === 'mine') {
    const etag = entry.error?.etag;
    if (etag !== undefined) record.etag = etag;
    else if (!record.phantom) await record.reload();
    return requeue(host, id);
  }
  host.remove(id);
  host.changed();
  await host.commit({ delete: [id] });
  const current = entry.error?.current;
  record.reject();
  if (typeof current === 'object' && current !== null && !Array.isArray(current)) takeServerRecord(record, recordFromServer(model, current)); // read as an answer is: an undeclared field is no error
  host.pump();
}
