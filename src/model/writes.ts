/**
 * How a record takes part in a write: what it looked like when the write was sent, what it keeps
 * when the write succeeds or fails (through the reducer of writeState.ts), and the queue that
 * runs the writes of one record one after the other.
 */
import type { FieldErrors } from '../errors/ProxyError.js';
import { isValidId, type Action } from '../operation/types.js';
import { put } from '../util/path.js';
import { extensions } from './extensions.js';
import { INVALID } from './fields.js';
import { DATA, eachOwner, META, newMeta, stampWrite, tidy, touch, type Internals, type RecordMeta } from './internal.js';
import { recordInfo } from './modelInfo.js';
import { asFieldValue, mergeServerValues, ownValue, readField, sameFieldValue, type ValueHolder } from './values.js';
import { ERASED, isPhantom, reduce, SAVED, type CreateRequest } from './writeState.js';

/** What a record looked like when a write was sent. */
class WriteSnapshot {
  /** `version`: the record's meta.version then, or -1 when it had no meta (never taken as unedited). */
  constructor(readonly values: Record<string, unknown>, readonly version: number) {}
}

export const SUCCEED = { type: 'succeed' } as const;
const ERASE = { type: 'erase' } as const;

export function metaOf(record: Internals): RecordMeta {
  return (record[META] ??= newMeta(SAVED));
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

/**
 * Whether the record was edited since the try of its create that may have been applied: a server
 * that replays that try answers without those edits, and an update must follow the create.
 */
export function editedSinceApplied(record: ValueHolder): boolean {
  const state = record[META]?.state;
  const applied = state?.status === 'unconfirmed' || state?.status === 'creating' ? state.applied : undefined;
  if (applied === undefined) return false;
  const info = recordInfo(record);
  const data = record[DATA];
  for (const name of new Set([...Object.keys(applied), ...Object.keys(data)])) {
    if (name === info.idProperty || info.byName.get(name)?.persist === false) continue;
    if (!sameFieldValue(record, name, readField(record, name), ownValue(applied, name))) return true;
  }
  return false;
}

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
  let committed: string[];
  if (baseline === sent && snapshot instanceof WriteSnapshot && snapshot.version === meta.version) {
    // No value changed since the write was sent: every sent field is saved as it is.
    committed = Object.keys(sent);
    const modified = meta.modified;
    if (modified !== undefined) for (const name of committed) delete modified[name];
  } else {
    committed = [];
    for (const name of baseline === sent ? Object.keys(sent) : new Set([...Object.keys(sent), ...Object.keys(baseline)])) {
      const saved = Object.hasOwn(baseline, name) ? baseline[name] : ownValue(sent, name);
      if (sameFieldValue(record, name, readField(record, name), saved) && (!Object.hasOwn(sent, name) || sameFieldValue(record, name, sent[name], saved))) {
        if (meta.modified) delete meta.modified[name];
        committed.push(name);
      } else if (info.byName.get(name)?.persist !== false) {
        put((meta.modified ??= {}), name, asFieldValue(record, name, saved)); // edited since it was sent: still unsaved
      }
    }
  }
  tidy(meta);
  if (serverData !== undefined) {
    // A re-sent create: the answer says what the server holds (an earlier try's values if it
    // replayed), so an echo of this try's values is no echo to skip.
    // Pushed: `committed` is this call's own array (concat takes a slower path, per record of a sync).
    for (const name of mergeServerValues(record, serverData, baseline === sent ? written : undefined)) committed.push(name);
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
  touch(record);
  eachOwner(record, (owner) => owner.afterCommit(record, committed, created));
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

/** For a promise whose failure is reported elsewhere (by its own promise, or the write of a copy). */
export function ignore(): void {
  // reported elsewhere
}

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
