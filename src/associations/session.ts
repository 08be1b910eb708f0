/**
 * A Session: one record per (model, id) across the stores that use it. A store's load costs it
 * nothing per record: the records a store lists are found through that store (its id index), and
 * their edits, commits and erasures reach the session through the link they keep of the store,
 * which for a store of the session is the session's own forwarder (to the session, then to the
 * store). The session holds by itself (a WeakRef, forgotten by a FinalizationRegistry once
 * collected, and a property naming it) only the records no store of it lists: those of
 * Model.load, nested reads and accessors, those added to a store, and those a store lets go.
 * New and edited records it holds strongly until they are synced. It keeps a store's records
 * (not the store): once a store is collected without destroy(), the ones still alive are held
 * by the session itself, as those a store lets go are.
 */
import { ADOPT, extensions, HOLD, type Identity } from '../model/extensions.js';
import { belongsTo, DATA, join, META, OWNERS, recordOwner, RELIST, type OwnerHooks, type RecordOwner } from '../model/internal.js';
import { Model } from '../model/Model.js';
import { takeServerRecord } from '../model/persistence.js';
import { eraseRecord } from '../model/save.js';
import type { Batch } from '../operation/Batch.js';
import { idKey, keyOf, type IdKey } from '../store/list.js';
import type { SyncOptions } from '../store/options.js';
import type { PendingChanges } from '../store/pending.js';
import { StoreRecords, toDestroy } from '../store/records.js';
import type { Store } from '../store/Store.js';
import { describeValue } from '../util/options.js';
import { checkNested, readNested } from './nested.js';
import { parentCreated, parentErased, settleReferences } from './references.js';
import { place, placing, unplace, views } from './stores.js';
import { syncStores } from './sessionSync.js';

type AnyModel = Model;
/** A model's records by id, forgetting each id whose record was collected. */
class Ids extends Map<IdKey, WeakRef<AnyModel>> {
  readonly gone = new FinalizationRegistry<IdKey>((key) => {
    if (this.get(key)?.deref() === undefined) this.delete(key);
  });
}

/** What a listing store's records link to: hooks that tell the session, then the store (while it lives). */
type Forwarder = OwnerHooks & { [SESSION]: Session | undefined };

/** A store of the session, as the session keeps it: weakly, but for a listing store's records. */
interface Member {
  readonly records: WeakRef<StoreRecords<AnyModel>>;
  /**
   * A store that lists records for the session (not an association's view over the keys): its
   * records, held strongly (the store's box and pending changes, which do not hold the store),
   * and the forwarder its records link to.
   */
  readonly listing: { readonly model: object; readonly box: { readonly all: readonly AnyModel[] }; readonly changes: PendingChanges<AnyModel>; readonly via: Forwarder } | undefined;
}

/**
 * Where a record the session holds by itself notes it (a property, not a WeakMap: no ephemeron
 * table), and where a listing store's forwarder notes the session (until the store is collected).
 */
const SESSION: unique symbol = Symbol('rest-proxy.session');

/** The session that holds the record, if any: its own, or the one of a store that lists it. */
export function sessionOf(record: object): Session | undefined {
  const own: unknown = Reflect.get(record, SESSION);
  if (own instanceof Session) return own;
  const owners = record instanceof Model ? record[OWNERS] : null;
  if (owners === null) return undefined;
  for (const link of Array.isArray(owners) ? owners : [owners]) {
    const session: unknown = Reflect.get(link.deref() ?? {}, SESSION);
    if (session instanceof Session) return session;
  }
  return undefined;
}

/** Whether the session holds the record by itself (not only through a store that lists it). */
function holdsItself(session: Session, record: object): boolean {
  return Reflect.get(record, SESSION) === session;
}

/** Forget the record's id (the one it was held under, found by its reference). */
function forget(ids: Ids, record: object): void {
  for (const [key, ref] of ids) if (ref.deref() === record) ids.delete(key);
}

let theDefault: Session | undefined;

/**
 * One record per (model, id): the grid's row, `post.getUser()` and a nested author are one
 * object. `Session.default` serves the stores of models with associations; make one per request
 * for server rendering. Clean records nothing else references can be collected.
 */
export class Session implements Identity {
  /** The session of stores of models with associations that are given none. */
  static get default(): Session {
    return (theDefault ??= new Session());
  }

  /** The records the session holds by itself, per model. */
  readonly #models = new Map<object, Ids>();
  /** New, edited and unsynced records: held strongly. */
  readonly #strong = new Set<AnyModel>();
  readonly #owner: RecordOwner;
  /** The stores that use the session (their pending records are its to send; a listing store's records are found through it). */
  readonly #stores = new Set<Member>();
  readonly #members = new WeakMap<object, Member>();
  /** What a listing store collected without destroy() had pending, for session.sync(): new records (false), removed ones (true). */
  readonly #left = new Map<AnyModel, boolean>();
  /** A listing store collected without destroy(): the session holds what it listed. */
  readonly #lost = new FinalizationRegistry<Member>((member) => this.#gone(member));

  constructor() {
    this.#owner = recordOwner({
      proxy: () => undefined,
      holds: (id, record) => {
        const key = keyOf(id);
        const other = key === undefined ? undefined : this.#find(record.constructor, key);
        return other !== undefined && other !== record;
      },
      afterEdit: (record, names) => this.#changed(record, names),
      afterCommit: (record, names, created) => {
        if (!this.#mine(record)) return;
        if (created) {
          this.#left.delete(record);
          this.#rekey(record, false);
          parentCreated(record);
        }
        this.#changed(record, names);
      },
      afterReject: (record) => {
        if (!this.#mine(record)) return;
        settleReferences(record);
        this.#changed(record, undefined);
      },
      afterErase: (record) => {
        if (!this.#mine(record)) return;
        // A new owned child ends with its parent: dropped, never sent (API.md 9.3).
        for (const child of extensions.destroysFirst?.(record) ?? []) if (child[META]?.state.status === 'new') eraseRecord(child);
        this.#strong.delete(record);
        this.#left.delete(record);
        if (holdsItself(this, record)) forget(this.#ids(record.constructor), record);
        parentErased(record);
        unplace(record);
      },
      afterChange: () => undefined,
    });
  }

  #mine(record: object): record is AnyModel {
    return sessionOf(record) === this;
  }

  #ids(model: object): Ids {
    let ids = this.#models.get(model);
    if (ids === undefined) this.#models.set(model, (ids = new Ids()));
    return ids;
  }

  /** The session's record of `model` with this id, if it holds one. */
  get<M extends AnyModel>(model: abstract new (...args: never[]) => M, id: unknown): M | undefined {
    const key = keyOf(id);
    const record = key === undefined ? undefined : this.#find(model, key);
    return record instanceof model ? record : undefined;
  }

  /** A listing store of `model` (not `except`) and its records, if it lives: a collected one's records are handed over now. */
  #listing(member: Member, model: object, except?: Member): StoreRecords<AnyModel> | undefined {
    if (member.listing?.model !== model || member === except) return undefined;
    const records = member.records.deref();
    if (records === undefined) this.#gone(member);
    return records;
  }

  /** The record of `model` with this key: one held by itself, else one a listing store lists, removed or keeps off its page (unless `swept`: ADOPT holds those itself first). */
  #find(model: object, key: IdKey, except?: Member, swept = false): AnyModel | undefined {
    const held = this.#models.get(model)?.get(key)?.deref();
    if (held !== undefined) return held;
    const stores = this.#stores.size;
    for (const member of this.#stores) {
      const records = this.#listing(member, model, except);
      const found = records?.list.find(key) ?? (records === undefined || swept ? undefined : records.changes.find((record) => idKey(record) === key));
      if (found !== undefined) return found;
    }
    // A collected store's records were handed over meanwhile: it may be one of them.
    return stores === this.#stores.size ? undefined : this.#models.get(model)?.get(key)?.deref();
  }

  /** Every record of `model` the session holds now (new ones too). */
  records<M extends AnyModel>(model: abstract new (...args: never[]) => M): M[] {
    const out: M[] = [];
    const add = (record: AnyModel | undefined): void => {
      if (record instanceof model) out.push(record);
    };
    // Those the session holds by itself come from its map, after the stores (a collected one's are handed over on the way).
    for (const member of this.#stores) {
      const records = this.#listing(member, model);
      if (records !== undefined) for (const record of [...records.list.all, ...records.changes.offPage, ...records.changes.removed]) if (!holdsItself(this, record)) add(record);
    }
    for (const ref of this.#models.get(model)?.values() ?? []) add(ref.deref());
    // New records without an id yet (those with one are in the map).
    for (const record of this.#strong) if (idKey(record) === undefined) add(record);
    return out;
  }

  /**
   * The store whose records these are is the session's (once): `session.sync()` sends its pending
   * records. A listing store's records link to a forwarder the session holds, which tells the
   * session of those it does not hold by itself, then the store (so that the session hears of
   * them even once the store is collected, until it holds them itself); its records are kept, to
   * be held by the session once the store is collected.
   */
  #enlist(from: StoreRecords<AnyModel>): Member {
    let member = this.#members.get(from);
    if (member !== undefined) return member;
    const { list, changes, owner } = from;
    const its = owner.link;
    const mine = this.#owner;
    /** Tell the session of a record it does not hold by itself (else its own hooks tell it), then the store while it lives. */
    const tell = (record: object, hear: (hooks: OwnerHooks) => void): void => {
      if (!holdsItself(this, record)) hear(mine);
      const store = its.deref();
      if (store !== undefined) hear(store);
    };
    const via: Forwarder = {
      [SESSION]: this,
      proxy: () => its.deref()?.proxy(),
      holds: (id, record) => its.deref()?.holds(id, record) === true || mine.holds(id, record),
      afterEdit: (record, names) => tell(record, (hooks) => hooks.afterEdit(record, names)),
      afterCommit: (record, names, created) => tell(record, (hooks) => hooks.afterCommit(record, names, created)),
      afterReject: (record) => tell(record, (hooks) => hooks.afterReject(record)),
      afterErase: (record) => tell(record, (hooks) => hooks.afterErase(record)),
      afterChange: (record) => its.deref()?.afterChange(record),
      [RELIST]: (record) => its.deref()?.[RELIST]?.(record),
    };
    member = { records: new WeakRef(from), listing: views.has(from.host.store) ? undefined : { model: from.host.model(), box: list.box, changes, via } };
    this.#members.set(from, member);
    this.#stores.add(member);
    if (member.listing === undefined) return member;
    this.#lost.register(from, member);
    // Before the store lists any record (this is its first HOLD or ADOPT): its records join through the forwarder.
    // A destroyed store hands its pending records over as a collected one does: the next session.sync() sends them.
    Object.assign(owner, { link: new WeakRef(via), left: (record: object) => this.#let(record), released: () => this.#gone(member) });
    return member;
  }

  /** A listing store was collected or destroyed: the records it still held are held by the session itself. */
  #gone(member: Member): void {
    if (!this.#stores.delete(member) || member.listing === undefined) return;
    const { box, changes, via } = member.listing;
    via[SESSION] = undefined; // its records are no longer found through it
    for (const record of [...box.all, ...changes.offPage, ...changes.removed]) this.#let(record);
    // Its new records and its removals stay pending: the next session.sync() sends them.
    for (const record of [...box.all, ...changes.offPage]) if (record.phantom && !record.erased) this.#left.set(record, false);
    for (const record of changes.removed) if (toDestroy(record)) this.#left.set(record, true);
  }

  /** A listing store let the record go: the session holds it itself, unless another of its stores lists it, or it holds another record of its id. */
  #let(record: object): void {
    if (!(record instanceof Model) || record.erased || sessionOf(record) === this) return;
    const key = idKey(record);
    const other = key === undefined ? undefined : this.#find(record.constructor, key);
    if (other === undefined || other === record) this.#hold(record);
  }

  /**
   * Send the pending records of the session, across models and stores, in dependency order:
   * those its stores list as new or edited, its other edited records, the new parents they need,
   * and its stores' removed records (owned children destroyed before their parent). Resolves and
   * rejects like `store.sync()` (a BatchError; what failed stays pending); with `batchActions`,
   * one request per model and action. Each store with records in it shows it syncing, then its outcome.
   */
  async sync(options: SyncOptions = {}): Promise<Batch> {
    const stores: Store<AnyModel>[] = [];
    for (const member of this.#stores) {
      const store = member.records.deref()?.host.store;
      if (store === undefined) this.#gone(member);
      else stores.push(store);
    }
    return syncStores(stores, this.#strong, this.#left, options);
  }

  /** @internal Hold a record (a TypeError for a record of another session, or a second record with an id held). `from`: the records of the store that lists it. */
  [HOLD](record: AnyModel, from?: object): void {
    const listing = from instanceof StoreRecords;
    if (listing) this.#enlist(from);
    if (!holdsItself(this, record)) {
      const held = sessionOf(record);
      if (held !== undefined && held !== this) throw new TypeError(`${record.getModelClass().getEntityName()} ${describeValue(record.getId() ?? record.clientId)} belongs to another session: records of two sessions cannot be linked`);
      const key = idKey(record);
      const there = key === undefined ? undefined : this.#find(record.constructor, key);
      if (there !== undefined && there !== record) throw new TypeError(`Session: it holds another ${record.getModelClass().getEntityName()} with id ${describeValue(key)}`);
      this.#hold(record);
      place(this, record, undefined);
    }
    // Listed again (after a collected store's hand-over, which the look above may run): its store sends it.
    if (listing) this.#left.delete(record);
  }

  /** Hold the record itself: weakly while it is clean, found by its id. */
  #hold(record: AnyModel): void {
    Reflect.set(record, SESSION, this);
    const key = idKey(record);
    if (key !== undefined) this.#keep(record, key);
    const link = this.#owner.link;
    join(record, this.#owner);
    // Told first, as when it held the record before a store listed it: its stores' listeners see its places updated.
    const owners = record[OWNERS];
    if (Array.isArray(owners) && owners[0] !== link) record[OWNERS] = [link, ...owners.filter((other) => other !== link)];
    this.#retain(record);
  }

  #keep(record: AnyModel, key: IdKey): void {
    const ids = this.#ids(record.constructor);
    ids.set(key, new WeakRef(record));
    ids.gone.register(record, key);
  }

  /**
   * @internal A load's records as the session's: the one it holds for an id takes the server's
   * values (unsaved edits kept on top), unless the loading store holds it (the store merges its
   * own). Nested data is checked first (kind 'parse': nothing applied), then read. A listing
   * store's new records are left to it: nothing per record unless the session holds records of
   * the model elsewhere (one lookup), the record has nested data, or an association store of
   * its keys exists (placed there).
   */
  [ADOPT]<M extends AnyModel>(model: new (...args: never[]) => M, records: M[], from?: object): M[] {
    const loader = from instanceof StoreRecords ? from : undefined;
    const member = loader === undefined ? undefined : this.#enlist(loader);
    const nested = checkNested(model, records);
    const listing = member?.listing === undefined ? undefined : member;
    const find = this.#finder(model, listing);
    const places = listing !== undefined && placing(model);
    if (listing !== undefined && find === undefined && nested.size === 0 && !places) return records;
    return records.map((fresh) => {
      const key = find === undefined ? undefined : idKey(fresh);
      const found = key === undefined ? undefined : find?.(key);
      const held = found instanceof model ? found : undefined;
      if (nested.has(fresh)) readNested(this, held ?? fresh, fresh[DATA]);
      if (held === undefined) {
        if (listing === undefined) this[HOLD](fresh);
        else if (places) place(this, fresh, undefined);
        return fresh;
      }
      if (held === fresh || (loader !== undefined && belongsTo(held, loader.owner))) return fresh;
      takeServerRecord(held, fresh);
      // Listed by two stores now: the session hears of it through its own hooks.
      if (listing !== undefined && !holdsItself(this, held)) this.#hold(held);
      return held;
    });
  }

  /**
   * How a load looks for the records the session holds of `model` (outside the loading listing
   * store): undefined when it holds none. The records other listing stores removed or keep off
   * their page are held by the session itself first, so that a lookup is one per store.
   */
  #finder(model: object, except: Member | undefined): ((key: IdKey) => AnyModel | undefined) | undefined {
    let any = false;
    for (const member of this.#stores) {
      const records = this.#listing(member, model, except);
      if (records === undefined) continue;
      any = true;
      for (const record of [...records.changes.removed, ...records.changes.offPage]) if (!record.erased && !holdsItself(this, record)) this.#hold(record);
    }
    // After the look through the stores: a collected one's records were just handed over.
    return any || (this.#models.get(model)?.size ?? 0) > 0 ? (key) => this.#find(model, key, except, true) : undefined;
  }

  /** The record's id may have changed (`edited`: setId or set, which may leave an old id to forget): it is found by its new id. */
  #rekey(record: AnyModel, edited: boolean): void {
    // One a store lists is found through the store (which indexes it again).
    if (!holdsItself(this, record)) return;
    const ids = this.#ids(record.constructor);
    const key = idKey(record);
    if (key !== undefined && ids.get(key)?.deref() === record) return;
    if (edited) forget(ids, record); // a look through the ids: only for an edited id
    if (key !== undefined) this.#keep(record, key);
  }

  #changed(record: object, names: readonly string[] | undefined): void {
    if (!this.#mine(record)) return;
    const idEdited = names?.includes(record.getModelClass().idProperty) === true;
    // A reject may have put back the id it had (rekeyed only then: the look through the ids is for a changed id).
    if (names === undefined || idEdited) this.#rekey(record, true);
    this.#retain(record);
    place(this, record, names);
  }

  /** New and edited records are held strongly, clean ones weakly. */
  #retain(record: AnyModel): void {
    if (record.dirty && !record.erased) this.#strong.add(record);
    else this.#strong.delete(record);
  }
}

