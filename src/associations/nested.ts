/**
 * Nested read: records under an association's `associationKey` in an answer (a store load,
 * `Model.load`) become session records, their keys filled from the owner. The whole answer is
 * checked first: a value of the wrong shape, `__proto__` in nested data, or one child id twice
 * (a record of one model under two owners, or twice under one) fails with kind 'parse' naming the
 * key, and nothing is applied. A manyToMany's nested records make its join records.
 */
import { ProxyError } from '../errors/ProxyError.js';
import { ADOPT } from '../model/extensions.js';
import { DATA } from '../model/internal.js';
import { recordFromServer, type Model } from '../model/Model.js';
import { idKey } from '../operation/commit.js';
import { keyOf, type IdKey } from '../store/list.js';
import { describeValue, isPlainObject } from '../util/options.js';
import { put } from '../util/path.js';
import { linksOf, type Link } from './declare.js';
import { linkedStore } from './links.js';
import type { Session } from './session.js';
import { markRead } from './stores.js';

/** Deeper than this, an answer is refused (a hostile one must not exhaust the stack). */
const MAX_DEPTH = 32;

function refuse(path: string, what: string): never {
  throw new ProxyError('parse', `nested ${path}: ${what}`);
}

function toMany(link: Link): boolean {
  return link.kind === 'hasMany' || link.kind === 'manyToMany';
}

/** The ids of the children met so far in one answer, per model: a child is one record, under one owner. */
type Seen = Map<object, Set<IdKey>>;

/** Check the nested data of one item of `model` (and deeper), changing nothing. */
function checkData(model: object, data: Record<string, unknown>, path: string, depth: number, seen: Seen): void {
  const links = linksOf(model);
  for (let i = 0; i < links.length; i++) {
    const link = links[i];
    if (link === undefined || !link.read || !Object.hasOwn(data, link.associationKey)) continue;
    const value = data[link.associationKey];
    const where = `${path}.${link.associationKey}`;
    if (depth > MAX_DEPTH) refuse(where, `deeper than ${MAX_DEPTH} levels`);
    const items = toMany(link) ? value : value === null ? [] : [value];
    if (!Array.isArray(items)) refuse(where, 'expected an array');
    for (const item of items) {
      if (!isPlainObject(item)) refuse(where, toMany(link) ? 'expected an array of objects' : 'expected an object or null');
      if (Object.hasOwn(item, '__proto__')) refuse(where, '"__proto__" is not a field');
      // A child (hasMany, hasOne) belongs to one owner; a parent or a manyToMany target may be shared.
      if (link.kind === 'hasMany' || link.kind === 'hasOne') notSeen(link, item, where, seen);
      checkData(link.target, item, where, depth + 1, seen);
    }
  }
}

/** A child's id met once more in this answer is refused. */
function notSeen(link: Link, item: Record<string, unknown>, where: string, seen: Seen): void {
  const id = keyOf(item[idKey(link.target)]);
  if (id === undefined) return;
  let ids = seen.get(link.target);
  if (ids === undefined) seen.set(link.target, (ids = new Set()));
  if (ids.has(id)) refuse(where, `${link.target.getEntityName()} ${describeValue(item[idKey(link.target)])} twice in one answer`);
  ids.add(id);
}

/** Check the nested data of an answer's item for `model` (a throw refuses the answer; nothing changes). */
export function checkAnswer(model: object, item: Record<string, unknown>): void {
  checkData(model, item, '', 1, new Map());
}

/**
 * Check the nested data of a load's records: kind 'parse' for a value of the wrong shape; nothing
 * changes. Returns the records that have nested data (a record without any costs a property test per association).
 */
export function checkNested(model: object, records: readonly Model[]): ReadonlySet<Model> {
  const keys = linksOf(model).filter((link) => link.read).map((link) => link.associationKey);
  const nested = new Set<Model>();
  if (keys.length === 0) return nested;
  const seen: Seen = new Map();
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    if (record === undefined) continue;
    const data = record[DATA];
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      // `in` first: an inline-cached test, where Object.hasOwn is a call per record.
      if (key === undefined || !(key in data) || !Object.hasOwn(data, key)) continue;
      checkData(model, data, '', 1, seen);
      nested.add(record);
      break;
    }
  }
  return nested;
}

/**
 * A write's answer for `record` (extensions.readAnswer): its nested data checked now (a throw
 * refuses the answer), taken out of `item`, and read once the record is committed.
 */
export function readAnswer(record: Model, item: Record<string, unknown>, session: () => Session): (() => void) | undefined {
  const links = linksOf(record.constructor);
  if (links.length === 0) return undefined;
  checkAnswer(record.constructor, item);
  const nested: Record<string, unknown> = {};
  for (const link of links) {
    if (!link.read || !Object.hasOwn(item, link.associationKey)) continue;
    put(nested, link.associationKey, item[link.associationKey]);
    delete item[link.associationKey];
  }
  return () => readNested(session(), record, nested);
}

/** Read the nested data of `owner` (the session's record of that id) in `data`: session records, keys filled. */
export function readNested(session: Session, owner: Model, data: Record<string, unknown>): void {
  const links = linksOf(owner.constructor);
  for (let i = 0; i < links.length; i++) {
    const link = links[i];
    if (link === undefined || !link.read || !Object.hasOwn(data, link.associationKey)) continue;
    const value = data[link.associationKey];
    delete data[link.associationKey];
    const items = (Array.isArray(value) ? value : value === null ? [] : [value]).filter(isPlainObject);
    // A client id a server echoes is never a value of the record.
    const echo = link.target.clientIdProperty;
    if (echo !== undefined) for (const item of items) delete item[echo];
    const id: unknown = owner.getId();
    // A child's key is filled from its owner, as the server's own value (clean).
    if (link.kind === 'hasMany' || link.kind === 'hasOne') for (const item of items) if (item[link.foreignKey] === undefined) put(item, link.foreignKey, id);
    const adopted = session[ADOPT](link.target, items.map((item) => recordFromServer<Model>(link.target, item)));
    if (link.kind === 'belongsTo') {
      const parent = adopted[0];
      if (parent !== undefined && data[link.foreignKey] === undefined) data[link.foreignKey] = parent.getId();
      continue;
    }
    if (link.kind === 'manyToMany') joinAll(session, owner, link, adopted);
    else markRead(owner, link);
  }
}

/**
 * A manyToMany's nested targets: a join record of the owner for each, as the server holds it
 * (clean), unless the session has it; the owner's store lists them and counts as loaded.
 */
function joinAll(session: Session, owner: Model, link: Link, targets: readonly Model[]): void {
  const store = linkedStore(owner, link, session); // it holds the join records (they have no id to be found by)
  const otherKey = link.otherKey ?? '';
  const ownerKey = keyOf(owner.getId());
  const joined = new Set(session.records(link.holder).filter((join) => keyOf(join.get(link.foreignKey)) === ownerKey).map((join) => keyOf(join.get(otherKey))));
  const made = targets.filter((target) => !joined.has(keyOf(target.getId()))).map((target) => recordFromServer<Model>(link.holder, { [link.foreignKey]: owner.getId(), [otherKey]: target.getId() }));
  // Told directly: the owner of a load's answer may not be held by the session yet.
  for (const join of made.length > 0 ? session[ADOPT](link.holder, made) : made) store.joined(join);
  store.loaded = true;
}
