/**
 * A Session: one record per (model, id) across the stores that use it. Clean records are held
 * weakly (a WeakRef, forgotten by a FinalizationRegistry once collected); new and edited ones
 * strongly until they are synced. It owns its records as a store does (model/internal.ts), to
 * hear their edits, commits and erasures: the association stores follow the keys through it.
 */
import { ADOPT, HOLD, type Identity } from '../model/extensions.js';
import { belongsTo, DATA, join, recordOwner, type RecordOwner } from '../model/internal.js';
import type { Model } from '../model/Model.js';
import { takeServerRecord } from '../model/persistence.js';
import { idKey, keyOf, type IdKey } from '../store/list.js';
import { describeValue } from '../util/options.js';
import { checkNested, readNested } from './nested.js';
import { parentCreated, parentErased, settleReferences } from './references.js';
import { place, unplace } from './stores.js';

type AnyModel = Model;
type Ids = Map<IdKey, WeakRef<AnyModel>>;

/** What the session keeps of a record: its map, its key there, a weak reference to it. */
interface Entry {
  readonly session: Session;
  readonly ids: Ids;
  key: IdKey | undefined;
  readonly ref: WeakRef<AnyModel>;
}

const entries = new WeakMap<object, Entry>();

/** The session that holds the record, if any. */
export function sessionOf(record: AnyModel): Session | undefined {
  return entries.get(record)?.session;
}

function forget(entry: Entry): void {
  if (entry.key !== undefined && entry.ids.get(entry.key) === entry.ref) entry.ids.delete(entry.key);
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
  readonly #gone = new FinalizationRegistry<Entry>(forget);
  readonly #owner: RecordOwner;

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
        this.#rekey(record);
        if (created) parentCreated(record);
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
        const entry = entries.get(record);
        if (entry !== undefined) forget(entry);
        parentErased(record);
        unplace(record);
      },
      afterChange: () => undefined,
    });
  }

  #mine(record: object): record is AnyModel {
    return entries.get(record)?.session === this;
  }

  #ids(model: object): Ids {
    let ids = this.#models.get(model);
    if (ids === undefined) this.#models.set(model, (ids = new Map()));
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
    for (const record of this.#strong) if (record instanceof model && idKey(record) === undefined && !out.includes(record)) out.push(record);
    return out;
  }

  /** @internal Hold a record (a TypeError for a record of another session, or a second record with an id held). */
  [HOLD](record: AnyModel): void {
    const entry = entries.get(record);
    if (entry?.session === this) return;
    if (entry !== undefined) throw new TypeError(`${record.getModelClass().getEntityName()} ${describeValue(record.getId() ?? record.clientId)} belongs to another session: records of two sessions cannot be linked`);
    const ids = this.#ids(record.constructor);
    const key = idKey(record);
    const there = key === undefined ? undefined : ids.get(key)?.deref();
    if (there !== undefined && there !== record) throw new TypeError(`Session: it holds another ${record.getModelClass().getEntityName()} with id ${describeValue(key)}`);
    const ref = new WeakRef(record);
    const made: Entry = { session: this, ids, key, ref };
    entries.set(record, made);
    if (key !== undefined) ids.set(key, ref);
    this.#gone.register(record, made);
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

  /** The record's id changed (setId, a create's answer): it is found by its new id. */
  #rekey(record: AnyModel): void {
    const entry = entries.get(record);
    if (entry === undefined) return;
    const key = idKey(record);
    if (key === entry.key) return;
    forget(entry);
    entry.key = key;
    if (key !== undefined) entry.ids.set(key, entry.ref);
  }

  #changed(record: object, names: readonly string[] | undefined): void {
    if (!this.#mine(record)) return;
    if (names === undefined || names.includes(record.getModelClass().idProperty)) this.#rekey(record);
    this.#retain(record);
    place(this, record, names);
  }

  /** New and edited records are held strongly, clean ones weakly. */
  #retain(record: AnyModel): void {
    if (record.dirty && !record.erased) this.#strong.add(record);
    else this.#strong.delete(record);
  }
}
