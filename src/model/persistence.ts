/**
 * What a record takes from the server outside its own writes: a freshly read copy of it (a load, a
 * reload), or the copy a load listed for its row before its create was confirmed (adoptCopy).
 * Its own writes are save.ts's.
 */
import type { Operation } from '../operation/Operation.js';
import { put } from '../util/path.js';
import { sameValue } from './fields.js';
import { committed, DATA, eachOwner, META, metaOf, tidy, touch } from './internal.js';
import type { Model, PersistOptions } from './Model.js';
import { recordInfo, type ModelInfo } from './modelInfo.js';
import { enqueue, gateOf, ignore, operationOf, SUCCEED, watchSends } from './save.js';
import { sameShown } from './snapshot.js';
import { mergeServerValues, ownValue, readField, sameFieldValue } from './values.js';
import { reduce } from './writeState.js';

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
  committed(record, changed);
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
  for (const name of namesOf(info, copy)) {
    if (info.byName.get(name)?.persist === false || (stillEdited !== undefined && Object.hasOwn(stillEdited, name))) continue;
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
  committed(record, []);
}

/** Take the copy's later edits and what it knows the server holds; returns the fields taken from the copy. */
function takeCopy(record: Model<object>, copy: Model<object>): string[] {
  const meta = metaOf(record);
  const theirs = copy[META];
  const info = recordInfo(record);
  const data = record[DATA];
  const changed: string[] = [];
  const taken: string[] = [];
  for (const name of namesOf(info, copy)) {
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

/** The fields a record and its copy are compared by, but the id: its model's, else (a model that declares none) the copy's keys. */
function namesOf(info: ModelInfo, copy: Model<object>): string[] {
  return (info.fields.length > 0 ? info.fields.map((field) => field.name) : Object.keys(copy[DATA])).filter((name) => name !== info.idProperty);
}

/** A read by id; the record's ETag goes as If-None-Match (a 304 then leaves the record as it is). */
export function readById(id: unknown, options: PersistOptions, etag?: string): Operation {
  const operation = operationOf(options, { action: 'read', id });
  if (etag !== undefined) operation.validator = { etag };
  return operation;
}
