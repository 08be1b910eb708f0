import { ProxyError, type FieldErrors } from '../errors/ProxyError.js';
import { Operation } from '../operation/Operation.js';
import { ResultSet } from '../operation/ResultSet.js';
import { isValidId, type Action, type FieldInfo, type RecordLike } from '../operation/types.js';
import type { Proxy } from '../proxy/Proxy.js';
import { createProxy, type ProxyTypeConfig } from '../proxy/registry.js';
import { canonicalIsoTime } from '../util/isoDate.js';
import { describeValue, isPlainObject } from '../util/options.js';
import { readPath } from '../util/path.js';
import { Field, INVALID, sameValue, type FieldDeclaration } from './fields.js';

/** Something that holds records and wants to hear of their changes (a Store). */
export interface RecordOwner {
  /** The proxy records of this owner are saved through, when it has its own. */
  readonly proxy?: Proxy | undefined;
  afterEdit(record: Model<object>, modifiedFieldNames: string[]): void;
  afterCommit(record: Model<object>, modifiedFieldNames: string[]): void;
  afterReject(record: Model<object>): void;
  afterErase(record: Model<object>): void;
}

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
  readonly name: string;
  getEntityName(): string;
  idProperty: string;
  clientIdProperty: string | undefined;
  getProxy(): Proxy;
  getFields(): readonly FieldInfo[];
}

/** Make a record of `model` that adopts server data as is (converted lazily). */
export function recordFromServer<T extends Model>(model: ModelClass<T>, data: Record<string, unknown>): T {
  adopting = data;
  try {
    return new model();
  } finally {
    adopting = undefined;
  }
}

/** The values a record is made of: any of its fields, each of its type (or null). */
export type ModelInit<D> = { [K in keyof D]?: D[K] | null };

/** The data type of a model: `DataOf<User>` is `{ id: number; name: string; ... }`. */
export type DataOf<M> = M extends Model<infer D> ? D : Record<string, unknown>;

/** The type of a model's id: its `id` field's type, when it declares one. */
export type IdOf<D> = D extends { id: infer I } ? I : unknown;

/** What a record knows beyond its values; null for a clean record loaded from a server. */
interface RecordMeta {
  phantom: boolean;
  /** The previous values of changed fields. */
  modified: Record<string, unknown> | undefined;
  clientId: string | undefined;
  errors: FieldErrors | undefined;
  etag: string | undefined;
  idempotencyKey: string | undefined;
  /** The save or destroy in flight (saves of one record run one after the other). */
  writing: Promise<unknown> | undefined;
  erased: boolean;
  /** The values of the first try of a create not yet confirmed (its replay answers for them). */
  firstSent: Record<string, unknown> | undefined;
  batchKey: string | undefined;
  outcomeUnknown: boolean;
  /** The body of that write, when it was of this record alone. */
  unconfirmedWrite: unknown;
  /** Counts the changes of the values, so that a write's answer can tell "not edited since it was sent" at once. */
  version: number;
}

/** What mergeServerData returns when nothing changed. */
const NONE_CHANGED: readonly string[] = Object.freeze([]);

/** What a record looked like when a write was sent. */
class WriteSnapshot {
  /** `version`: the record's meta.version then, or -1 when it had no meta (never taken as unedited). */
  constructor(readonly values: Record<string, unknown>, readonly version: number) {}
}

interface ModelInfo {
  model: typeof Model;
  idProperty: string;
  entityName: string;
  fields: Field[];
  byName: Map<string, Field>;
  /** Fields converted when a record is made from server data (mapping, custom convert, default). */
  eager: Field[];
  idField: Field | undefined;
  /** The first segment of every field mapping: keys of server data that belong to a mapped field. */
  mappedRoots: Set<string>;
}

/** Where a model class keeps its field table: on its prototype, for a fast lookup per record. */
const INFO: unique symbol = Symbol('modelInfo');
const proxies = new WeakMap<object, Proxy>();
let clientIds = 0;
const NO_ERRORS: FieldErrors = Object.freeze({});

/** The field table of a model class, built once. */
function infoOf(model: typeof Model): ModelInfo {
  const cached: ModelInfo | undefined = Object.hasOwn(model.prototype, INFO) ? model.prototype[INFO] : undefined;
  if (cached !== undefined) return cached;
  const declarations: FieldDeclaration[] = [];
  const chain: (typeof Model)[] = [];
  for (let current: unknown = model; isModelClass(current) && current !== Model; current = Object.getPrototypeOf(current)) {
    chain.unshift(current);
  }
  for (const cls of chain) {
    if (!Object.hasOwn(cls, 'fields')) continue;
    const own: unknown = cls.fields;
    if (!Array.isArray(own)) throw new TypeError(`${cls.name}.fields must be an array of field names or configs, got ${describeValue(own)}`);
    declarations.push(...own);
  }
  const byName = new Map<string, Field>();
  for (const declaration of declarations) {
    const field = new Field(declaration, model.name);
    byName.set(field.name, field);
  }
  const fields = [...byName.values()];
  const info: ModelInfo = {
    model,
    idProperty: model.idProperty,
    entityName: model.entityName || model.name,
    fields,
    byName,
    eager: fields.filter((field) => field.mapping !== undefined || field.customConvert !== undefined || field.defaultValue !== undefined),
    idField: byName.get(model.idProperty),
    mappedRoots: new Set(fields.flatMap((field) => (field.mapping === undefined ? [] : [field.mapping.split('.')[0] ?? field.mapping]))),
  };
  Object.defineProperty(model.prototype, INFO, { value: info, enumerable: false, configurable: true });
  return info;
}

function uuid(): string {
  const crypto: unknown = Reflect.get(globalThis, 'crypto');
  const randomUUID = typeof crypto === 'object' && crypto !== null ? Reflect.get(crypto, 'randomUUID') : undefined;
  if (typeof randomUUID === 'function') {
    const value: unknown = Reflect.apply(randomUUID, crypto, []);
    if (typeof value === 'string') return value;
  }
  let text = '';
  for (let i = 0; i < 32; i++) text += Math.floor(Math.random() * 16).toString(16);
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-4${text.slice(13, 16)}-a${text.slice(17, 20)}-${text.slice(20)}`;
}

/** One piece of work tracked as the write of several records (a sync), and those records. */
interface TrackedWork {
  settled: Promise<unknown>;
  metas: RecordMeta[];
}

const TRACKED = new WeakMap<Promise<unknown>, TrackedWork>();

/**
 * Make `work` (settled either way) the write of the record of `meta`. A sync tracks one promise,
 * and ends the writes of all its records in one callback, not one per record.
 */
function trackShared(work: Promise<unknown>, meta: RecordMeta): void {
  let tracked = TRACKED.get(work);
  if (tracked === undefined) {
    const metas: RecordMeta[] = [];
    const settled = work.then(() => undefined, () => undefined);
    void settled.then(() => {
      for (const each of metas) if (each.writing === settled) each.writing = undefined;
    });
    tracked = { settled, metas };
    TRACKED.set(work, tracked);
  }
  tracked.metas.push(meta);
  meta.writing = tracked.settled;
}

/** Set while `fromServer` constructs a record, so the constructor adopts server data as is. */
let adopting: Record<string, unknown> | undefined;

/**
 * A typed record. Declare a model by subclassing:
 *
 *     class User extends Model<{ id: number; name: string; email: string }> {
 *       static fields = ['id', 'name', { name: 'email', type: 'string' }];
 *       static proxy = { type: 'rest', url: '/users' };
 *     }
 *
 * A record made without an id is phantom (new): `save()` creates it (POST), and once the server
 * has given it an id, `save()` updates it (PUT).
 */
export class Model<D extends object = Record<string, unknown>> implements RecordLike {
  /** The fields: names (type 'auto') or configs. A subclass's fields add to its parent's. */
  static fields: readonly FieldDeclaration[] = [];
  /** The proxy: a Proxy, or a config such as `{ type: 'rest', url: '/users' }` (made once per class). */
  static proxy: Proxy | ProxyTypeConfig | undefined = undefined;
  /** The id field's name. Default `'id'`. */
  static idProperty = 'id';
  /** The property in a server's answer that echoes a new record's client id (and that the writer sends). Default none. */
  static clientIdProperty: string | undefined = undefined;
  /** The name used in messages and by presets; default the class name. */
  static entityName = '';

  /** The model's field table (on the prototype; see infoOf). @internal */
  declare [INFO]: ModelInfo | undefined;

  /** The values, by field name; built-in types are converted on first read. Use get() and set(). */
  private data: Record<string, unknown>;
  private meta: RecordMeta | null;
  private owners: RecordOwner | RecordOwner[] | null;

  constructor(data?: ModelInit<D>) {
    this.owners = null;
    const info = infoOf(new.target);
    const raw = adopting;
    if (raw !== undefined) {
      // From a server: the parsed object is adopted as is, and converted lazily.
      adopting = undefined;
      this.data = raw;
      this.meta = null;
      const eager = info.eager;
      for (let i = 0; i < eager.length; i++) {
        const field = eager[i];
        if (field !== undefined) raw[field.name] = this.fromServerValue(field, raw);
      }
      return;
    }
    if (data !== undefined && !isPlainObject(data)) {
      throw new TypeError(`${info.entityName}: a record is made of an object of field values, got ${describeValue(data)}`);
    }
    const input: Record<string, unknown> = data ?? {};
    const values: Record<string, unknown> = {};
    this.data = values;
    for (const field of info.fields) {
      const given = input[field.name];
      const value = given === undefined ? field.makeDefault() : given;
      if (value === undefined) continue;
      // A date given as the canonical ISO string waits for its first read, as a loaded one does:
      // it is valid, and it is written back as it is, never parsed just to be formatted again.
      values[field.name] = field.lazy && field.type === 'date' && typeof value === 'string' && !Number.isNaN(canonicalIsoTime(value)) ? value : this.convertOrThrow(field, value);
    }
    for (const key of Object.keys(input)) {
      if (!info.byName.has(key) && input[key] !== undefined) values[key] = input[key];
    }
    const phantom = !isValidId(values[info.idProperty]);
    this.meta = phantom ? this.newMeta(true) : null;
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

  static getEntityName(): string {
    return infoOf(this).entityName;
  }

  /** The proxy of this class, made from `static proxy` the first time it is needed. */
  static getProxy(): Proxy {
    const cached = proxies.get(this);
    if (cached) return cached;
    const declared = this.proxy;
    if (declared === undefined) {
      throw new TypeError(`${this.getEntityName()} has no proxy: declare one, e.g. static proxy = { type: 'rest', url: '/users' }`);
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
   * Read one record by id (GET /users/2). Resolves with the record; rejects with a TypeError for
   * an id that cannot be one (undefined, null, ''), or with the ProxyError of the request.
   */
  static async load<T extends Model>(this: ModelClass<T>, id: unknown, options: PersistOptions = {}): Promise<T> {
    if (!isValidId(id) || (typeof id !== 'string' && typeof id !== 'number')) {
      throw new TypeError(`${this.name}.load: the id must be a non-empty string or a number, got ${describeValue(id)}`);
    }
    const proxy = options.proxy ?? this.getProxy();
    const operation = new Operation({ action: 'read', id, ...requestOptions(options) });
    await proxy.read(operation);
    const item = operation.resultSet?.records[0];
    if (item === undefined) {
      throw new ProxyError('server', `${describeRead(operation)} answered no record for id ${JSON.stringify(id)}`, { operation, request: operation.request, response: operation.response });
    }
    if (item instanceof this) return item;
    return recordFromServer(this, item instanceof Model ? item.data : isPlainObject(item) ? item : {});
  }

  // ---- values ------------------------------------------------------------------------------

  getModelClass(): typeof Model {
    return this.info().model;
  }

  private info(): ModelInfo {
    const info = this[INFO];
    if (info !== undefined && info.model === this.constructor) return info;
    const constructor: unknown = this.constructor;
    return infoOf(isModelClass(constructor) ? constructor : Model);
  }

  private newMeta(phantom: boolean): RecordMeta {
    return {
      phantom, modified: undefined, clientId: undefined, errors: undefined, etag: undefined, idempotencyKey: undefined,
      writing: undefined, erased: false, firstSent: undefined, batchKey: undefined, outcomeUnknown: false, unconfirmedWrite: undefined, version: 0,
    };
  }

  private ensureMeta(): RecordMeta {
    return (this.meta ??= this.newMeta(false));
  }

  /** Called on every change of a value (see RecordMeta.version). */
  private changedValues(): void {
    if (this.meta !== null) this.meta.version++;
  }

  /** The value of a field (converted to its type). */
  get<K extends keyof D & string>(name: K): D[K];
  get(name: string): unknown {
    return this.readField(name);
  }

  /** The value of a field, converted on first read for built-in types. */
  readField(name: string): unknown {
    const value = this.data[name];
    if (value === undefined) return undefined;
    const field = this.info().byName.get(name);
    if (field === undefined || !field.lazy || field.isConverted(value)) return value;
    const converted = field.convert(value, this);
    if (converted === INVALID) return null;
    this.data[name] = converted;
    return converted;
  }

  /** {@inheritDoc RecordLike.storedIsoDate} */
  storedIsoDate(name: string): string | undefined {
    const value = this.data[name];
    return typeof value === 'string' && !Number.isNaN(canonicalIsoTime(value)) && this.info().byName.get(name)?.type === 'date' ? value : undefined;
  }

  /** A value of field `name` in its type, as readField gives it (a snapshot may hold it as stored). */
  private asFieldValue(name: string, value: unknown): unknown {
    const field = this.info().byName.get(name);
    if (value === undefined || field === undefined || !field.lazy || field.isConverted(value)) return value;
    const converted = field.convert(value, this);
    return converted === INVALID ? null : converted;
  }

  /** Whether two values of field `name` are the same once in its type. */
  private sameFieldValue(name: string, a: unknown, b: unknown): boolean {
    return sameValue(a, b) || sameValue(this.asFieldValue(name, a), this.asFieldValue(name, b));
  }

  private fromServerValue(field: Field, raw: Record<string, unknown>): unknown {
    let value = field.mapping === undefined ? raw[field.name] : readPath(raw, field.mapping);
    if (value === undefined && field.defaultValue !== undefined) value = field.makeDefault();
    if (field.customConvert === undefined) return value;
    const converted = field.convert(value, this);
    return converted === INVALID ? null : converted;
  }

  private convertOrThrow(field: Field, value: unknown): unknown {
    const converted = field.convert(value, this);
    if (converted === INVALID) {
      throw new TypeError(`${this.info().entityName}.${field.name}: cannot convert ${describeValue(value)} to ${field.type}`);
    }
    return converted;
  }

  /**
   * Set one field, or several at once. Values are converted to the field's type (a value that
   * cannot be converted is a TypeError naming it); a change makes the record dirty.
   */
  set<K extends keyof D & string>(name: K, value: D[K] | null): this;
  set(values: Partial<{ [K in keyof D]: D[K] | null }>): this;
  set(nameOrValues: string | object, value?: unknown): this {
    const entries: [string, unknown][] =
      typeof nameOrValues === 'string' ? [[nameOrValues, value]] : isPlainObject(nameOrValues) ? Object.entries(nameOrValues) : [];
    if (typeof nameOrValues !== 'string' && !isPlainObject(nameOrValues)) {
      throw new TypeError(`${this.info().entityName}.set: expected a field name or an object of values, got ${describeValue(nameOrValues)}`);
    }
    const info = this.info();
    const converted: [string, unknown, Field | undefined][] = entries.map(([name, raw]) => {
      const field = info.byName.get(name);
      if (field === undefined && info.fields.length > 0) {
        throw new TypeError(`${info.entityName}.set: unknown field "${name}" (fields: ${info.fields.map((f) => f.name).join(', ')})`);
      }
      return [name, field ? this.convertOrThrow(field, raw) : raw, field];
    });
    const changed: string[] = [];
    for (const [name, next, field] of converted) {
      const current = this.readField(name);
      if (sameValue(current, next)) continue;
      this.data[name] = next;
      this.changedValues();
      changed.push(name);
      if (field !== undefined && !field.persist) continue;
      const meta = this.ensureMeta();
      const modified = (meta.modified ??= {});
      if (!(name in modified)) modified[name] = current;
      else if (sameValue(modified[name], next)) delete modified[name];
      if (Object.keys(modified).length === 0) meta.modified = undefined;
    }
    if (changed.length > 0) this.notify((owner) => owner.afterEdit(this, changed));
    return this;
  }

  /** The id (undefined for a new record until the server assigns one). */
  getId(): IdOf<D> | undefined;
  getId(): unknown {
    return this.readField(this.info().idProperty);
  }

  /** Set the id. It does not end phantom: only the server's answer to a create does. */
  setId(id: unknown): this {
    const name = this.getModelClass().idProperty;
    const field = this.info().byName.get(name);
    const value = field ? this.convertOrThrow(field, id) : id;
    if (!sameValue(this.readField(name), value)) {
      this.data[name] = value;
      this.changedValues();
      this.notify((owner) => owner.afterEdit(this, [name]));
    }
    return this;
  }

  /** A copy of all values, converted, by field name. */
  getData(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(this.data)) out[key] = this.readField(key);
    for (const field of this.info().fields) if (!(field.name in out)) out[field.name] = this.readField(field.name);
    return out;
  }

  // ---- state -------------------------------------------------------------------------------

  /** True until the server has assigned an id. */
  get phantom(): boolean {
    return this.meta?.phantom ?? false;
  }

  /** Unsaved: phantom, or with changed fields. */
  get dirty(): boolean {
    const meta = this.meta;
    return meta !== null && (meta.phantom || meta.modified !== undefined);
  }

  /** The previous values of the changed fields. */
  get modified(): Partial<D> {
    const modified = this.meta?.modified;
    const out: Partial<D> = {};
    if (modified) Object.assign(out, modified);
    return out;
  }

  /** Unique per record: `'User-7'`. Sent as `clientIdProperty` so a server can echo it. */
  get clientId(): string {
    const meta = this.ensureMeta();
    return (meta.clientId ??= `${this.info().entityName}-${++clientIds}`);
  }

  /** The server's field errors of the last failed save (from a 422 or a 400 with field errors). */
  get errors(): FieldErrors {
    return this.meta?.errors ?? NO_ERRORS;
  }

  /** The ETag of the record's last response (sent as If-Match when the proxy has `etag: true`). */
  get etag(): string | undefined {
    return this.meta?.etag;
  }

  set etag(value: string | undefined) {
    if (value !== undefined || this.meta) this.ensureMeta().etag = value;
  }

  /** The Idempotency-Key of this record's pending create: the same for every try until it succeeds. */
  get idempotencyKey(): string {
    const meta = this.ensureMeta();
    return (meta.idempotencyKey ??= uuid());
  }

  /** The key of the batched create this new record was first sent in. */
  get batchKey(): string | undefined {
    return this.meta?.batchKey;
  }

  set batchKey(value: string | undefined) {
    if (value !== undefined || this.meta) this.ensureMeta().batchKey = value;
  }

  /** True when the last write failed in a way that may have reached the server (no answer, 5xx). */
  get outcomeUnknown(): boolean {
    return this.meta?.outcomeUnknown ?? false;
  }

  /** The body of the last write that may have been applied without an answer. */
  get unconfirmedWrite(): unknown {
    return this.meta?.unconfirmedWrite;
  }

  failWrite(uncertain: boolean, sent?: unknown): void {
    const meta = this.ensureMeta();
    meta.outcomeUnknown = uncertain;
    meta.unconfirmedWrite = uncertain ? sent : undefined;
    if (!uncertain && meta.phantom) {
      // Certainly not created: the next try is a new request (a new key, not a replay).
      meta.firstSent = undefined;
      meta.batchKey = undefined;
      meta.idempotencyKey = undefined;
    }
  }

  /** True when a create of this new record was sent and not confirmed: it may exist on the server. */
  get createSent(): boolean {
    return this.meta?.firstSent !== undefined;
  }

  /** True once the record was destroyed on the server (or dropped while new). */
  get erased(): boolean {
    return this.meta?.erased ?? false;
  }

  /** True while a save or destroy of this record is in flight. */
  get saving(): boolean {
    return this.meta?.writing !== undefined;
  }

  /** The values of the changed fields. */
  getChanges(): Partial<D> {
    const out: Partial<D> = {};
    const modified = this.meta?.modified;
    if (modified) for (const name of Object.keys(modified)) Object.assign(out, { [name]: this.readField(name) });
    return out;
  }

  isModified(name: string): boolean {
    const modified = this.meta?.modified;
    return modified !== undefined && name in modified;
  }

  /** Take the current values as saved (no request). A new record stays phantom until the server gives it an id. */
  commit(): this {
    const meta = this.meta;
    const names = meta?.modified ? Object.keys(meta.modified) : [];
    if (meta) {
      meta.modified = undefined;
      meta.errors = undefined;
    }
    this.notify((owner) => owner.afterCommit(this, names));
    return this;
  }

  /** Undo the changes since the last save. */
  reject(): this {
    const meta = this.meta;
    if (meta?.modified) {
      for (const [name, value] of Object.entries(meta.modified)) this.data[name] = value;
      meta.modified = undefined;
      meta.version++;
    }
    if (meta) meta.errors = undefined;
    this.notify((owner) => owner.afterReject(this));
    return this;
  }

  // ---- persistence -------------------------------------------------------------------------

  /**
   * Save the record: a phantom record is created (POST), a dirty one updated (PUT), a clean one
   * sends nothing. Resolves with the operation once the server's answer is merged. Saves of one
   * record run one after the other, so a second save never creates it twice.
   */
  save(options: PersistOptions = {}): Promise<Operation> {
    return this.serialize(() => this.runSave(options));
  }

  /** Destroy the record (DELETE). A phantom record is dropped without a request. */
  destroy(options: PersistOptions = {}): Promise<Operation> {
    return this.serialize(() => this.runDestroy(options));
  }

  /** Read the record again; edits not yet saved are kept on top of the server's values. */
  async reload(options: PersistOptions = {}): Promise<this> {
    const id = this.getId();
    if (!isValidId(id)) throw new TypeError(`${this.info().entityName}.reload: the record has no id yet (it is new); save it first`);
    const operation = new Operation({ action: 'read', id, ...requestOptions(options) });
    await this.proxyFor(options).read(operation);
    const item = operation.resultSet?.records[0];
    if (item === undefined) {
      throw new ProxyError('server', `${describeRead(operation)} answered no record for id ${JSON.stringify(id)}`, { operation, request: operation.request, response: operation.response });
    }
    const fresh = item instanceof Model ? item : isPlainObject(item) ? this.getModelClass().fromServer(item) : undefined;
    if (fresh) this.mergeRecord(fresh);
    return this;
  }

  /**
   * Take server values as the saved state: fields with local, unsaved edits keep them (they stay
   * dirty, now against the server's value); the others take the server's value.
   */
  mergeServerData(serverData: Record<string, unknown>, written?: Record<string, unknown>): readonly string[] {
    const values = this.readServerValues(serverData, written);
    if (values === undefined) return NONE_CHANGED;
    const meta = this.meta;
    const modified = meta?.modified;
    // Made with its first name: usually the only one (the id of a create), so no spare room.
    let changed: string[] | undefined;
    for (const name in values) {
      const value = values[name];
      if (modified !== undefined && name in modified) {
        modified[name] = value;
        if (sameValue(value, this.readField(name))) delete modified[name];
      } else if (!sameValue(this.readField(name), value)) {
        this.data[name] = value;
        if (changed === undefined) changed = [name];
        else changed.push(name);
      }
    }
    if (changed !== undefined) this.changedValues();
    if (meta?.modified && Object.keys(meta.modified).length === 0) meta.modified = undefined;
    return changed ?? NONE_CHANGED;
  }

  /** Merge a freshly read copy of this record (see mergeServerData), its ETag included. */
  mergeRecord(fresh: Model<object>): readonly string[] {
    if (fresh.etag !== undefined) this.etag = fresh.etag;
    return this.mergeServerData(fresh.data);
  }

  /**
   * Server data by field name, converted (mappings applied; unconvertible values become null).
   * Values the server echoes exactly as `written` (what the writer sent) are left out: the record
   * already holds them, so there is nothing to convert nor compare.
   */
  private readServerValues(serverData: Record<string, unknown>, written?: Record<string, unknown>): Record<string, unknown> | undefined {
    const info = this.info();
    // Made on the first value to merge: a create's answer is mostly the echo of what was sent.
    let out: Record<string, unknown> | undefined;
    for (const field of info.fields) {
      const mapping = field.mapping;
      const value = mapping === undefined ? serverData[field.name] : readPath(serverData, mapping);
      if (value === undefined && !((mapping ?? field.name) in serverData)) continue;
      if (written !== undefined && value !== undefined && mapping === undefined && written[field.name] === value) continue;
      const converted = field.convert(value, this);
      (out ??= {})[field.name] = converted === INVALID ? null : converted;
    }
    const mapped = info.mappedRoots;
    for (const key in serverData) {
      if (!Object.hasOwn(serverData, key)) continue;
      const value = serverData[key];
      if (!info.byName.has(key) && !mapped.has(key) && !(written !== undefined && written[key] === value)) (out ??= {})[key] = value;
    }
    return out;
  }

  private serialize(run: () => Promise<Operation>): Promise<Operation> {
    const meta = this.ensureMeta();
    const previous = meta.writing ?? Promise.resolve();
    const next = previous.then(run, run);
    meta.writing = next;
    const settle = (): void => {
      if (meta.writing === next) meta.writing = undefined;
    };
    next.then(settle, settle);
    return next;
  }

  /** Run `work` as this record's write: a save of the record waits for it (used by Store.sync). */
  trackWrite<T>(work: Promise<T>): void {
    const meta = this.ensureMeta();
    const previous = meta.writing;
    if (previous === undefined) {
      trackShared(work, meta);
      return;
    }
    const next = Promise.all([previous.catch(() => undefined), work.catch(() => undefined)]);
    meta.writing = next;
    const settle = (): void => {
      if (meta.writing === next) meta.writing = undefined;
    };
    next.then(settle, settle);
  }

  private proxyFor(options: PersistOptions): Proxy {
    if (options.proxy) return options.proxy;
    const owners = this.owners;
    const owner = Array.isArray(owners) ? owners[0] : owners;
    return owner?.proxy ?? this.getModelClass().getProxy();
  }

  private async runSave(options: PersistOptions): Promise<Operation> {
    if (this.erased) throw new TypeError(`${this.info().entityName}.save: the record was destroyed; make a new one to create it again`);
    const action: Action | undefined = this.phantom ? 'create' : this.dirty ? 'update' : undefined;
    if (action === undefined) {
      const operation = new Operation({ action: 'update', records: [this] });
      operation.setSuccessful(new ResultSet({ records: [this] }));
      return operation;
    }
    const operation = new Operation({ action, records: [this], ...requestOptions(options) });
    const proxy = this.proxyFor(options);
    await (action === 'create' ? proxy.create(operation) : proxy.update(operation));
    return operation;
  }

  private async runDestroy(options: PersistOptions): Promise<Operation> {
    const operation = new Operation({ action: 'destroy', records: [this], ...requestOptions(options) });
    if (this.erased) {
      operation.setSuccessful(new ResultSet({ records: [this] }));
      return operation;
    }
    if (this.phantom && this.createSent) {
      // Its create may have been applied: confirm it (same idempotency key), then destroy it.
      await this.runSave(options);
    }
    if (this.phantom) {
      this.completeDestroy();
      operation.setSuccessful(new ResultSet({ records: [this] }));
      return operation;
    }
    await this.proxyFor(options).destroy(operation);
    return operation;
  }

  // ---- the persistence protocol (called by proxies) -----------------------------------------

  beginWrite(action: Action): unknown {
    const meta = this.meta;
    const version = meta === null ? -1 : meta.version;
    if (action === 'destroy') return new WriteSnapshot({}, version);
    // Copied as stored (a date may still be its ISO string): completeWrite compares values with
    // sameFieldValue, so nothing is converted just for this.
    if (meta?.phantom) {
      const values = { ...this.data };
      // Shared, not copied: neither is changed afterwards, and `firstSent === sent` tells
      // completeWrite that this is the first try.
      meta.firstSent ??= values;
      return new WriteSnapshot(values, version);
    }
    const values: Record<string, unknown> = {};
    if (meta?.modified) for (const key of Object.keys(meta.modified)) values[key] = this.data[key];
    return new WriteSnapshot(values, version);
  }

  completeWrite(snapshot: unknown, serverData: Record<string, unknown> | undefined, assignedId: unknown, written?: Record<string, unknown>): void {
    const meta = this.ensureMeta();
    const sent = snapshot instanceof WriteSnapshot ? snapshot.values : {};
    // A create re-sent under its idempotency key may be answered for its first try: what the
    // server holds is then what was first sent, and edits made since must stay unsaved.
    const baseline = meta.phantom && meta.firstSent !== undefined ? meta.firstSent : sent;
    const info = this.info();
    let committed: string[];
    if (baseline === sent && snapshot instanceof WriteSnapshot && snapshot.version === meta.version) {
      // No value changed since the write was sent: every sent field is saved as it is.
      committed = Object.keys(sent);
      const modified = meta.modified;
      if (modified !== undefined) for (const name of committed) delete modified[name];
    } else {
      committed = [];
      for (const name of baseline === sent ? Object.keys(sent) : new Set([...Object.keys(sent), ...Object.keys(baseline)])) {
        const saved = name in baseline ? baseline[name] : sent[name];
        if (this.sameFieldValue(name, this.readField(name), saved) && (!(name in sent) || this.sameFieldValue(name, sent[name], saved))) {
          if (meta.modified) delete meta.modified[name];
          committed.push(name);
        } else if (info.byName.get(name)?.persist !== false) {
          (meta.modified ??= {})[name] = this.asFieldValue(name, saved); // edited since it was sent: still unsaved
        }
      }
    }
    if (meta.modified && Object.keys(meta.modified).length === 0) meta.modified = undefined;
    if (serverData !== undefined) {
      const changed = this.mergeServerData(serverData, written);
      if (changed.length > 0) committed = committed.concat(changed); // exact size, no growth
    }
    if (meta.phantom) {
      // The id comes from the body, else from the Location header of a 201.
      const idKey = info.idField?.mapping ?? info.idProperty;
      if ((serverData === undefined || serverData[idKey] === undefined) && isValidId(assignedId)) {
        const converted = info.idField ? info.idField.convert(assignedId, this) : assignedId;
        this.data[info.idProperty] = converted === INVALID ? assignedId : converted;
        meta.version++;
      }
      meta.phantom = false;
      meta.idempotencyKey = undefined;
      meta.firstSent = undefined;
      meta.batchKey = undefined;
    }
    meta.outcomeUnknown = false;
    meta.unconfirmedWrite = undefined;
    meta.errors = undefined;
    this.notify((owner) => owner.afterCommit(this, committed));
  }

  completeDestroy(): void {
    const meta = this.ensureMeta();
    meta.erased = true;
    meta.outcomeUnknown = false;
    this.notify((owner) => owner.afterErase(this));
  }

  setServerErrors(errors: FieldErrors): void {
    this.ensureMeta().errors = Object.keys(errors).length === 0 ? undefined : errors;
  }

  // ---- owners (stores) ---------------------------------------------------------------------

  /** Called by a store that takes the record in. */
  join(owner: RecordOwner): void {
    const owners = this.owners;
    if (owners === null) this.owners = owner;
    else if (Array.isArray(owners)) {
      if (!owners.includes(owner)) owners.push(owner);
    } else if (owners !== owner) this.owners = [owners, owner];
  }

  /** Called by a store that lets the record go. */
  unjoin(owner: RecordOwner): void {
    const owners = this.owners;
    if (owners === owner) this.owners = null;
    else if (Array.isArray(owners)) {
      const rest = owners.filter((candidate) => candidate !== owner);
      this.owners = rest.length === 0 ? null : rest.length === 1 ? (rest[0] ?? null) : rest;
    }
  }

  /** Whether the record is joined to this owner. */
  belongsTo(owner: RecordOwner): boolean {
    const owners = this.owners;
    return owners === owner || (Array.isArray(owners) && owners.includes(owner));
  }

  private notify(tell: (owner: RecordOwner) => void): void {
    const owners = this.owners;
    if (owners === null) return;
    if (Array.isArray(owners)) for (const owner of [...owners]) tell(owner);
    else tell(owners);
  }

  toJSON(): Record<string, unknown> {
    return this.getData();
  }
}

export function isModelClass(value: unknown): value is typeof Model {
  return typeof value === 'function' && (value === Model || value.prototype instanceof Model);
}

function requestOptions(options: PersistOptions): { params?: Record<string, unknown>; signal?: AbortSignal; headers?: Record<string, string> } {
  return {
    ...(options.params ? { params: options.params } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  };
}

function describeRead(operation: Operation): string {
  return operation.request ? `${operation.request.method} ${operation.request.url ?? ''}` : `read of id ${JSON.stringify(operation.id)}`;
}
