/**
 * A Session: one record per (model, id) across the stores that use it. Clean records are held
 * weakly (a WeakRef, forgotten by a FinalizationRegistry once collected); new and edited ones
 * strongly until they are synced. It owns its records as a store does (model/internal.ts), to
 * hear their edits, commits and erasures: the association stores follow the keys through it.
 */
import { BatchError } from '../errors/BatchError.js';
import { ADOPT, ENLIST, HOLD, type Identity } from '../model/extensions.js';
import { belongsTo, DATA, join, recordOwner, type RecordOwner } from '../model/internal.js';
import type { Model } from '../model/Model.js';
import { takeServerRecord } from '../model/persistence.js';
import { Batch } from '../operation/Batch.js';
import type { Operation } from '../operation/Operation.js';
import { idKey, keyOf, type IdKey } from '../store/list.js';
import type { SyncOptions } from '../store/options.js';
import { Store } from '../store/Store.js';
import { SHARED, type SyncShare } from '../store/sync.js';
import { describeValue } from '../util/options.js';
import { checkNested, readNested } from './nested.js';
import { parentCreated, parentErased, settleReferences } from './references.js';
import { place, unplace } from './stores.js';
import { syncGraph } from './sync.js';

type AnyModel = Model;
/** A model's records by id, forgetting each id whose record was collected. */
class Ids extends Map<IdKey, WeakRef<AnyModel>> {
  readonly gone = new FinalizationRegistry<IdKey>((key) => {
    if (this.get(key)?.deref() === undefined) this.delete(key);
  });
}

/** Where a record notes its session (a property, not a WeakMap: a load of 100,000 records fills no ephemeron table). */
const SESSION: unique symbol = Symbol('rest-proxy.session');

/** The session that holds the record, if any. */
export function sessionOf(record: object): Session | undefined {
  const session: unknown = Reflect.get(record, SESSION);
  return session instanceof Session ? session : undefined;
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

  readonly #models = new Map<object, Ids>();
  /** New, edited and unsynced records: held strongly. */
  readonly #strong = new Set<AnyModel>();
  readonly #owner: RecordOwner;
  /** The stores that use the session (their removed records are its to destroy). */
  readonly #stores = new Set<WeakRef<Store<AnyModel>>>();

  constructor() {
    this.#owner = recordOwner({
      proxy: () => undefined,
      holds: (id, record) => {
        const key = keyOf(id);
        const other = key === undefined || !(record instanceof Object) ? undefined : this.#ids(record.constructor).get(key)?.deref();
        return other !== undefined && other !== record;
      },
      afterEdit: (record, names) => this.#changed(record, names),
      afterCommit: (record, names, created) => {
        if (!this.#mine(record)) return;
        if (created) {
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
        this.#strong.delete(record);
        forget(this.#ids(record.constructor), record);
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
    const record = key === undefined ? undefined : this.#models.get(model)?.get(key)?.deref();
    return record instanceof model ? record : undefined;
  }

  /** Every record of `model` the session holds now (new ones too). */
  records<M extends AnyModel>(model: abstract new (...args: never[]) => M): M[] {
    const out: M[] = [];
    for (const ref of this.#models.get(model)?.values() ?? []) {
      const record = ref.deref();
      if (record instanceof model) out.push(record);
    }
    // New records without an id yet (those with one are in the map).
    for (const record of this.#strong) if (record instanceof model && idKey(record) === undefined) out.push(record);
    return out;
  }

  /** @internal A store uses the session. */
  [ENLIST](store: object): void {
    if (store instanceof Store) this.#stores.add(new WeakRef(store));
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
    for (const ref of this.#stores) {
      const store = ref.deref();
      if (store === undefined) this.#stores.delete(ref);
      else stores.push(store);
    }
    const destroy: AnyModel[] = [];
    const records = new Set<AnyModel>();
    /** Which stores hear of each record's write. */
    const hears = new Map<object, SyncShare[]>();
    const shares: SyncShare[] = [];
    for (const store of stores) {
      const removed = store.getRemovedRecords().filter((record) => !record.erased);
      const listed = [...store.getNewRecords(), ...store.getUpdatedRecords()];
      if (removed.length + listed.length === 0) continue;
      const share = store[SHARED]();
      shares.push(share);
      for (const record of [...removed, ...listed]) hears.set(record, [...(hears.get(record) ?? []), share]);
      destroy.push(...removed);
      for (const record of listed) records.add(record);
    }
    // Edited records no store lists (loaded by Model.load, or reached by an accessor).
    for (const record of this.#strong) if (!record.phantom && !record.erased && record.dirty) records.add(record);
    const wrote = (operation: Operation): void => {
      if (operation.wasSuccessful()) for (const share of new Set(operation.records.flatMap((record) => hears.get(record) ?? []))) share.wrote(operation);
    };
    try {
      const batch = await syncGraph({ create: [...records], destroy }, { ...options, onOperationComplete: wrote });
      for (const share of shares) share.end(batch, undefined);
      return batch;
    } catch (error) {
      for (const share of shares) share.end(error instanceof BatchError ? error.batch : new Batch(), error instanceof BatchError ? error : undefined);
      throw error;
    }
  }

  /** @internal Hold a record (a TypeError for a record of another session, or a second record with an id held). */
  [HOLD](record: AnyModel): void {
    const held = sessionOf(record);
    if (held === this) return;
    if (held !== undefined) throw new TypeError(`${record.getModelClass().getEntityName()} ${describeValue(record.getId() ?? record.clientId)} belongs to another session: records of two sessions cannot be linked`);
    const ids = this.#ids(record.constructor);
    const key = idKey(record);
    const there = key === undefined ? undefined : ids.get(key)?.deref();
    if (there !== undefined && there !== record) throw new TypeError(`Session: it holds another ${record.getModelClass().getEntityName()} with id ${describeValue(key)}`);
    Reflect.set(record, SESSION, this);
    if (key !== undefined) {
      ids.set(key, new WeakRef(record));
      ids.gone.register(record, key);
    }
    join(record, this.#owner);
    this.#retain(record);
    place(this, record, undefined);
  }

  /**
   * @internal A load's records as the session's: the one it holds for an id takes the server's
   * values (unsaved edits kept on top), unless the loading store holds it (the store merges its
   * own). Nested data is checked first (kind 'parse': nothing applied), then read.
   */
  [ADOPT]<M extends AnyModel>(model: new (...args: never[]) => M, records: M[], owner?: RecordOwner): M[] {
    checkNested(model, records);
    return records.map((fresh) => {
      const key = idKey(fresh);
      const held = key === undefined ? undefined : this.get(model, key);
      const record = held ?? fresh;
      readNested(this, record, fresh[DATA]);
      if (held === undefined) this[HOLD](fresh);
      else if (held !== fresh && (owner === undefined || !belongsTo(held, owner))) takeServerRecord(held, fresh);
      else return fresh;
      return record;
    });
  }

  /** The record's id may have changed (`edited`: setId or set, which may leave an old id to forget): it is found by its new id. */
  #rekey(record: AnyModel, edited: boolean): void {
    const ids = this.#ids(record.constructor);
    const key = idKey(record);
    if (key !== undefined && ids.get(key)?.deref() === record) return;
    if (edited) forget(ids, record); // a look through the ids: only for an edited id
    if (key === undefined) return;
    ids.set(key, new WeakRef(record));
    ids.gone.register(record, key);
  }

  #changed(record: object, names: readonly string[] | undefined): void {
    if (!this.#mine(record)) return;
    const idEdited = names?.includes(record.getModelClass().idProperty) === true;
    if (names === undefined || idEdited) this.#rekey(record, idEdited);
    this.#retain(record);
    place(this, record, names);
  }

  /** New and edited records are held strongly, clean ones weakly. */
  #retain(record: AnyModel): void {
    if (record.dirty && !record.erased) this.#strong.add(record);
    else this.#strong.delete(record);
  }
}
