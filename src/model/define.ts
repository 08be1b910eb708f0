/**
 * `Model.define({ fields, proxy, validators, ... })`: a model class whose record type follows from
 * its field declarations, as the runtime converts them. Types mostly: at run time it makes a
 * subclass with the section 5 statics (an object `fields` becomes the array of configs).
 */
import type { FieldType } from '../operation/types.js';
import type { AjaxProxy } from '../proxy/AjaxProxy.js';
import type { MemoryProxy } from '../proxy/MemoryProxy.js';
import type { Proxy } from '../proxy/Proxy.js';
import type { ProxyTypeConfig } from '../proxy/registry.js';
import type { RestProxy } from '../proxy/RestProxy.js';
import { describeValue, isPlainObject } from '../util/options.js';
import type { FieldConfig } from './fields.js';
import type { Model } from './Model.js';
import { infoOf, type ModelStatics } from './modelInfo.js';
import type { ModelInit } from './types.js';
import { rulesOf, type ValidatorsOf } from './validate.js';
import { dev } from '../util/dev.js';


/** Types only: the value type an `auto<T>()` field declares. */
declare const AUTO: unique symbol;

/** The options of a field given by its key in an object `fields` (the key is its name). */
export type FieldOptions = Omit<FieldConfig, 'name' | 'type'> & { type?: FieldType };

/** An `auto` field whose values are of type `T` (`| null` unless `Nullable` is false): made by `auto<T>()`. */
export type AutoField<T, Nullable extends boolean = true> = Omit<FieldOptions, 'type' | 'convert'> & { type: 'auto'; readonly [AUTO]: [T, Nullable] };

/** What `fields` may be: an object of type names or options by field name, or a section 5 array. */
export type FieldsInput = { readonly [name: string]: FieldType | FieldOptions } | readonly (string | FieldConfig)[];

type Base<T> = T extends 'string' ? string : T extends 'int' | 'number' ? number : T extends 'boolean' ? boolean : T extends 'date' ? Date : unknown;
type TypeOf<S> = S extends { type: infer T } ? T : 'auto';

/** The type of a field's value, as the runtime gives it. */
export type FieldValue<S> = S extends { readonly [AUTO]: [infer T, infer N] }
  ? N extends false ? T : T | null
  : S extends string
    ? Base<S> | null
    : S extends { convert: (...args: never[]) => infer R }
      ? R
      : S extends { allowNull: false } ? (TypeOf<S> extends 'date' ? Date | null : Base<TypeOf<S>>) : Base<TypeOf<S>> | null;

type NameOf<E> = E extends string ? E : E extends { name: infer N extends string } ? N : never;

/** The record type of the fields alone (no id added). */
export type FieldsData<F> = F extends readonly unknown[]
  ? { -readonly [E in F[number] as NameOf<E>]: E extends string ? unknown : FieldValue<E> }
  : { -readonly [K in keyof F & string]: FieldValue<F[K]> };

type Flat<T> = { [K in keyof T]: T[K] };

/** The record type of a defined model: its fields' types, and an undeclared id as `string | number`. */
export type RecordOf<F, I extends string = 'id'> = Flat<FieldsData<F> & (I extends keyof FieldsData<F> ? unknown : { [K in I]: string | number })>;

/** The proxy a declared proxy (or proxy config) makes. */
export type ProxyOf<P> = P extends Proxy ? P : P extends { type: 'rest' } ? RestProxy : P extends { type: 'ajax' } ? AjaxProxy : P extends { type: 'memory' } ? MemoryProxy : Proxy;

/** The options of `Model.define`. */
export interface DefineOptions<F extends FieldsInput, P, I extends string> {
  /** The fields: `{ name: 'string', age: { type: 'int', allowNull: false } }`, or a section 5 array. Required. */
  fields: F;
  /** The proxy: a Proxy, or a config such as `{ type: 'rest', url: '/users' }`. */
  proxy?: P;
  /** The validators per field. @example { name: presence(), email: [presence(), email()] } */
  validators?: ValidatorsOf<NoInfer<RecordOf<F, I>>>;
  /** The name in messages and client ids. Default: the last segment of the proxy's url. */
  entityName?: string;
  /** The id field's name. Default `'id'`. */
  idProperty?: I;
  /** The property in a create that carries the client id (and that a server echoes). Default none. */
  clientIdProperty?: string;
}

/** The class `Model.define` returns: extend it (`class User extends Model.define({...}) {}`). */
export type DefinedModel<D extends object, P> = Omit<typeof Model, 'prototype' | 'proxy'> & {
  new (data?: ModelInit<D>): Model<D>;
  readonly prototype: Model<D>;
  proxy: undefined extends P ? Proxy | ProxyTypeConfig | undefined : P;
};

/** What defineModel is called on: a model class. */
type ModelBase = ModelStatics & (abstract new (data?: never) => object);

const OPTIONS = new Set(['fields', 'proxy', 'validators', 'entityName', 'idProperty', 'clientIdProperty']);

/**
 * A model class from its declarations, to extend: `class User extends Model.define({ fields:
 * { name: 'string', age: { type: 'int', allowNull: false } }, proxy: { type: 'rest', url: '/users' } }) {}`.
 * The record type follows the fields: `string` -> `string | null`, `int` and `number` -> `number`,
 * `boolean`, `date` -> `Date | null`, `auto` -> `unknown` (`auto<T>()` for a type), `| null`
 * unless `allowNull: false`, a `convert`'s return type; an undeclared id is `string | number`.
 * Fields and validators are checked now (a TypeError names what is wrong).
 */
export function defineModel<const F extends FieldsInput, const P extends Proxy | ProxyTypeConfig | undefined = undefined, const I extends string = 'id'>(
  this: ModelBase,
  options: DefineOptions<F, P, I>,
): DefinedModel<RecordOf<F, I>, P>;
export function defineModel(this: ModelBase, options: DefineOptions<FieldsInput, unknown, string>): unknown {
  if (!isPlainObject(options)) throw new TypeError(`Model.define: expected ${dev('{ fields, proxy?, validators?, ... }', 'an object')}, got ${describeValue(options)}`);
  for (const key of Object.keys(options)) if (!OPTIONS.has(key)) throw new TypeError(`Model.define: unknown option "${key}"`);
  const given: unknown = options.fields;
  const fields = isPlainObject(given) ? Object.entries(given).map(([name, spec]) => (isPlainObject(spec) ? { ...spec, name } : { name, type: spec })) : given;
  const model = class extends this {};
  Object.assign(model, { ...options, fields });
  infoOf(model);
  rulesOf(model);
  return model;
}

/**
 * An `auto` field (values kept as they are) typed `T` in the record (`T | null` unless
 * `allowNull: false`). @example tags: auto<string[]>({ defaultValue: [] })
 */
export function auto<T>(options: Omit<FieldOptions, 'type' | 'convert'> & { allowNull: false }): AutoField<T, false>;
export function auto<T>(options?: Omit<FieldOptions, 'type' | 'convert'>): AutoField<T>;
export function auto(options: Omit<FieldOptions, 'type' | 'convert'> = {}): FieldOptions {
  return { ...options, type: 'auto' };
}

/** `D` against fields `F`: the names that differ (missing on one side, or typed otherwise), never when they agree. */
type Mismatch<D, R> = {
  [K in keyof D | keyof R]-?: K extends keyof D ? (K extends keyof R ? ([D[K]] extends [R[K]] ? ([R[K]] extends [D[K]] ? never : K) : K) : K) : K;
}[keyof D | keyof R];

/** The check of `fieldsFor`: nothing when the fields give exactly `D`, else a property naming the fields that differ. */
export type FieldsMatch<D, F> = [Mismatch<D, 'id' extends keyof D ? RecordOf<F> : FieldsData<F>>] extends [never]
  ? unknown
  : { 'these fields do not match the type': Mismatch<D, 'id' extends keyof D ? RecordOf<F> : FieldsData<F>> };

/**
 * Check fields against a data type you wrote: `fieldsFor<UserData>()({ ... })` returns the
 * fields unchanged, and does not compile when a field is not in `UserData`, a key of `UserData`
 * is not declared, or a type differs either way.
 */
export function fieldsFor<D extends object>(): <const F extends FieldsInput>(fields: F & FieldsMatch<D, F>) => F {
  return (fields) => fields;
}
