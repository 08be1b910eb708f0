/**
 * Nested write (`nested: { write: true }`): an owner's new, changed and (owned) removed records
 * travel in its body under the association's key (the rails preset: `<key>_attributes`, removed
 * ones as `{ id, _destroy: true }`), and commit with it, all or nothing. The answer's records are
 * matched by `clientIdProperty`, else those with ids by id and the new ones among the rest (the
 * ids the session does not hold: Rails answers all of the owner's records) in order. The records
 * carried are not sent by their own store's sync.
 */
import { ProxyError, type FieldErrors } from '../errors/ProxyError.js';
import { extensions } from '../model/extensions.js';
import { Model } from '../model/Model.js';
import { proxyOf } from '../model/persistence.js';
import { invalidError } from '../model/validate.js';
import { claimWrites } from '../model/writes.js';
import { requestOf } from '../model/writeState.js';
import { idKey } from '../operation/commit.js';
import { ERASE, FAIL, SEND, SUCCEED, WRITE_STATE } from '../operation/protocol.js';
import type { Request } from '../operation/Request.js';
import { isUnsafeId, isValidId, type RecordLike, type RecordWriter } from '../operation/types.js';
import { keyOf } from '../store/list.js';
import { newKey } from '../util/ids.js';
import { describeValue, isPlainObject } from '../util/options.js';
import { keyLinksOf, linksOf, type Link } from './declare.js';
import { checkAnswer } from './nested.js';
import { sessionOf } from './session.js';
import { madeStore, parentOf, storeFor } from './stores.js';

/** What one write carried of one association. */
interface Carried {
  readonly link: Link;
  readonly records: Model[];
  readonly snapshots: unknown[];
  readonly data: Record<string, unknown>[];
  readonly destroyed: Model[];
  /** The parent's write ended: they are their own again. */
  readonly settle: () => void;
}

/** The owner -> what its body carried (its writes never overlap). Kept after a failure that may have been applied: a create re-sent under its key sends that body again. */
const sent = new WeakMap<object, Carried[]>();
/** Records in flight in a parent's body. */
const inFlight = new WeakSet<object>();

/** The records travel in a parent's write: their own saves wait for it (and they show as saving). Returns what ends that. */
function board(records: Model[]): () => void {
  let end = (): void => undefined;
  claimWrites(records, new Promise<void>((resolve) => (end = resolve)));
  for (const record of records) inFlight.add(record);
  return () => {
    for (const record of records) inFlight.delete(record);
    end();
  };
}

function writeLinks(model: object): Link[] {
  return linksOf(model).filter((link) => link.write);
}

/** The records of `owner` through `link` to send: new and edited ones, and removed ones of an owned association. */
function pendingOf(owner: Model, link: Link): { changed: Model[]; destroyed: Model[] } {
  const session = sessionOf(owner);
  if (session === undefined) return { changed: [], destroyed: [] };
  const store = storeFor(session, owner, link);
  const changed = store.getRange().filter((record) => (record.phantom || record.dirty) && !record.erased);
  const destroyed = link.owned ? store.getRemovedRecords().filter((record) => !record.phantom && !record.erased) : [];
  // A hasOne sends one record: the new or changed one, else a removed one.
  if (link.kind === 'hasOne') return changed.length > 0 ? { changed: changed.slice(0, 1), destroyed: [] } : { changed, destroyed: destroyed.slice(0, 1) };
  return { changed, destroyed };
}

/** Whether the record travels in its parent's body: sent with it now, or its parent is to be sent (new or edited). */
function carried(record: Model): boolean {
  if (inFlight.has(record)) return true;
  const session = sessionOf(record);
  if (session === undefined) return false;
  return keyLinksOf(record.constructor).some((link) => {
    if (!link.write) return false;
    const parent = parentOf(session, record, link);
    return parent !== undefined && !parent.erased && (parent.phantom || parent.dirty);
  });
}

/** The saved, clean owner whose body would carry the record (nested write), if any: `session.sync()` sends the record in its update. */
function carrierOf(record: Model): Model | undefined {
  const session = sessionOf(record);
  if (session === undefined) return undefined;
  for (const link of keyLinksOf(record.constructor)) {
    const parent = link.write ? parentOf(session, record, link) : undefined;
    if (parent !== undefined && !parent.erased && !parent.phantom && !parent.dirty) return parent;
  }
  return undefined;
}

function carries(record: Model<object>): boolean {
  const owner = asModel(record);
  return owner !== undefined && writeLinks(owner.constructor).some((link) => {
    const { changed, destroyed } = pendingOf(owner, link);
    return changed.length + destroyed.length > 0;
  });
}

/**
 * The clean, saved records among `records` whose children changed through the accessor's store
 * (one it made: a record none was made for has nothing to carry there): their store's sync sends
 * them, and their update carries the children. Nothing for a model that carries none.
 */
function owners<R extends Model<object>>(records: readonly R[]): R[] {
  const first = records[0];
  if (first === undefined || !carriers.has(first.getModelClass())) return [];
  const links = writeLinks(first.getModelClass());
  return records.filter((record) => !record.phantom && !record.dirty && !record.erased && links.some((link) => madeStore(record, link) !== undefined) && carries(record));
}

function asModel(record: RecordLike): Model | undefined {
  return record instanceof Model ? record : undefined;
}

function write(record: RecordLike, data: Record<string, unknown>, dataOf: (other: RecordLike) => Record<string, unknown>): Record<string, unknown> {
  const owner = asModel(record);
  if (owner === undefined) return data;
  const plans = writeLinks(owner.constructor).map((link) => ({ link, ...pendingOf(owner, link) })).filter(({ changed, destroyed }) => changed.length + destroyed.length > 0);
  // Each carried record is checked as its own save would check it: one invalid, nothing is sent.
  for (const { link, changed } of plans) {
    for (const child of changed) {
      const invalid = invalidError(child, child.phantom ? 'create' : 'update');
      if (invalid === undefined) continue;
      const fieldErrors: FieldErrors = {};
      for (const [field, messages] of Object.entries(invalid.fieldErrors ?? {})) fieldErrors[`${link.associationKey}.${field}`] = messages;
      throw new ProxyError('validation', `${link.associationKey}: ${invalid.message}`, { fieldErrors, mayHaveBeenApplied: false });
    }
  }
  let body = data;
  const carriedNow: Carried[] = [];
  const rails = Reflect.get(proxyOf(owner, {}), 'preset') === 'rails';
  for (const { link, changed, destroyed } of plans) {
    const snapshots = changed.map((child) => child[SEND](child.phantom ? 'create' : 'update', child.phantom ? { key: newKey(), records: [child] } : undefined));
    const written = changed.map((child) => {
      const out = dataOf(child);
      delete out[link.foreignKey]; // the parent's key, set by the server
      return out;
    });
    const key = idKey(link.target);
    const items: Record<string, unknown>[] = [...written, ...destroyed.map((child) => ({ [key]: child.getId(), _destroy: true }))];
    body = { ...body, [rails ? `${link.associationKey}_attributes` : link.associationKey]: link.kind === 'hasOne' ? items[0] : items };
    carriedNow.push({ link, records: changed, snapshots, data: written, destroyed, settle: board([...changed, ...destroyed]) });
  }
  if (carriedNow.length > 0) sent.set(owner, carriedNow);
  else sent.delete(owner);
  return body;
}

/** The answer's item for each record sent: by client id, else by id, the new ones among the unknown ids in order. */
function match(owner: Model, carriedOne: Carried, items: Record<string, unknown>[]): (Record<string, unknown> | undefined)[] {
  const target = carriedOne.link.target;
  const clientIdProperty = target.clientIdProperty;
  if (clientIdProperty !== undefined && items.some((item) => item[clientIdProperty] !== undefined)) {
    return carriedOne.records.map((child) => {
      const found = items.find((item) => String(item[clientIdProperty]) === child.clientId);
      if (found === undefined) return undefined;
      const { [clientIdProperty]: _clientId, ...rest } = found;
      return rest;
    });
  }
  const key = idKey(target);
  const session = sessionOf(owner);
  const unknown = items.filter((item) => keyOf(item[key]) === undefined || session?.get(target, item[key]) === undefined);
  let next = 0;
  return carriedOne.records.map((child) => (child.phantom ? unknown[next++] : items.find((item) => keyOf(item[key]) === keyOf(child.getId()))));
}

/** An id the answer gives to a new record sent that another record sent, or one the session holds, has: two records of one session would have one id. */
function takenTwice(owner: Model, carriedOne: Carried, matched: readonly (Record<string, unknown> | undefined)[]): unknown {
  const { link, records } = carriedOne;
  const key = idKey(link.target);
  const session = sessionOf(owner);
  const ids = new Set(records.map((child, i) => (child.phantom ? undefined : keyOf(matched[i]?.[key]))));
  for (let i = 0; i < records.length; i++) {
    const child = records[i];
    const id: unknown = matched[i]?.[key];
    if (child === undefined || !child.phantom) continue;
    const held = session?.get(link.target, id);
    if (ids.has(keyOf(id)) || (held !== undefined && held !== child)) return id;
    ids.add(keyOf(id));
  }
  return undefined;
}

/** The owner's write succeeded: the records it carried commit first, or, when the answer lacks some, nothing does (kind 'server'). */
export function commitCarried(owner: object, item: Record<string, unknown> | undefined): void {
  const carriedAll = sent.get(owner);
  if (carriedAll === undefined || !(owner instanceof Model)) return;
  const plans: [Carried, Record<string, unknown>[]][] = [];
  for (const carriedOne of carriedAll) {
    const { link, records } = carriedOne;
    const answer = item?.[link.associationKey];
    const items = (Array.isArray(answer) ? answer : answer === undefined || answer === null ? [] : [answer]).filter(isPlainObject);
    const matched = match(owner, carriedOne, items);
    const key = idKey(link.target);
    const missing = matched.filter((found, i) => found === undefined || (records[i]?.phantom === true && (!isValidId(found[key]) || isUnsafeId(found[key])))).length;
    if (missing > 0) throw new ProxyError('server', `${missing} of the ${records.length} ${link.associationKey} sent nested are not in the answer (${items.length} there)`, { mayHaveBeenApplied: true });
    const taken = takenTwice(owner, carriedOne, matched);
    if (taken !== undefined) throw new ProxyError('server', `${link.associationKey} sent nested: the answer gives the id ${describeValue(taken)} to two records; nothing was committed`, { mayHaveBeenApplied: true });
    plans.push([carriedOne, matched.filter(isPlainObject)]);
  }
  // The answer's nested data is checked before any child commits ("__proto__" in one: nothing does).
  if (item !== undefined) checkAnswer(owner.constructor, item);
  sent.delete(owner);
  const ownerId: unknown = item?.[idKey(owner.getModelClass())] ?? owner.getId();
  for (const [{ link, records, snapshots, data, destroyed, settle }, matched] of plans) {
    records.forEach((child, i) => {
      const found = matched[i];
      // A body sent again as first written (a create re-sent under its key): the child takes part again.
      const state = child[WRITE_STATE];
      const snapshot = child.phantom && state.status !== 'creating' ? child[SEND]('create', requestOf(state) ?? { key: newKey(), records: [child] }) : snapshots[i];
      child[SUCCEED](snapshot, found === undefined || found[link.foreignKey] !== undefined ? found : { ...found, [link.foreignKey]: ownerId }, undefined, data[i]);
    });
    for (const child of destroyed) child[ERASE]();
    settle();
  }
}

/** The field errors of a child: `posts.title` (Rails) goes to the children sent with that field blank, else to all; `posts[1].title` to the second. */
function errorsOf(link: Link, records: readonly Model[], index: number, errors: FieldErrors): FieldErrors {
  const out: FieldErrors = {};
  const prefix = `${link.associationKey}`;
  for (const [key, messages] of Object.entries(errors)) {
    const found = /^(.+?)(?:\[(\d+)\])?\.([^.[\]]+)$/.exec(key);
    if (found === null || found[1] !== prefix) continue;
    const field = found[3] ?? '';
    if (found[2] !== undefined) {
      if (Number(found[2]) === index) out[field] = messages;
      continue;
    }
    const blank = (record: Model | undefined): boolean => {
      const value: unknown = record?.get(field);
      return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
    };
    if (blank(records[index]) || !records.some(blank)) out[field] = messages;
  }
  return out;
}

/** The owner's write failed: so did the records it carried, each with its share of the field errors. */
function fail(owner: object, applied: 'no' | 'maybe', errors: FieldErrors | undefined): void {
  const carriedAll = sent.get(owner);
  if (applied === 'no') sent.delete(owner);
  for (const { link, records, snapshots, settle } of carriedAll ?? []) {
    records.forEach((child, i) => child[FAIL](applied, undefined, errors === undefined ? undefined : errorsOf(link, records, i, errors), snapshots[i]));
    settle();
  }
}

/** The models that declare a nested-write association. */
const carriers = new WeakSet<object>();

/** The writer's body of a create or update of a carrier's record, with the records it carries. */
function writeCarried(record: RecordLike, data: Record<string, unknown>, request: Request, writer: RecordWriter): Record<string, unknown> | undefined {
  if (request.action === 'destroy' || !carriers.has(record.getModelClass())) return undefined;
  return write(record, data, (other) => writer.getRecordData(other, request));
}

/** A model that declares a nested-write association: its records carry their children (through the core's hook, model/extensions.ts). */
export function equipNested(model: object): void {
  carriers.add(model);
  extensions.nestedWrite ??= { carried, carries, carrierOf, owners, write: writeCarried, fail };
}
