import { ProxyError, type FieldErrors } from '../errors/ProxyError.js';
import { noRecordRead } from '../errors/messages.js';
import { Operation } from '../operation/Operation.js';
import { CARRY, ERASE, FAIL, SEND, STORED, SUCCEED, WRITE_STATE } from '../operation/protocol.js';
import type { Request } from '../operation/Request.js';
import { canonicalIsoTime } from '../util/isoDate.js';
import { isValidId, type Action, type FieldInfo, type RecordLike, type RecordWriter } from '../operation/types.js';
import type { Proxy } from '../proxy/Proxy.js';
import { createProxy, type ProxyTypeConfig } from '../proxy/registry.js';
import type { Subscriber } from '../util/notify.js';
import { describeValue, isPlainObject } from '../util/options.js';
import { dev } from '../util/dev.js';
import { define, put } from '../util/path.js';
import { sameValue, type FieldDeclaration } from './fields.js';
import { committed, DATA, eachOwner, edited, META, metaOf, newMeta, now, OWNERS, type Internals, type OwnerLink, type RecordMeta } from './internal.js';
import { entityNameOf, INFO, infoOf, recordInfo, type ModelInfo } from './modelInfo.js';
import { extensions, type RecordSession } from './extensions.js';
import { readById, takeServerRecord } from './persistence.js';
import { destroyRecord, eraseRecord, failWrite, proxyOf, saveRecord, sendWrite, succeedWrite } from './save.js';
import { RecordSnapshot, snapshotOf, subscribeTo } from './snapshot.js';
import { defineModel, type ProxyOf } from './define.js';
import type { FieldErrorsOf, IdOf, ModelClass, ModelInit, PersistOptions, SaveOptions } from './types.js';
import { NO_ERRORS, validateRecord, type Validators } from './validate.js';
import { convertOrThrow, fromServerValue, getData, initValues, ownValue, readField, rejectEdits, setValues } from './values.js';
import { isPhantom, NEW, SAVED, type CreateRequest, type WriteState } from './writeState.js';

export type { DataOf, FieldConfigOf, FieldErrorsOf, FieldsOf, IdOf, ModelClass, ModelInit, PersistOptions, SaveOptions } from './types.js';
export { RecordSnapshot };

const proxies = new WeakMap<object, Proxy>();
let clientIds = Math.floor(Math.random() * 2 ** 48); // at random: unique across tabs and reloads (an outbox stores them)

/** @internal A client id read back from storage (the outbox's entries): this page gives no new record one at or below it. */
export const reserveClientId = (id: string): number => (clientIds = Math.max(clientIds, Number(/-(\d+)$/.exec(id)?.[1] ?? 0)));
/** A key that exists only in types: it gives each model's records their data type, so a Post is not a User. */
declare const DATA_TYPE: unique symbol;

/** Set while `recordFromServer` constructs a record, so that the constructor adopts server data as is. */
let adopting: Record<string, unknown> | undefined;

/** One record read by id; `held`'s ETag goes as If-None-Match, and a 304 answers with `held` itself. */
async function readOne(proxy: Proxy, id: unknown, options: PersistOptions, held?: { readonly etag: string | undefined }): Promise<unknown> {
  const operation = readById(id, options, held?.etag);
  await proxy.read(operation);
  const item = operation.notModified === true ? held : operation.resultSet?.records[0];
  if (item === undefined) throw new ProxyError('server', noRecordRead(operation), { operation, request: operation.request, response: operation.response });
  return item;
}

/** Make a record of `model` that adopts server data as is (converted lazily). */
export function recordFromServer<T extends Model<object>>(model: ModelClass<T>, data: Record<string, unknown>): T {
  adopting = data;
  try {
    return new model();
  } finally {
    adopting = undefined;
  }
}

/**
 * A typed record. Declare a model by subclassing:
 *
 *     class User extends Model<{ id: number; name: string; email: string }> {
 *       static override fields = ['id', 'name', { name: 'email', type: 'string' }];
 *       static override proxy = { type: 'rest', url: '/users' };
 *     }
 *
 * A record made without an id is phantom (new): `save()` creates it (POST), and once the server
 * has given it an id, `save()` updates it (PUT).
 */
export class Model<D extends object = Record<string, unknown>> implements RecordLike, Internals {
  /** The fields: names (type 'auto') or configs. A subclass's fields add to its parent's. */
  static fields: readonly FieldDeclaration[] = [];
  /** The proxy: a Proxy, or a config such as `{ type: 'rest', url: '/users' }` (made once per class). */
  static proxy: Proxy | ProxyTypeConfig | undefined = undefined;
  /** The id field's name. Default `'id'`. */
  static idProperty = 'id';
  /** The property in a server's answer that echoes a new record's client id (and that the writer sends). Default none. */
  static clientIdProperty: string | undefined = undefined;
  /**
   * The name used in messages, client ids and by presets that need one (Rails' `{ "user": ... }`).
   * Default: the last segment of the proxy's url (`users`); never the class name, which
   * minifiers rename. @example static override entityName = 'User';
   */
  static entityName = '';
  /** The validators per field, checked by `validate()` and before a save or sync sends a record. @example { name: presence() } */
  static validators: Validators | undefined = undefined;
  /** A model class to extend, whose record type follows from its fields: `class User extends Model.define({ fields: { name: 'string' } }) {}`. */
  static define = defineModel;

  /** The data type of the records (types only: nothing at run time), so that records of different models are different types. */
  declare readonly [DATA_TYPE]?: { [K in keyof D]: D[K] };
  /** @internal */
  declare readonly [INFO]: ModelInfo | undefined;
  // Declared, not defined: the constructor sets each one (no class-field definitions in the build).
  /** @internal */
  declare [DATA]: Record<string, unknown>;
  /** @internal */
  declare [META]: RecordMeta | null;
  /** @internal */
  declare [OWNERS]: OwnerLink | OwnerLink[] | null;

  constructor(data?: ModelInit<D>) {
    this[OWNERS] = null;
    const info = infoOf(new.target);
    const raw = adopting;
    if (raw !== undefined) {
      // From a server: the parsed object is adopted as is, and converted lazily.
      adopting = undefined;
      this[DATA] = raw;
      this[META] = null;
      for (const field of info.eager) put(raw, field.name, fromServerValue(this, field, raw));
      return;
    }
    const values: Record<string, unknown> = {};
    this[DATA] = values;
    initValues(this, info, values, data);
    this[META] = isValidId(values[info.idProperty]) ? null : newMeta(NEW);
  }

  // ---- the class ---------------------------------------------------------------------------

  /** Make a record from one item of a server's answer (the reader calls this). */
  static fromServer<T extends Model>(this: ModelClass<T>, data: Record<string, unknown>): T { return recordFromServer(this, data); }

  /** The declared fields. */
  static getFields(): readonly FieldInfo[] { return infoOf(this).fields; }

  /** The name used in messages and client ids (see `entityName`). */
  static getEntityName(): string { return entityNameOf(this); }

  /** The proxy of this class, made from `static proxy` the first time it is needed (typed as the proxy declared). */
  static getProxy<C extends { readonly proxy: unknown }>(this: C): ProxyOf<C['proxy']>;
  static getProxy(): Proxy {
    const cached = proxies.get(this);
    if (cached) return cached;
    const declared = this.proxy;
    if (declared === undefined) {
      throw new TypeError(`${this.getEntityName()} has no proxy${dev(": declare one, e.g. static override proxy = { type: 'rest', url: '/users' }")}`);
    }
    const proxy = createProxy(declared);
    proxy.model ??= this;
    proxies.set(this, proxy);
    return proxy;
  }

  /** Replace the proxy of this class (a proxy, or a config for the registry). */
  static setProxy(proxy: Proxy | ProxyTypeConfig): Proxy {
    const made = createProxy(proxy);
    made.model ??= this;
    proxies.set(this, made);
    this.proxy = made;
    return made;
  }

  /**
   * Read one record by id (GET /users/2). Resolves with the record; rejects with a TypeError when
   * no id is given (undefined, null, ''), or with the ProxyError of the request (kind 'config' for
   * an id that cannot be put in a url: an object, NaN, `..`).
   */
  static async load<T extends Model>(this: ModelClass<T>, id: unknown, options: PersistOptions = {}): Promise<T> {
    if (id === undefined || id === null || id === '') throw new TypeError(`${this.getEntityName()}.load: an id is needed, got ${describeValue(id)}`);
    const item = await readOne(options.proxy ?? this.getProxy(), id, options, extensions.heldFor?.(this, id, options));
    if (item instanceof this) return item;
    return recordFromServer(this, item instanceof Model ? item[DATA] : isPlainObject(item) ? item : {});
  }

  // ---- values ------------------------------------------------------------------------------

  getModelClass(): typeof Model {
    const model = recordInfo(this).model;
    return isModelClass(model) ? model : Model;
  }

  /** The value of a field (converted to its type). */
  get<K extends keyof D & string>(name: K): D[K];
  get(name: string): unknown { return readField(this, name); }

  /**
   * Set one field, or several at once. Values are converted to the field's type (a value that
   * cannot be converted is a TypeError naming it); a change makes the record dirty.
   */
  set<K extends keyof D & string>(name: K, value: D[K] | null): this;
  set(values: Partial<{ [K in keyof D]: D[K] | null }>): this;
  set(nameOrValues: string | object, value?: unknown): this {
    const changed = setValues(this, nameOrValues, value);
    if (changed.length > 0) edited(this, changed);
    return this;
  }

  /** The id (undefined for a new record until the server assigns one). */
  getId(): IdOf<D> | undefined;
  getId(): unknown { return readField(this, recordInfo(this).idProperty); }

  /**
   * Set the id. It does not end phantom: only the server's answer to a create does. An id that
   * another record of one of its stores has is a TypeError.
   */
  setId(id: unknown): this {
    const info = recordInfo(this);
    const name = info.idProperty;
    const value = info.idField ? convertOrThrow(this, info.idField, id) : id;
    if (!sameValue(readField(this, name), value)) {
      eachOwner(this, (owner) => {
        if (owner.holds(value, this)) throw new TypeError(`${entityNameOf(info.model)}.setId: the id ${describeValue(value)} is taken${dev(' by another record of its store')}`);
      });
      put(this[DATA], name, value);
      metaOf(this).version++;
      edited(this, [name]);
    }
    return this;
  }

  /** A copy of all values, converted, by field name. */
  getData(): Record<string, unknown> { return getData(this); }

  // ---- state -------------------------------------------------------------------------------

  /** True until the server has assigned an id. */
  get phantom(): boolean {
    const meta = this[META];
    return meta !== null && isPhantom(meta.state);
  }

  /** Unsaved: phantom, or with changed fields. */
  get dirty(): boolean {
    const meta = this[META];
    return meta !== null && (meta.modified !== undefined || isPhantom(meta.state));
  }

  /** The previous values of the changed fields. */
  get modified(): Partial<D> {
    const out: Partial<D> = {};
    const modified = this[META]?.modified;
    if (modified) for (const name of Object.keys(modified)) define(out, name, modified[name]);
    return out;
  }

  /** Unique per record: `'users-7'`. Sent as `clientIdProperty` so a server can echo it. */
  get clientId(): string {
    const meta = metaOf(this);
    return (meta.clientId ??= `${entityNameOf(recordInfo(this).model)}-${++clientIds}`);
  }

  /** The server's field errors of the last failed save (from a 422 or a 400 with field errors). */
  get errors(): FieldErrorsOf<D> { return this[META]?.errors ?? NO_ERRORS; }

  /** The ETag of the record's last response (sent as If-Match when the proxy has `etag: true`). */
  get etag(): string | undefined { return this[META]?.etag; }

  set etag(value: string | undefined) { if (value !== undefined || this[META] !== null) metaOf(this).etag = value; }

  /** The `Session` (rest-proxy/associations) that holds the record, if any. */
  get session(): RecordSession | undefined { return extensions.sessionOf?.(this); }

  /** True once the record was destroyed on the server (or dropped while new). */
  get erased(): boolean { return this[META]?.state.status === 'erased'; }

  /** True while a save or destroy of this record is in flight (or waiting for the one before it). */
  get saving(): boolean { return this[META]?.writing !== undefined; }

  /** The values of the changed fields. */
  getChanges(): Partial<D> {
    const out: Partial<D> = {};
    const modified = this[META]?.modified;
    if (modified) for (const name of Object.keys(modified)) define(out, name, readField(this, name));
    return out;
  }

  isModified(name: string): boolean {
    const modified = this[META]?.modified;
    return modified !== undefined && Object.hasOwn(modified, name);
  }

  /** Take the current values as saved (no request). A new record stays phantom until the server gives it an id. */
  commit(): this {
    const meta = this[META];
    if (meta === null || (meta.modified === undefined && meta.errors === undefined)) return this;
    const names = meta.modified ? Object.keys(meta.modified) : [];
    meta.modified = undefined;
    meta.errors = undefined;
    committed(this, names);
    return this;
  }

  /** Undo the changes since the last save; fields a lost update may have set stay dirty, to be sent back (docs/stores.md). */
  reject(): this {
    rejectEdits(this);
    return this;
  }

  /** The failing fields and their messages (frozen; empty when valid). Changes nothing. */
  validate(): FieldErrorsOf<D> { return validateRecord(this); }

  /** True when `validate()` finds nothing. */
  isValid(): boolean { return Object.keys(this.validate()).length === 0; }

  // ---- persistence -------------------------------------------------------------------------

  /**
   * Save the record: a phantom record is created (POST), a dirty one updated (PUT), a clean one
   * sends nothing. Resolves with the operation once the server's answer is merged. Saves of one
   * record run one after the other, so a second save never creates it twice. A create re-sent
   * under its idempotency key after an edit may be answered for its first try (a replay): the
   * save then sends the edits made since by an update, and resolves with the create once that
   * update succeeded (it rejects with the update's error if not: the record is created, and the
   * edits stay unsaved).
   */
  save(options: SaveOptions = {}): Promise<Operation> { return saveRecord(this, options); }

  /** Destroy the record (DELETE). A phantom record is dropped without a request, unless its create may have been applied. */
  destroy(options: PersistOptions = {}): Promise<Operation> { return destroyRecord(this, options); }

  /**
   * Read the record again; edits not yet saved are kept on top of the server's values. An answer
   * read before a write of the record completed is older than what that write saved: it changes nothing.
   */
  async reload(options: PersistOptions = {}): Promise<this> {
    const id = this.getId();
    if (!isValidId(id) || this.phantom) throw new TypeError(`${entityNameOf(recordInfo(this).model)}.reload: the record has no id yet${dev(' (it is new); save it first')}`);
    const sent = now();
    const item = await readOne(proxyOf(this, options), id, options, this);
    const fresh = item instanceof Model ? item : isPlainObject(item) ? recordFromServer(this.getModelClass(), item) : undefined;
    // A 304 (the record's ETag sent as If-None-Match) answers with the record itself: nothing to take.
    if (fresh === undefined || fresh === this || (this[META]?.wrote ?? 0) > sent) return this;
    // Nested association data (rest-proxy/associations): checked whole first, read once the record took the answer.
    const nested = extensions.readAnswer?.(this, fresh[DATA], true);
    takeServerRecord(this, fresh);
    nested?.();
    return this;
  }

  // ---- subscriptions -----------------------------------------------------------------------

  /**
   * Hear of every visible change (values, dirty, phantom, saving, errors): `listener` is called at
   * once with the current snapshot, then once per change batch, in a later microtask. Returns the
   * function that unsubscribes. Svelte can use a record as a store (`$record`).
   */
  subscribe(listener: Subscriber<RecordSnapshot<this>>): () => void { return subscribeTo(this, listener); }

  /** What the record looks like now: the same object until something visible changes. */
  getSnapshot(): RecordSnapshot<this> { return snapshotOf(this); }

  toJSON(): Record<string, unknown> { return getData(this); }

  // ---- the write protocol (proxies reach it through symbols the package does not export) ----

  /** @internal */
  get [WRITE_STATE](): WriteState { return this[META]?.state ?? SAVED; }

  /** @internal */
  [SEND](action: Action, request?: CreateRequest): unknown { return sendWrite(this, action, request); }

  /** @internal */
  [SUCCEED](snapshot: unknown, item: Record<string, unknown> | undefined, assignedId: unknown, written?: Record<string, unknown>): void { succeedWrite(this, snapshot, item, assignedId, written); }

  /** @internal */
  [FAIL](applied: 'no' | 'maybe', body?: unknown, errors?: FieldErrors, snapshot?: unknown, destroy?: boolean): void { failWrite(this, applied, body, errors, snapshot, destroy); }

  /** @internal */
  [CARRY](data: Record<string, unknown>, request: Request, writer: RecordWriter): Record<string, unknown> | undefined { return extensions.nestedWrite?.write(this, data, request, writer); }

  /** @internal */
  [ERASE](): void { eraseRecord(this); }

  /** @internal */
  [STORED](name: string): unknown {
    const value = ownValue(this[DATA], name);
    return value === undefined || (typeof value === 'string' && !Number.isNaN(canonicalIsoTime(value)) && recordInfo(this).byName.get(name)?.type === 'date') ? value : readField(this, name);
  }
}

// Vue's reactive() and ref() leave a record as it is, as markRaw would: a record tells its own
// changes (subscribe), and a deep proxy over thousands of records would only slow them down.
Object.defineProperty(Model.prototype, '__v_skip', { value: true });

export function isModelClass(value: unknown): value is typeof Model {
  return typeof value === 'function' && (value === Model || value.prototype instanceof Model);
}

