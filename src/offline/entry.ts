/**
 * An outbox entry: one intended write of one record, as stored (plain JSON), and its lifecycle
 * as one state type changed only by `step`:
 *
 *     queued ──send──> sending ──succeed──> done
 *       ^  ^             │ ├─hold (paused: nothing counted)──> queued
 *       │  └──wake── waiting <─retry (counted; failed at maxAttempts)
 *       └──requeue── failed <─fail (from any phase but done)
 *
 * What is stored is intent, not a request: the url, body and headers are built when it is sent.
 */
import type { JsonValue } from './storage.js';

/** The version of the stored shape; an entry of another version goes through `migrate`. */
export const ENTRY_VERSION = 1;

export type Phase = 'queued' | 'sending' | 'waiting' | 'failed' | 'done';
export type EntryAction = 'create' | 'update' | 'destroy';
export type Fields = { [name: string]: JsonValue };

/** Why an entry failed, as stored: `current` is the server's version of a conflicting record. */
export type StoredError = {
  kind: string;
  status: number;
  message: string;
  fieldErrors?: { [name: string]: string[] };
  current?: JsonValue;
  /** The conflicting answer's ETag (resolve('mine') sends If-Match with it). */
  etag?: string;
};

export type Entry = {
  readonly id: string;
  /** ENTRY_VERSION when written. */
  v: number;
  /** The model's entityName. */
  entity: string;
  clientId: string;
  action: EntryAction;
  /** The record's server id (null while it is new). */
  rid: JsonValue;
  /** The changed fields' values (a create: every field). */
  values: Fields;
  /** The changed fields' values before (the base of an update). */
  before: Fields;
  /** The client ids of the phantom parents it waits for. */
  parents: string[];
  /** The fields whose value is a phantom parent's id, each with that parent's client id (filled once it is created, in another page too). */
  refs: { [field: string]: string };
  /** The Idempotency-Key of a create. */
  key: string;
  etag: string | null;
  seq: number;
  attempts: number;
  /** Not before (epoch ms). */
  next: number;
  phase: Phase;
  /** Sent at least once: never changed again. */
  sent: boolean;
  error: StoredError | null;
  /** When it was made (epoch ms). */
  at: number;
  /** The tab that sends it (claimed in a commit); null or a closed tab's: the leader's to take. */
  tab: string | null;
};

export type EntryEvent =
  | { readonly type: 'send' }
  | { readonly type: 'succeed' }
  /** The attempt failed and will be tried again at `at`; `count`: it counts as an attempt (failed at `max`). */
  | { readonly type: 'retry'; readonly at: number; readonly count: boolean; readonly max: number; readonly error: StoredError }
  /** The attempt ended without counting (the outbox paused): queued again. */
  | { readonly type: 'hold' }
  | { readonly type: 'wake' }
  | { readonly type: 'fail'; readonly error: StoredError }
  /** A failed entry tried again (retry(), resolve('mine')): attempts start over. */
  | { readonly type: 'requeue' };

/** The next entry; returns `entry` itself when the event changes nothing in its phase. */
export function step(entry: Entry, event: EntryEvent): Entry {
  const phase = entry.phase;
  if (phase === 'done') return entry;
  switch (event.type) {
    case 'send':
      return phase === 'queued' ? { ...entry, phase: 'sending', sent: true } : entry;
    case 'succeed':
      return phase === 'sending' ? { ...entry, phase: 'done', error: null } : entry;
    case 'retry': {
      if (phase !== 'sending') return entry;
      const attempts = entry.attempts + (event.count ? 1 : 0);
      if (attempts >= event.max) return { ...entry, attempts, phase: 'failed', error: event.error };
      return { ...entry, attempts, phase: 'waiting', next: event.at, error: event.error };
    }
    case 'hold':
      return phase === 'sending' ? { ...entry, phase: 'queued' } : entry;
    case 'wake':
      return phase === 'waiting' ? { ...entry, phase: 'queued' } : entry;
    case 'fail':
      return phase === 'failed' ? entry : { ...entry, phase: 'failed', error: event.error };
    case 'requeue':
      return phase === 'failed' ? { ...entry, phase: 'queued', attempts: 0, next: 0, error: null } : entry;
  }
}

/** A stored object read back: the entry, when it has this version's shape. */
export function checkEntry(stored: { readonly id: string; readonly [key: string]: JsonValue }): Entry | undefined {
  const { v, entity, clientId, action, rid, values, before, parents, refs, key, etag, seq, attempts, next, phase, sent, error, at, tab } = stored;
  if (v !== ENTRY_VERSION || typeof entity !== 'string' || typeof clientId !== 'string' || typeof key !== 'string') return undefined;
  if (action !== 'create' && action !== 'update' && action !== 'destroy') return undefined;
  if (phase !== 'queued' && phase !== 'sending' && phase !== 'waiting' && phase !== 'failed' && phase !== 'done') return undefined;
  if (!isFields(values) || !isFields(before) || !Array.isArray(parents) || typeof seq !== 'number' || typeof attempts !== 'number' || typeof next !== 'number') return undefined;
  return {
    id: stored.id, v, entity, clientId, action, rid: rid ?? null, values, before, parents: parents.filter((parent) => typeof parent === 'string'), refs: stringsOf(refs), key,
    etag: typeof etag === 'string' ? etag : null, seq, attempts, next, phase, sent: sent === true, error: asError(error), at: typeof at === 'number' ? at : 0, tab: typeof tab === 'string' ? tab : null,
  };
}

function isFields(value: JsonValue | undefined): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringsOf(value: JsonValue | undefined): { [field: string]: string } {
  return isFields(value) ? Object.fromEntries(Object.entries(value).filter((pair): pair is [string, string] => typeof pair[1] === 'string')) : {};
}

function asError(value: JsonValue | undefined): StoredError | null {
  if (!isFields(value)) return null;
  const { kind, status, message, current, etag } = value;
  return {
    kind: typeof kind === 'string' ? kind : 'server', status: typeof status === 'number' ? status : 0, message: typeof message === 'string' ? message : '',
    ...(current === undefined ? {} : { current }), ...(typeof etag === 'string' ? { etag } : {}),
  };
}
