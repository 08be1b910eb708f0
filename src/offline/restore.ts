/**
 * Reading stored entries back on open(): each checked against this version's shape (else
 * migrated, else kept as a foreign entry, failed 'config'), and the records they belong to made
 * again from them.
 */
import type { Model } from '../model/Model.js';
import { metaOf } from '../model/writes.js';
import { checkEntry, type Entry } from './entry.js';
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
      const migrated = migrate(structuredClone(raw));
      if (migrated === null) {
        read.change.delete.push(raw.id);
        continue;
      }
      entry = checkEntry(migrated);
      if (entry !== undefined) read.change.put.push(entry);
      if (entry !== undefined && entry.id !== raw.id) read.change.delete.push(raw.id);
    }
    if (entry === undefined) {
      read.foreign.push(raw);
      continue;
    }
    // Of a model not attached: failed, never sent, and left in storage as it is.
    if (!models.has(entry.entity)) entry = { ...entry, phase: 'failed', error: { kind: 'config', status: 0, message: `Outbox: no attached model is named "${entry.entity}"` } };
    else if (entry.phase === 'sending' || entry.phase === 'done') entry = { ...entry, phase: 'queued' };
    read.entries.push(entry);
  }
  return read;
}

/** Make a record of stored entries again (its entries in order): its base, then each entry's values on top. */
export function restoreRecord(clientId: string, entries: readonly Entry[], models: ReadonlyMap<string, AnyModel>): Model<object> | undefined {
  const first = entries[0];
  const model = first === undefined ? undefined : models.get(first.entity);
  if (first === undefined || model === undefined) return undefined;
  const base: Record<string, unknown> = first.action === 'create' ? { ...first.values } : { ...first.before };
  if (first.rid !== null) base[model.idProperty] = first.rid;
  const record = new model(base);
  metaOf(record).clientId = clientId;
  if (first.etag !== null) record.etag = first.etag;
  for (const entry of entries) if (entry.action !== 'destroy' && (entry !== first || entry.action === 'update')) record.set(entry.values);
  return record;
}

