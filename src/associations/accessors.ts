/**
 * What importing rest-proxy/associations plugs in: a model's associations checked and its
 * accessors installed at its first use, `record.session`, `Model.load(id, { session })`, the
 * default session of stores of associated models, and what a record's write waits for.
 */
import { ADOPT, extensions, HOLD } from '../model/extensions.js';
import { isModelClass, Model } from '../model/Model.js';
import { INFO } from '../model/modelInfo.js';
import type { ModelClass, PersistOptions } from '../model/types.js';
import { isValidId } from '../operation/types.js';
import { describeValue } from '../util/options.js';
import { isAssociated, linksOf, prepare, type Link } from './declare.js';
import { commitCarried, equipNested } from './nestedWrite.js';
import { referenced, referencesOf, waitsFor } from './references.js';
import { Session, sessionOf } from './session.js';
import { linkedStore } from './links.js';
import { readAnswer } from './nested.js';
import { AssociationStore, attach, madeStore, parentOf, storeFor } from './stores.js';

declare module '../model/types.js' {
  interface PersistOptions {
    /** rest-proxy/associations: the session the loaded record joins (`Model.load`). Default `Session.default` for a model with associations. */
    session?: Session;
  }
}

declare module '../model/extensions.js' {
  interface SessionType {
    /** rest-proxy/associations: `record.session` is the Session that holds the record, if any. */
    session: Session;
  }
}

/** The session of a record, which it joins now when it has none (the default one). */
function sessionHolding(record: Model, other?: Model): Session {
  const session = sessionOf(record) ?? (other === undefined ? undefined : sessionOf(other)) ?? Session.default;
  session[HOLD](record);
  if (other !== undefined) session[HOLD](other);
  return session;
}

function capitalised(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function install(prototype: object, name: string, value: (this: Model, ...args: never[]) => unknown, link: Link): void {
  if (name in Model.prototype || Object.hasOwn(prototype, name)) {
    if (Reflect.get(prototype, name) === value) return;
    throw new TypeError(`${link.owner.getEntityName()}.${link.name}: its accessor ${name} would hide a member of the record`);
  }
  Object.defineProperty(prototype, name, { value, configurable: true, writable: true });
}

function checkTarget(link: Link, record: unknown): Model | null {
  if (record === null) return null;
  if (!(record instanceof link.target)) throw new TypeError(`${link.owner.getEntityName()}.${link.name}: expected a record of ${link.target.getEntityName()} or null, got ${describeValue(record)}`);
  return record;
}

/** Install the accessors of one association on its model's prototype. */
function accessorsOf(link: Link): void {
  const prototype: object = link.owner.prototype;
  const Name = capitalised(link.name);
  if (link.write) equipNested(link.owner);
  if (link.kind === 'hasMany' || link.kind === 'manyToMany') {
    install(prototype, link.name, function (this: Model) {
      const session = sessionHolding(this);
      if (link.kind === 'hasMany') return storeFor(session, this, link);
      return linkedStore(this, link, session);
    }, link);
    return;
  }
  if (link.kind === 'hasOne') {
    install(prototype, `get${Name}`, function (this: Model) {
      return storeFor(sessionHolding(this), this, link).getAt(0);
    }, link);
    install(prototype, `set${Name}`, function (this: Model, record: unknown) {
      const target = checkTarget(link, record);
      const session = sessionHolding(this, target ?? undefined);
      const store = storeFor(session, this, link);
      for (const other of store.getRange()) if (other !== target) attach(session, other, link, null);
      if (target !== null) attach(session, target, link, this);
    }, link);
    install(prototype, `load${Name}`, async function (this: Model) {
      const store = storeFor(sessionHolding(this), this, link);
      await store.load();
      return store.getAt(0);
    }, link);
    return;
  }
  // belongsTo: the key is the record's own.
  const key = link.foreignKey;
  install(prototype, `get${Name}`, function (this: Model) {
    return referenced(this, key) ?? sessionOf(this)?.get(link.target, this.get(key));
  }, link);
  install(prototype, `set${Name}`, function (this: Model, record: unknown) {
    const target = checkTarget(link, record);
    attach(sessionHolding(this, target ?? undefined), this, link, target);
  }, link);
  install(prototype, `load${Name}`, async function (this: Model) {
    const parent = referenced(this, key);
    if (parent !== undefined) return parent;
    const id: unknown = this.get(key);
    if (!isValidId(id)) return undefined;
    return link.target.load(id, { session: sessionHolding(this) });
  }, link);
}

const equipped = new WeakSet<object>();
/** The models being checked now (checking one reads the field tables of the others, and its own). */
const checking = new Set<object>();

/** A model class is first used: check its associations and install their accessors. */
function ready(model: object): void {
  if (!isModelClass(model) || equipped.has(model) || checking.has(model)) return;
  checking.add(model);
  try {
    for (const link of prepare(model)) accessorsOf(link);
    equipped.add(model);
  } catch (error) {
    // Its field table may have been kept meanwhile (checking reads it): dropped, so that the next use checks again.
    Reflect.deleteProperty(model.prototype, INFO);
    throw error;
  } finally {
    checking.delete(model);
  }
}

const coreLoad = Model.load;

/** The session `Model.load` of `model` joins: the one asked for, else the default one for a model with associations. */
const loadSession = (model: object, options: PersistOptions): Session | undefined => options.session ?? (isAssociated(model) ? Session.default : undefined);

/** Model.load, the record taken in by its session (one record per id; nested data read). */
async function load<T extends Model>(this: ModelClass<T>, id: unknown, options: PersistOptions = {}): Promise<T> {
  const record = await coreLoad.call<ModelClass<T>, [unknown, PersistOptions], Promise<T>>(this, id, options);
  const session = loadSession(this, options);
  return session === undefined ? record : (session[ADOPT]<T>(this, [record])[0] ?? record);
}

/** The owned children of a record (hasMany and hasOne `owned: true`): their destroy goes before its own. */
function ownedChildren(record: Model<object>): Model[] {
  const session = sessionOf(record);
  if (session === undefined) return [];
  return linksOf(record.constructor).flatMap((link) => {
    if (!link.owned || (link.kind !== 'hasMany' && link.kind !== 'hasOne')) return [];
    const store = madeStore(record, link);
    const removed = store instanceof AssociationStore ? store.getRemovedRecords() : [];
    return [...removed, ...session.records(link.target).filter((child) => parentOf(session, child, link) === record)];
  });
}

let installed = false;

/** Plug the associations into the core (once). */
export function plugIn(): void {
  if (installed) return;
  installed = true;
  extensions.modelReady = ready;
  extensions.defaultSession = (model) => {
    model.getFields(); // its first use: checked now
    ready(model);
    return isAssociated(model) ? Session.default : undefined;
  };
  extensions.waitsFor = waitsFor;
  extensions.referencesOf = referencesOf;
  extensions.destroysFirst = ownedChildren;
  extensions.readAnswer = (record, item, read) => {
    if (!(record instanceof Model)) return undefined;
    if (!read) commitCarried(record, item); // nested write: the records its write carried, first
    return item && readAnswer(record, item, () => sessionHolding(record));
  };
  extensions.sessionOf = sessionOf;
  extensions.heldFor = (model, id, options) => loadSession(model, options)?.get(model, id);
  Object.defineProperty(Model, 'load', { value: load, configurable: true, writable: true });
}
