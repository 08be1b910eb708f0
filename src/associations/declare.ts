/**
 * The declarations (`hasMany`, `belongsTo`, `hasOne`, `manyToMany`), their types, and the table of
 * a model's associations, resolved and checked at the model's first use (targets are lazy, so
 * that two classes can name each other).
 */
import { infoOf } from '../model/modelInfo.js';
import { isModelClass, Model } from '../model/Model.js';
import type { DataOf } from '../model/types.js';
import type { Store } from '../store/Store.js';
import { describeValue, isPlainObject } from '../util/options.js';

/** A model class, given lazily: `() => Post`. */
export type Target<M extends Model> = () => new (...args: never[]) => M;

/** Nested read and write of an association's records in its owner's answers and bodies. */
export interface NestedOptions {
  /** Read the records under `associationKey` in an answer. Default true. */
  read?: boolean;
}

interface Common {
  /** The property of an answer holding the nested records. Default: the association's name. */
  associationKey?: string;
  nested?: NestedOptions;
}

export interface HasManyOptions<M extends Model> extends Common {
  /** The target's field holding the owner's id. */
  foreignKey: keyof DataOf<M> & string;
  /** The target's belongsTo over the same key. */
  inverse?: string;
  /** Removing a record from the association destroys it (at the next sync). */
  owned?: boolean;
}

export interface BelongsToOptions extends Common {
  /** The owner's field holding the target's id. */
  foreignKey: string;
  /** The target's hasMany or hasOne over the same key. */
  inverse?: string;
}

export interface ManyToManyOptions<J extends Model> extends Common {
  /** The join model, given like a target: `() => Membership`. */
  through: Target<J>;
  /** The join model's key to the owner. */
  foreignKey: keyof DataOf<J> & string;
  /** The join model's key to the target. */
  otherKey: keyof DataOf<J> & string;
}

/** A declared association (what `hasMany` and the others return). The target's record type rides along in `M`. */
export interface Association<K extends Kind, M extends Model> {
  readonly kind: K;
  readonly target: Target<M>;
  readonly options: object;
}

const KINDS = ['hasMany', 'belongsTo', 'hasOne', 'manyToMany'] as const;
export type Kind = (typeof KINDS)[number];

/** The store of a hasMany (`user.posts()`): a Store whose members follow the foreign keys. */
export interface AssociatedStore<M extends Model> extends Store<M> {
  /** Whether its records were read: by its `load()`, or nested in an answer. */
  loaded: boolean;
}

/** The store of a manyToMany: `link` and `unlink` add and remove join records. */
export interface LinkStore<M extends Model> extends AssociatedStore<M> {
  /** Link a record: a join record is made, created by the next sync. */
  link(record: M): void;
  /** Unlink a record: its join record is destroyed by the next sync. */
  unlink(record: M): void;
}

/**
 * The type of an accessor, from the declaration: `declare posts: Accessor<typeof User.associations.posts>`
 * (a store); for a to-one association, `Accessor<A>` is `getX`, `Accessor<A, 'set'>` is `setX`,
 * `Accessor<A, 'load'>` is `loadX`.
 */
export type Accessor<A, W extends 'get' | 'set' | 'load' = 'get'> =
  A extends Association<'hasMany', infer M>
    ? () => AssociatedStore<M>
    : A extends Association<'manyToMany', infer M>
      ? () => LinkStore<M>
      : A extends Association<'belongsTo' | 'hasOne', infer M>
        ? W extends 'set' ? (record: M | null) => void : W extends 'load' ? () => Promise<M | undefined> : () => M | undefined
        : never;

/** One to many: the key is on the target (`user.posts()`). */
export function hasMany<M extends Model>(target: Target<M>, options: HasManyOptions<M>): Association<'hasMany', M> {
  return { kind: 'hasMany', target, options };
}

/** Many to one: the key is on the owner (`post.getUser()`, `setUser`, `loadUser`). */
export function belongsTo<M extends Model>(target: Target<M>, options: BelongsToOptions): Association<'belongsTo', M> {
  return { kind: 'belongsTo', target, options };
}

/** One to one, the key on the target (`user.getProfile()`, `setProfile`, `loadProfile`). */
export function hasOne<M extends Model>(target: Target<M>, options: HasManyOptions<M>): Association<'hasOne', M> {
  return { kind: 'hasOne', target, options };
}

/** Many to many through a join model (`user.groups().link(group)`). */
export function manyToMany<M extends Model, J extends Model>(target: Target<M>, options: ManyToManyOptions<J>): Association<'manyToMany', M> {
  return { kind: 'manyToMany', target, options };
}

/** An association resolved: its classes known and checked. */
export interface Link {
  readonly name: string;
  readonly kind: Kind;
  /** The model that declares it. */
  readonly owner: typeof Model;
  readonly target: typeof Model;
  /** The model whose field is the key: the target (hasMany, hasOne), the owner (belongsTo), the join model (manyToMany). */
  readonly holder: typeof Model;
  readonly foreignKey: string;
  readonly otherKey: string | undefined;
  readonly inverse: string | undefined;
  readonly associationKey: string;
  readonly owned: boolean;
  readonly read: boolean;
}

const tables = new WeakMap<object, readonly Link[]>();
/** The links whose key a model holds (its belongsTo, the hasMany and hasOne aimed at it, the manyToMany through it). */
const held = new WeakMap<object, Link[]>();

/** The associations of a model (none for a model that declares none, or not yet used). */
export function linksOf(model: object): readonly Link[] {
  return tables.get(model) ?? [];
}

/** The links whose key a record of `model` holds. */
export function keyLinksOf(model: object): readonly Link[] {
  return held.get(model) ?? [];
}

/** Whether the model takes part in associations (declares one, or is the holder of one's key). */
export function isAssociated(model: object): boolean {
  return (tables.get(model)?.length ?? 0) > 0 || held.has(model);
}

function declaredOf(model: object): Record<string, unknown> | undefined {
  const declared: unknown = Reflect.get(model, 'associations');
  if (declared === undefined) return undefined;
  if (!isPlainObject(declared)) throw new TypeError(`${nameOf(model)}.associations must be an object of hasMany(), belongsTo(), ... declarations, got ${describeValue(declared)}`);
  return declared;
}

function nameOf(model: object): string {
  return isModelClass(model) ? model.getEntityName() : describeValue(model);
}

function resolve(model: typeof Model, name: string, declared: unknown): Link {
  const where = `${model.getEntityName()}.${name}`;
  if (!isPlainObject(declared) || typeof declared['target'] !== 'function' || !isPlainObject(declared['options'])) {
    throw new TypeError(`${where}: expected hasMany(), belongsTo(), hasOne() or manyToMany(), got ${describeValue(declared)}`);
  }
  const kind = KINDS.find((known) => known === declared['kind']);
  if (kind === undefined) throw new TypeError(`${where}: unknown kind ${describeValue(declared['kind'])}`);
  const options = declared['options'];
  const classOf = (get: unknown, what: string): typeof Model => {
    const found: unknown = typeof get === 'function' ? get() : undefined;
    if (!isModelClass(found)) throw new TypeError(`${where}: unknown ${what}: expected a function returning a Model class, got ${describeValue(found)}`);
    return found;
  };
  const target = classOf(declared['target'], 'target');
  const holder = kind === 'manyToMany' ? classOf(options['through'], 'join model (through)') : kind === 'belongsTo' ? model : target;
  const fields = infoOf(holder).byName;
  const keyOf = (key: unknown, what: string): string => {
    if (typeof key !== 'string' || !fields.has(key)) {
      throw new TypeError(`${where}: the ${what} ${describeValue(key)} is not a declared field of ${holder.getEntityName()}`);
    }
    return key;
  };
  const foreignKey = keyOf(options['foreignKey'], 'foreignKey');
  const otherKey = kind === 'manyToMany' ? keyOf(options['otherKey'], 'otherKey') : undefined;
  const inverse = options['inverse'];
  if (inverse !== undefined && typeof inverse !== 'string') throw new TypeError(`${where}: inverse must be the name of an association of ${target.getEntityName()}`);
  const associationKey = options['associationKey'] ?? name;
  if (typeof associationKey !== 'string') throw new TypeError(`${where}: associationKey must be a string`);
  const nested = options['nested'];
  return {
    name, kind, owner: model, target, holder, foreignKey, otherKey, inverse, associationKey,
    owned: options['owned'] === true,
    read: !isPlainObject(nested) || nested['read'] !== false,
  };
}

/** Check the inverse of `link`: an association of the target, aimed back at the owner, over the same key. */
function checkInverse(link: Link, links: readonly Link[]): void {
  if (link.inverse === undefined) return;
  const here = `${link.owner.getEntityName()}.${link.name}`;
  const there = `${link.target.getEntityName()}.${link.inverse}`;
  const declared = declaredOf(link.target);
  if (declared === undefined || !Object.hasOwn(declared, link.inverse)) throw new TypeError(`${here}: its inverse ${there} is not declared`);
  const other = resolve(link.target, link.inverse, declared[link.inverse]);
  if (other.target !== link.owner) throw new TypeError(`${here}: its inverse ${there} is aimed at ${other.target.getEntityName()}, not ${link.owner.getEntityName()}`);
  if (other.foreignKey !== link.foreignKey || other.holder !== link.holder) {
    throw new TypeError(`${here} and its inverse ${there} are over different keys (${link.foreignKey}, ${other.foreignKey})`);
  }
  if (other.inverse !== undefined && other.inverse !== link.name) throw new TypeError(`${here} names ${there} as its inverse, but ${there} names ${link.owner.getEntityName()}.${other.inverse}`);
  const twin = links.find((candidate) => candidate !== link && candidate.inverse === link.inverse && candidate.target === link.target);
  if (twin !== undefined) throw new TypeError(`${here} and ${link.owner.getEntityName()}.${twin.name} both name ${there} as their inverse`);
}

/** Resolve and check the associations of a model class (its first use); returns them. */
export function prepare(model: typeof Model): readonly Link[] {
  const known = tables.get(model);
  if (known !== undefined) return known;
  const declared = declaredOf(model);
  if (declared === undefined) return [];
  const links = Object.keys(declared).map((name) => resolve(model, name, declared[name]));
  for (const link of links) checkInverse(link, links);
  tables.set(model, links);
  for (const link of links) {
    const list = held.get(link.holder) ?? [];
    if (!list.some((known) => known.owner === link.owner && known.name === link.name)) list.push(link);
    held.set(link.holder, list);
  }
  return links;
}
