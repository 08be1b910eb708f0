import { ProxyError, type FieldErrors } from '../errors/ProxyError.js';
import { noRecordRead } from '../errors/messages.js';
import { Operation } from '../operation/Operation.js';
import { ERASE, FAIL, SEND, STORED_DATE, SUCCEED, WRITE_STATE } from '../operation/protocol.js';
import { ResultSet } from '../operation/ResultSet.js';
import { isValidId, type Action, type FieldInfo, type RecordLike } from '../operation/types.js';
import type { Proxy } from '../proxy/Proxy.js';
import { createProxy, type ProxyTypeConfig } from '../proxy/registry.js';
import { canonicalIsoTime } from '../util/isoDate.js';
import { Subscribers, type Subscriber } from '../util/notify.js';
import { describeValue, isPlainObject } from '../util/options.js';
import { INVALID, sameValue, type Field, type FieldDeclaration } from './fields.js';
import { DATA, eachOwner, META, newMeta, OWNERS, touch, type Internals, type RecordMeta, type RecordOwner } from './internal.js';
import { entityNameOf, INFO, infoOf, recordInfo, type ModelInfo } from './modelInfo.js';
import { fromServerValue, getData, mergeServerValues, readField } from './values.js';
import { enqueue, eraseRecord, failWrite, metaOf, sendWrite, succeedWrite } from './writes.js';
import { isPhantom, mayExist, NEW, SAVED, type WriteState } from './writeState.js';

/** Options of save, destroy, load and reload. */
export interface PersistOptions {
  /** Params for this request. */
  params?: Record<string, unknown>;
  /** Cancels the request (kind 'abort'); the record is left as it was. */
  signal?: AbortSignal;
  /** Headers for this request. */
  headers?: Record<string, string>;
  /** A proxy to use instead of the model's (or the store's). */
  proxy?: Proxy;
}

/** A model class as a static method sees its `this`. */
export interface ModelClass<T extends Model = Model> {
  new (data?: Record<string, unknown>): T;
  /** The declared proxy (a proxy or a config), if any. */
  readonly proxy: Proxy | ProxyTypeConfig | undefined;
  getEntityName(): string;
  idProperty: string;
  clientIdProperty: string | undefined;
  getProxy(): Proxy;
  getFields(): readonly FieldInfo[];
}

/** The values a record is made of: any of its fields, each of its type (or null). */
export type ModelInit<D> = { [K in keyof D]?: D[K] | null };

/** The data type of a model: `DataOf<User>` is `{ id: number; name: string; ... }`. */
export type DataOf<M> = M extends Model<infer D> ? D : Record<string, unknown>;

/** The type of a model's id: its `id` field's type, when it declares one. */
export type IdOf<D> = D extends { id: infer I } ? I : unknown;

/** A record's field errors: the server's messages per field (a field of the model, or another key the server used). */
export type FieldErrorsOf<D> = { readonly [K in keyof D]?: readonly string[] } & { readonly [field: string]: readonly string[] | undefined };

/**
 * What a record looks like at one moment, for a UI: frozen, and a new object only when something
 * visible changed (so React, Vue and Svelte can compare it by identity).
 */
export class RecordSnapshot<M extends Model<object> = Model> {
  /** Every value, converted (a frozen copy). */
  readonly values: Readonly<Record<string, unknown>>;
  readonly phantom: boolean;
  readonly dirty: boolean;
  readonly saving: boolean;
  readonly erased: boolean;
  readonly errors: FieldErrorsOf<DataOf<M>>;

  readonly #id: unknown;

  constructor(readonly record: M) {
    this.values = Object.freeze(record.getData());
    this.#id = record.getId();
    this.phantom = record.phantom;
    this.dirty = record.dirty;
    this.saving = record.saving;
    this.erased = record.erased;
    this.errors = record.errors;
    Object.freeze(this);
  }

  /** The id then (typed like `record.getId`). */
  getId(): IdOf<DataOf<M>> | undefined;
  getId(): unknown {
    return this.#id;
  }

  /** A value as it was when the snapshot was taken (typed like `record.get`). */
  get<K extends keyof DataOf<M> & string>(name: K): DataOf<M>[K];
  get(name: string): unknown;
  get(name: string): unknown {
    return this.values[name];
  }

  /** Whether another snapshot shows the same (so the older one can be kept). */
  sameAs(other: RecordSnapshot<M>): boolean {
    if (other.record !== this.record || other.phantom !== this.phantom || other.dirty !== this.dirty || other.saving !== this.saving) return false;
    if (other.erased !== this.erased || other.errors !== this.errors || !sameValue(other.#id, this.#id)) return false;
    const keys = Object.keys(this.values);
    return keys.length === Object.keys(other.values).length && keys.every((key) => sameValue(this.values[key], other.values[key]));
  }
}

const proxies = new WeakMap<object, Proxy>();
let clientIds = 0;
const NO_ERRORS: FieldErrors = Object.freeze({});

/** Set while `recordFromServer` constructs a record, so that the constructor adopts server data as is. */
let adopting: Record<string, unknown> | undefined;

/** Make a record of `model` that adopts server data as is (converted lazily). */
export function recordFromServer<T extends Model>(model: ModelClass<T>, data: Record<string, unknown>): T {
  adopting = data;
  try {
    return new model();
  } finally {
    adopting = undefined;
  }
}

function unknownField(info: ModelInfo, where: string, name: string): TypeError {
  return new TypeError(`${entityNameOf(info.model)}${where}: unknown field "${name}" (fields: ${info.fields.map((field) => field.name).join(', ')})`);
}

function convertOrThrow(record: Model<object>, field: Field, value: unknown): unknown {
  const converted = field.convert(value, record);
  if (converted === INVALID) throw new TypeError(`${entityNameOf(recordInfo(record).model)}.${field.name}: cannot convert ${describeValue(value)} to ${field.type}`);
  return converted;
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

  /** @internal */
  declare readonly [INFO]: ModelInfo | undefined;
  /** @internal */
  [DATA]: Record<string, unknown>;
  /** @internal */
  [META]: RecordMeta | null;
  /** @internal */
  [OWNERS]: RecordOwner | RecordOwner[] | null;

  constructor(data?: ModelInit<D>) {
    this[OWNERS] = null;
    const info = infoOf(new.target);
    const raw = adopting;
    if (raw !== undefined) {
      // From a server: the parsed object is adopted as is, and converted lazily.
      adopting = undefined;
      this[DATA] = raw;
      this[META] = null;
      const eager = info.eager;
      for (let i = 0; i < eager.length; i++) {
        const field = eager[i];
        if (field !== undefined) raw[field.name] = fromServerValue(this, field, raw);
      }
      return;
    }
    if (data !== undefined && !isPlainObject(data)) {
      throw new TypeError(`${entityNameOf(new.target)}: a record is made of an object of field values, got ${describeValue(data)}`);
    }
    const input: Record<string, unknown> = data ?? {};
    const values: Record<string, unknown> = {};
    this[DATA] = values;
    for (const key of Object.keys(input)) {
      if (input[key] !== undefined && !info.byName.has(key) && (info.fields.length > 0 || key === '__proto__')) throw unknownField(info, '', key);
    }
    for (const field of info.fields) {
      const given = input[field.name];
      const value = given === undefined ? field.makeDefault() : given;
      if (value === undefined) continue;
      // A date given as the canonical ISO string waits for its first read, as a loaded one does:
      // it is valid, and it is written back as it is, never parsed just to be formatted again.
      values[field.name] = field.lazy && field.type === 'date' && typeof value === 'string' && !Number.isNaN(canonicalIsoTime(value)) ? value : convertOrThrow(this, field, value);
    }
    if (info.fields.length === 0) for (const key of Object.keys(input)) if (input[key] !== undefined) values[key] = input[key];
    this[META] = isValidId(values[info.idProperty]) ? null : newMeta(NEW);
  }

  // ---- the class ---------------------------------------------------------------------------

  /** Make a record from one item of a server's answer (the reader calls this). */
  static fromServer<T extends Model>(this: ModelClass<T>, data: Record<string, unknown>): T {
    return recordFromServer(this, data);
  }

  /** The declared fields. */
  static getFields(): readonly FieldInfo[] {
    return infoOf(this).fields;
  }

  /** The name used in messages and client ids (see `entityName`). */
  static getEntityName(): string {
    return entityNameOf(this);
  }

  /** The proxy of this class, made from `static proxy` the first time it is needed. */
  static getProxy(): Proxy {
    const cached = proxies.get(this);
    if (cached) return cached;
    const declared = this.proxy;
    if (declared === undefined) {
      throw new TypeError(`${this.getEntityName()} has no proxy: declare one, e.g. static override proxy = { type: 'rest', url: '/users' }`);
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
    const proxy = options.proxy ?? this.getProxy();
    const operation = new Operation({ action: 'read', id, ...requestOptions(options) });
    await proxy.read(operation);
    const item = operation.resultSet?.records[0];
    if (item === undefined) throw new ProxyError('server', noRecordRead(operation), { operation, request: operation.request, response: operation.response });
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
  get(name: string): unknown;
  get(name: string): unknown {
    return readField(this, name);
  }

  /**
   * Set one field, or several at once. Values are converted to the field's type (a value that
   * cannot be converted is a TypeError naming it); a change makes the record dirty.
   */
  set<K extends keyof D & string>(name: K, value: D[K] | null): this;
  set(values: Partial<{ [K in keyof D]: D[K] | null }>): this;
  set(nameOrValues: string | object, value?: unknown): this {
    if (typeof nameOrValues !== 'string' && !isPlainObject(nameOrValues)) {
      throw new TypeError(`${entityNameOf(recordInfo(this).model)}.set: expected a field name or an object of values, got ${describeValue(nameOrValues)}`);
    }
    const entries: [string, unknown][] = typeof nameOrValues === 'string' ? [[nameOrValues, value]] : Object.entries(nameOrValues);
    const info = recordInfo(this);
    const converted: [string, unknown, Field | undefined][] = entries.map(([name, raw]) => {
      const field = info.byName.get(name);
      if (field === undefined && (info.fields.length > 0 || name === '__proto__')) throw unknownField(info, '.set', name);
      return [name, field ? convertOrThrow(this, field, raw) : raw, field];
    });
    const changed: string[] = [];
    const data = this[DATA];
    for (const [name, next, field] of converted) {
      const current = readField(this, name);
      if (sameValue(current, next)) continue;
      data[name] = next;
      changed.push(name);
      const meta = metaOf(this);
      meta.version++;
      if (field !== undefined && !field.persist) continue;
      const modified = (meta.modified ??= {});
      if (!(name in modified)) modified[name] = current;
      else if (sameValue(modified[name], next)) delete modified[name];
      if (Object.keys(modified).length === 0) meta.modified = undefined;
    }
    if (changed.length > 0) {
      touch(this);
      eachOwner(this, (owner) => owner.afterEdit(this, changed));
    }
    return this;
  }

  /** The id (undefined for a new record until the server assigns one). */
  getId(): IdOf<D> | undefined;
  getId(): unknown {
    return readField(this, recordInfo(this).idProperty);
  }

  /** Set the id. It does not end phantom: only the server's answer to a create does. */
  setId(id: unknown): this {
    const info = recordInfo(this);
    const name = info.idProperty;
    const value = info.idField ? convertOrThrow(this, info.idField, id) : id;
    if (!sameValue(readField(this, name), value)) {
      this[DATA][name] = value;
      metaOf(this).version++;
      touch(this);
      eachOwner(this, (owner) => owner.afterEdit(this, [name]));
    }
    return this;
  }

  /** A copy of all values, converted, by field name. */
  getData(): Record<string, unknown> {
    return getData(this);
  }

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
    if (modified) Object.assign(out, modified);
    return out;
  }

  /** Unique per record: `'users-7'`. Sent as `clientIdProperty` so a server can echo it. */
  get clientId(): string {
    const meta = metaOf(this);
    return (meta.clientId ??= `${entityNameOf(recordInfo(this).model)}-${++clientIds}`);
  }

  /** The server's field errors of the last failed save (from a 422 or a 400 with field errors). */
  get errors(): FieldErrorsOf<D> {
    return this[META]?.errors ?? NO_ERRORS;
  }

  /** The ETag of the record's last response (sent as If-Match when the proxy has `etag: true`). */
  get etag(): string | undefined {
    return this[META]?.etag;
  }

  set etag(value: string | undefined) {
    if (value !== undefined || this[META] !== null) metaOf(this).etag = value;
  }

  /** True once the record was destroyed on the server (or dropped while new). */
  get erased(): boolean {
    return this[META]?.state.status === 'erased';
  }

  /** True while a save or destroy of this record is in flight (or waiting for the one before it). */
  get saving(): boolean {
    return this[META]?.writing !== undefined;
  }

  /** The values of the changed fields. */
  getChanges(): Partial<D> {
    const out: Partial<D> = {};
    const modified = this[META]?.modified;
    if (modified) for (const name of Object.keys(modified)) Object.assign(out, { [name]: readField(this, name) });
    return out;
  }

  isModified(name: string): boolean {
    const modified = this[META]?.modified;
    return modified !== undefined && name in modified;
  }

  /** Take the current values as saved (no request). A new record stays phantom until the server gives it an id. */
  commit(): this {
    const meta = this[META];
    const names = meta?.modified ? Object.keys(meta.modified) : [];
    if (meta) {
      meta.modified = undefined;
      meta.errors = undefined;
    }
    touch(this);
    eachOwner(this, (owner) => owner.afterCommit(this, names, false));
    return this;
  }

  /** Undo the changes since the last save. */
  reject(): this {
    const meta = this[META];
    if (meta?.modified) {
      for (const [name, value] of Object.entries(meta.modified)) this[DATA][name] = value;
      meta.modified = undefined;
      meta.version++;
    }
    if (meta) meta.errors = undefined;
    touch(this);
    eachOwner(this, (owner) => owner.afterReject(this));
    return this;
  }

  // ---- persistence -------------------------------------------------------------------------

  /**
   * Save the record: a phantom record is created (POST), a dirty one updated (PUT), a clean one
   * sends nothing. Resolves with the operation once the server's answer is merged. Saves of one
   * record run one after the other, so a second save never creates it twice.
   */
  save(options: PersistOptions = {}): Promise<Operation> {
    return enqueue(this, () => runSave(this, options));
  }

  /** Destroy the record (DELETE). A phantom record is dropped without a request, unless its create may have been applied. */
  destroy(options: PersistOptions = {}): Promise<Operation> {
    return enqueue(this, () => runDestroy(this, options));
  }

  /** Read the record again; edits not yet saved are kept on top of the server's values. */
  async reload(options: PersistOptions = {}): Promise<this> {
    const id = this.getId();
    if (!isValidId(id) || this.phantom) throw new TypeError(`${entityNameOf(recordInfo(this).model)}.reload: the record has no id yet (it is new); save it first`);
    const operation = new Operation({ action: 'read', id, ...requestOptions(options) });
    await proxyOf(this, options).read(operation);
    const item = operation.resultSet?.records[0];
    if (item === undefined) throw new ProxyError('server', noRecordRead(operation), { operation, request: operation.request, response: operation.response });
    const fresh = item instanceof Model ? item : isPlainObject(item) ? recordFromServer(this.getModelClass(), item) : undefined;
    if (fresh !== undefined) takeServerRecord(this, fresh);
    return this;
  }

  // ---- subscriptions -----------------------------------------------------------------------

  /**
   * Hear of every visible change (values, dirty, phantom, saving, errors): `listener` is called at
   * once with the current snapshot, then once per change batch, in a later microtask. Returns the
   * function that unsubscribes. Svelte can use a record as a store (`$record`).
   */
  subscribe(listener: Subscriber<RecordSnapshot<this>>): () => void {
    const meta = metaOf(this);
    // `this` is held by the snapshot function, which the subscribers keep on the record itself.
    const subscribers = (meta.subscribers ??= new Subscribers<unknown>(() => this.getSnapshot()));
    return subscribers.add(() => listener(this.getSnapshot()));
  }

  /** What the record looks like now: the same object until something visible changes. */
  getSnapshot(): RecordSnapshot<this> {
    const meta = metaOf(this);
    const last: unknown = meta.snapshot;
    if (meta.fresh && isSnapshotOf(last, this)) return last;
    const next = new RecordSnapshot(this);
    const kept = isSnapshotOf(last, this) && last.sameAs(next) ? last : next;
    meta.snapshot = kept;
    meta.fresh = true;
    return kept;
  }

  toJSON(): Record<string, unknown> {
    return getData(this);
  }

  // ---- the write protocol (proxies reach it through symbols the package does not export) ----

  /** @internal */
  get [WRITE_STATE](): WriteState {
    return this[META]?.state ?? SAVED;
  }

  /** @internal */
  [SEND](action: Action, batch?: string): unknown {
    return sendWrite(this, action, batch);
  }

  /** @internal */
  [SUCCEED](snapshot: unknown, item: Record<string, unknown> | undefined, assignedId: unknown, written?: Record<string, unknown>): void {
    succeedWrite(this, snapshot, item, assignedId, written);
  }

  /** @internal */
  [FAIL](applied: 'no' | 'maybe', body?: unknown, errors?: FieldErrors): void {
    failWrite(this, applied, body, errors);
  }

  /** @internal */
  [ERASE](): void {
    eraseRecord(this);
  }

  /** @internal */
  [STORED_DATE](name: string): string | undefined {
    const value = this[DATA][name];
    return typeof value === 'string' && !Number.isNaN(canonicalIsoTime(value)) && recordInfo(this).byName.get(name)?.type === 'date' ? value : undefined;
  }
}

// Vue's reactive() and ref() leave a record as it is, as markRaw would: a record tells its own
// changes (subscribe), and a deep proxy over thousands of records would only slow them down.
Object.defineProperty(Model.prototype, '__v_skip', { value: true });

function isSnapshotOf<M extends Model<object>>(value: unknown, record: M): value is RecordSnapshot<M> {
  return value instanceof RecordSnapshot && value.record === record;
}

/**
 * Take a freshly read copy of a record (its values and ETag): fields with local edits keep them
 * on top; the stores that hold it and its subscribers hear of the change.
 */
export function takeServerRecord(record: Model<object>, fresh: Model<object>): void {
  if (fresh.etag !== undefined) record.etag = fresh.etag;
  const changed = mergeServerValues(record, fresh[DATA]);
  if (changed.length === 0) return;
  touch(record);
  eachOwner(record, (owner) => owner.afterCommit(record, changed, false));
}

export function isModelClass(value: unknown): value is typeof Model {
  return typeof value === 'function' && (value === Model || value.prototype instanceof Model);
}

/** The proxy a record is saved through: the one given, its store's, else its model's. */
function proxyOf(record: Model<object>, options: PersistOptions): Proxy {
  if (options.proxy) return options.proxy;
  const owners = record[OWNERS];
  const owner = Array.isArray(owners) ? owners[0] : owners;
  return owner?.proxy() ?? record.getModelClass().getProxy();
}

async function runSave(record: Model<object>, options: PersistOptions): Promise<Operation> {
  if (record.erased) throw new TypeError(`${entityNameOf(recordInfo(record).model)}.save: the record was destroyed; make a new one to create it again`);
  const action: Action | undefined = record.phantom ? 'create' : record.dirty ? 'update' : undefined;
  if (action === undefined) {
    const operation = new Operation({ action: 'update', records: [record] });
    operation.setSuccessful(new ResultSet({ records: [record] }));
    return operation;
  }
  const operation = new Operation({ action, records: [record], ...requestOptions(options) });
  const proxy = proxyOf(record, options);
  await (action === 'create' ? proxy.create(operation) : proxy.update(operation));
  return operation;
}

async function runDestroy(record: Model<object>, options: PersistOptions): Promise<Operation> {
  const operation = new Operation({ action: 'destroy', records: [record], ...requestOptions(options) });
  const state = record[META]?.state ?? SAVED;
  if (state.status === 'erased') {
    operation.setSuccessful(new ResultSet({ records: [record] }));
    return operation;
  }
  // Its create may have been applied: confirm it (same idempotency key), then destroy it.
  if (mayExist(state)) await runSave(record, options);
  if (record.phantom) {
    eraseRecord(record);
    operation.setSuccessful(new ResultSet({ records: [record] }));
    return operation;
  }
  await proxyOf(record, options).destroy(operation);
  return operation;
}

function requestOptions(options: PersistOptions): { params?: Record<string, unknown>; signal?: AbortSignal; headers?: Record<string, string> } {
  return {
    ...(options.params ? { params: options.params } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  };
}
