/**
 * What a record holds besides its public face, shared by the model's own modules and the Store:
 * its values, what it knows beyond them (its meta), and the stores that hold it. Keyed by
 * symbols the package does not export, so that none of it is part of the Model a user sees.
 */
import type { FieldErrors } from '../errors/ProxyError.js';
import type { Proxy } from '../proxy/Proxy.js';
import type { View } from '../util/notify.js';
import { SAVED, type WriteState } from './writeState.js';
import { dev } from '../util/dev.js';

/** @internal The values by field name (built-in types converted on first read). */
export const DATA: unique symbol = Symbol(dev('rest-proxy.data'));
/** @internal What the record knows beyond its values; null for a clean record loaded from a server. */
export const META: unique symbol = Symbol(dev('rest-proxy.meta'));
/** @internal The stores that hold the record, held weakly (see OwnerLink). */
export const OWNERS: unique symbol = Symbol(dev('rest-proxy.owners'));
/** @internal OwnerHooks[RELIST]: list a removed record again, its destroy dropped (an outbox entry discarded). */
export const RELIST: unique symbol = Symbol(dev('rest-proxy.relist'));

/** Something that holds records and wants to hear of their changes (a Store). */
export interface OwnerHooks {
  /** The proxy records of this owner are saved through, when it has its own. */
  proxy(): Proxy | undefined;
  /** Whether another record it holds has this id (setId refuses it). */
  holds(id: unknown, record: object): boolean;
  /** Fields were edited (set, setId). */
  afterEdit(record: object, names: readonly string[]): void;
  /** Values became the saved ones (a write's answer, commit(), a reload); `created`: the write was the record's create. */
  afterCommit(record: object, names: readonly string[], created: boolean): void;
  afterReject(record: object): void;
  /** The record is gone from the server. */
  afterErase(record: object): void;
  /** Anything visible about the record changed (values, saving, errors): for subscriptions. */
  afterChange(record: object): void;
  [RELIST]?(record: object): void;
  /** It let the record go (a session then holds it by itself: rest-proxy/associations). */
  left?(record: object): void;
  /** The store is destroyed and about to let every record go (a session takes its pending ones: rest-proxy/associations). */
  released?(): void;
}

/**
 * What a record keeps of a store: a weak reference, one per store and shared by all its records
 * (a load of 100,000 records makes none), so that a record kept by the app does not keep alive
 * every store that ever listed it.
 */
export type OwnerLink = WeakRef<OwnerHooks>;

export interface RecordOwner extends OwnerHooks {
  readonly link: OwnerLink;
}

/** The hooks as an owner of records, with the link its records keep. */
export function recordOwner(hooks: OwnerHooks): RecordOwner {
  return Object.assign(hooks, { link: new WeakRef(hooks) });
}

export interface RecordMeta {
  state: WriteState;
  /** The previous values of changed fields. */
  modified: Record<string, unknown> | undefined;
  clientId: string | undefined;
  errors: FieldErrors | undefined;
  etag: string | undefined;
  /** The last write of the record in its queue (saves run one after the other); undefined when none runs. */
  writing: Promise<unknown> | undefined;
  /** Counts the changes of the values, so that a write's answer can tell "not edited since it was sent" at once. */
  version: number;
  /** When each field was last set by the user (a clock shared by all records): which of two edits came last. */
  stamps: Map<string, number> | undefined;
  /** When a write of the record last completed (same clock): a read sent before is older than what it saved. */
  wrote: number;
  /** Its snapshot and listeners while it has subscribers. */
  view: View<unknown> | undefined;
  /** Else the last snapshot given, held weakly: the same object until a visible change, for as long as anyone holds it. */
  shown: WeakRef<object> | undefined;
  /** Something may have changed since `shown` was made. */
  stale: boolean;
}

/** A record as the model's modules and the Store reach it. */
export interface Internals {
  [DATA]: Record<string, unknown>;
  [META]: RecordMeta | null;
  [OWNERS]: OwnerLink | OwnerLink[] | null;
}

export function newMeta(state: WriteState): RecordMeta {
  return {
    state, modified: undefined, clientId: undefined, errors: undefined, etag: undefined, writing: undefined,
    version: 0, stamps: undefined, wrote: 0, view: undefined, shown: undefined, stale: false,
  };
}

/** The record's meta, made (as saved) on its first need: a record read from a server has none until then. */
export function metaOf(record: Internals): RecordMeta {
  return (record[META] ??= newMeta(SAVED));
}

/** No field left changed: `modified` is undefined again (the record is clean unless new). */
export function tidy(meta: RecordMeta): void {
  if (meta.modified !== undefined && Object.keys(meta.modified).length === 0) meta.modified = undefined;
}

let clock = 0;

/** The user set this field now. */
export function stamp(meta: RecordMeta, name: string): void {
  (meta.stamps ??= new Map()).set(name, ++clock);
}

/** A write of the record completed now. */
export function stampWrite(meta: RecordMeta): void {
  meta.wrote = ++clock;
}

/** The clock now: edits and writes stamped later came after. */
export function now(): number {
  return clock;
}

/** Call `tell` for every store that holds the record (a store collected meanwhile is forgotten). */
export function eachOwner(record: Internals, tell: (owner: OwnerHooks) => void): void {
  const owners = record[OWNERS];
  if (owners === null) return;
  if (!Array.isArray(owners)) {
    // One store (the common case): no list to make.
    const owner = owners.deref();
    if (owner === undefined) record[OWNERS] = null;
    else tell(owner);
    return;
  }
  for (const link of [...owners]) {
    const owner = link.deref();
    if (owner === undefined) unlink(record, link);
    else tell(owner);
  }
}

/** The first store that holds the record, if any. */
export function firstOwner(record: Internals): OwnerHooks | undefined {
  const owners = record[OWNERS];
  return (Array.isArray(owners) ? owners[0] : owners)?.deref();
}

/**
 * Something visible about the record changed: its snapshot is made again when next asked for,
 * its subscribers and its stores hear of it (batched, in a later microtask).
 */
export function touch(record: Internals): void {
  const meta = record[META];
  if (meta !== null) {
    meta.stale = true;
    meta.view?.changed();
  }
  eachOwner(record, (owner) => owner.afterChange(record));
}

/** The record's values changed (`names`, set by the user): it is touched, and its stores hear of the edit. */
export function edited(record: Internals, names: readonly string[]): void {
  touch(record);
  eachOwner(record, (owner) => owner.afterEdit(record, names));
}

/** Values became the saved ones (`created`: by the record's create): it is touched, and its stores hear of the commit. */
export function committed(record: Internals, names: readonly string[], created = false): void {
  touch(record);
  eachOwner(record, (owner) => owner.afterCommit(record, names, created));
}

/** A store takes the record in. */
export function join(record: Internals, owner: RecordOwner): void {
  const link = owner.link;
  const owners = record[OWNERS];
  if (owners === null) record[OWNERS] = link;
  else if (Array.isArray(owners)) {
    if (!owners.includes(link)) owners.push(link);
  } else if (owners !== link) record[OWNERS] = [owners, link];
}

/** A store lets the record go. */
export function unjoin(record: Internals, owner: RecordOwner): void {
  unlink(record, owner.link);
  owner.left?.(record);
}

function unlink(record: Internals, link: OwnerLink): void {
  const owners = record[OWNERS];
  if (owners === link) record[OWNERS] = null;
  else if (Array.isArray(owners)) {
    const rest = owners.filter((candidate) => candidate !== link);
    record[OWNERS] = rest.length === 0 ? null : rest.length === 1 ? (rest[0] ?? null) : rest;
  }
}

export function belongsTo(record: Internals, owner: RecordOwner): boolean {
  const owners = record[OWNERS];
  const link = owner.link;
  return owners === link || (Array.isArray(owners) && owners.includes(link));
}
