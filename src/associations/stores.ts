/**
 * The association stores: views over the foreign keys, kept by the session. `user.posts()` lists
 * the session's posts whose key is the user's id (or that reference the phantom user); a change
 * of a key (an edit, a reject, a load) moves the record between stores. `add` sets the key,
 * `remove` clears it (and, for an owned association, destroys the record at the next sync).
 */
import { HOLD } from '../model/extensions.js';
import { Model, type ModelInit } from '../model/Model.js';
import { keyOf } from '../store/list.js';
import { UNLIST } from '../store/records.js';
import { Store, type LoadOptions } from '../store/Store.js';
import { describeValue, isPlainObject } from '../util/options.js';
import { templateNames } from '../util/url.js';
import { keyLinksOf, type Link } from './declare.js';
import { refer, referenced, unrefer } from './references.js';
import type { Session } from './session.js';

type Added = Model | ModelInit<Record<string, unknown>> | ReadonlyArray<Model | ModelInit<Record<string, unknown>>>;

/** The store of a manyToMany, as the keys of its join records tell it (links.ts). */
export interface JoinView {
  /** A join record now points at this store's owner, or its other key changed. */
  joined(join: Model): void;
  /** A join record no longer points at this store's owner. */
  left(join: Model): void;
}

/** The association stores made: owner record -> association name -> store. */
const made = new WeakMap<object, Map<string, AssociationStore | JoinView>>();
/** Where each join record is counted now, per manyToMany. */
const joined = new WeakMap<object, Map<Link, JoinView>>();

/** The links some owner's store was made for: a record whose key links have none needs no placing. */
const used = new WeakSet<Link>();
/** The association stores (views over the keys): a session finds its records through the other stores it has. */
export const views = new WeakSet<Store<Model>>();

/** Keep the store of `link` of this owner (one per owner and association). */
export function register(owner: Model, link: Link, store: AssociationStore | JoinView): void {
  used.add(link);
  if (store instanceof Store) views.add(store);
  let stores = made.get(owner);
  if (stores === undefined) made.set(owner, (stores = new Map()));
  stores.set(link.name, store);
}
/** Where each record is listed now, per association whose key it holds. */
const placed = new WeakMap<object, Map<Link, AssociationStore>>();
/** Associations whose records an answer brought nested before their store was made: owner -> names. */
const readEarly = new WeakMap<object, Set<string>>();

/** Forget the store of `link` of this owner (it was destroyed): the next call of the accessor makes a new one. */
export function unregister(owner: Model, link: Link, store: object): void {
  const stores = made.get(owner);
  if (stores?.get(link.name) === store) stores.delete(link.name);
}

/** The record a child belongs to through `link`: the phantom one it references, else the session's record with its key. */
export function parentOf(session: Session, child: Model, link: Link): Model | undefined {
  return referenced(child, link.foreignKey) ?? session.get(link.owner, child.get(link.foreignKey));
}

/** The store of `link` of this owner, when it was made. */
export function madeStore(owner: object | undefined, link: Link): AssociationStore | JoinView | undefined {
  return owner === undefined ? undefined : made.get(owner)?.get(link.name);
}

function asView(store: AssociationStore | JoinView | undefined): AssociationStore | undefined {
  return store instanceof AssociationStore ? store : undefined;
}

/** A join record's keys may have changed: count it in the store its owner key says. */
function moveJoin(join: Model, link: Link, to: JoinView | undefined, otherChanged: boolean): void {
  let map = joined.get(join);
  const from = map?.get(link);
  if (from === to) {
    if (otherChanged) to?.joined(join);
    return;
  }
  if (map === undefined) joined.set(join, (map = new Map()));
  if (to === undefined) map.delete(link);
  else map.set(link, to);
  from?.left(join);
  to?.joined(join);
}

function move(record: Model, link: Link, to: AssociationStore | undefined): void {
  let map = placed.get(record);
  const from = map?.get(link);
  if (from === to) return;
  if (map === undefined) placed.set(record, (map = new Map()));
  if (to === undefined) map.delete(link);
  else map.set(link, to);
  from?.[UNLIST]([record]);
  to?.member(record);
}

/** The record's keys may have changed (`names`: the fields that did; undefined: any): list it where its keys say. */
export function place(session: Session, record: Model, names: readonly string[] | undefined): void {
  const links = keyLinksOf(record.constructor);
  for (let i = 0; i < links.length; i++) {
    const link = links[i];
    if (link === undefined || link.kind === 'belongsTo') continue;
    const otherChanged = link.otherKey !== undefined && (names === undefined || names.includes(link.otherKey));
    if (names !== undefined && !names.includes(link.foreignKey) && !otherChanged) continue;
    const store = madeStore(parentOf(session, record, link), link);
    if (link.kind === 'manyToMany') moveJoin(record, link, store instanceof AssociationStore ? undefined : store, otherChanged);
    else move(record, link, asView(store));
  }
}

/** Whether records of `model` may have an association store to be listed in (place() may list them somewhere). */
export function placing(model: object): boolean {
  return keyLinksOf(model).some((link) => link.kind !== 'belongsTo' && used.has(link));
}

/** The record is gone: it leaves every association store. */
export function unplace(record: Model): void {
  const map = placed.get(record);
  placed.delete(record);
  for (const store of map?.values() ?? []) store[UNLIST]([record]);
  const joins = joined.get(record);
  joined.delete(record);
  for (const view of joins?.values() ?? []) view.left(record);
}

/** An answer brought the records of `link` of this owner nested: its store counts as loaded. */
export function markRead(owner: Model, link: Link): void {
  const store = asView(madeStore(owner, link));
  if (store !== undefined) store.loaded = true;
  else {
    let names = readEarly.get(owner);
    if (names === undefined) readEarly.set(owner, (names = new Set()));
    names.add(link.name);
  }
}

/** Point the child at the owner through `link`: its key, or a reference while the owner is new. */
export function attach(session: Session, child: Model, link: Link, owner: Model | null): void {
  if (owner === null) {
    unrefer(child, link.foreignKey);
    child.set(link.foreignKey, null);
  } else if (owner.phantom) {
    refer(child, link.foreignKey, owner);
  } else {
    unrefer(child, link.foreignKey);
    child.set(link.foreignKey, owner.getId());
  }
  place(session, child, undefined);
}

/**
 * The store of a hasMany (or the one record of a hasOne) of one owner record. Its members follow
 * the keys; `load()` reads them (by the url template `{foreignKey}`, else filtered by the key).
 */
export class AssociationStore extends Store<Model> {
  /** Whether its records were read: a load, or nested in an answer. */
  loaded = false;
  readonly #owner: Model;
  readonly #link: Link;
  readonly #session: Session;

  constructor(owner: Model, link: Link, session: Session) {
    super({ model: link.target, pageSize: 0, session });
    this.#owner = owner;
    this.#link = link;
    this.#session = session;
    register(owner, link, this);
    this.loaded = readEarly.get(owner)?.delete(link.name) === true;
    for (const record of session.records(link.target)) if (parentOf(session, record, link) === owner) move(record, link, this);
  }

  /** @internal The keys say the record is a member: list it. */
  member(record: Model): void {
    super.add(record);
  }

  /** Add records (or objects of values, made into records): their key is set to the owner's id (a reference while it is new). */
  override add(records: Added): Model[] {
    const model = this.model;
    const list = (Array.isArray(records) ? records : [records]).map((item: unknown) => {
      if (item instanceof model) return item;
      if (!isPlainObject(item)) throw new TypeError(`${this.#where()}.add: expected a record of ${model.getEntityName()} or an object of values, got ${describeValue(item)}`);
      return new model(item);
    });
    // One that cannot join (another session's, a second record of a held id) throws before any joins.
    const session = this.#session;
    const refused = list.find((record) => record.session === undefined ? session.get(model, record.getId()) !== undefined : record.session !== session);
    for (const record of refused === undefined ? list : [refused]) session[HOLD](record);
    for (const record of list) attach(this.#session, record, this.#link, this.#owner);
    return list;
  }

  override insert(_index: number, records: Added): Model[] {
    return this.add(records);
  }

  /** Remove records: their key is cleared; with `owned`, they are destroyed at the next sync instead. */
  override remove(records: Model | readonly Model[]): Model[] {
    const list = (Array.isArray(records) ? records : [records]).filter((record) => placed.get(record)?.get(this.#link) === this);
    if (this.#link.owned) {
      const removed = super.remove(list);
      // The key stays (another store's sync must not send it cleared): the destroy follows.
      for (const record of removed) placed.get(record)?.delete(this.#link);
      return removed;
    }
    for (const record of list) attach(this.#session, record, this.#link, null);
    return list;
  }

  /**
   * Read the owner's records: `{foreignKey}` filled in the target's url when it has that
   * template, else the target's collection filtered by the key. A new owner sends nothing.
   */
  override load(options: LoadOptions = {}): Promise<Model[]> {
    const id: unknown = this.#owner.getId();
    if (this.#owner.phantom || keyOf(id) === undefined) return Promise.resolve(this.getRange());
    const key = this.#link.foreignKey;
    const url: unknown = Reflect.get(this.getProxy(), 'url');
    let given = options;
    if (typeof url === 'string' && templateNames(url).includes(key)) {
      given = { ...options, params: { ...options.params, [key]: id } };
    } else {
      this.remoteFilter = true;
      this.filters = [...this.filters.filter((filter) => filter.property !== key), { property: key, value: id }];
    }
    return super.load(given).then((records) => {
      this.loaded = true;
      return records;
    });
  }

  /** Release the store (Store.destroy); the owner's accessor makes a new one at its next call. */
  override destroy(): void {
    unregister(this.#owner, this.#link, this);
    super.destroy();
  }

  #where(): string {
    return `${this.#link.owner.getEntityName()}.${this.#link.name}`;
  }
}

/** The store of `link` of `owner` in its session: the same store on every call. */
export function storeFor(session: Session, owner: Model, link: Link): AssociationStore {
  return asView(madeStore(owner, link)) ?? new AssociationStore(owner, link, session);
}
