/** The public types of models and records. */
import type { FieldInfo } from '../operation/types.js';
import type { FieldConfig } from './fields.js';
import type { Proxy } from '../proxy/Proxy.js';
import type { ProxyTypeConfig } from '../proxy/registry.js';
import type { Model } from './Model.js';

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

/** Options of save. */
export interface SaveOptions extends PersistOptions {
  /** False: send the record without checking its validators. Default true. */
  validate?: boolean;
}

/** A model class as a static method sees its `this`. */
export interface ModelClass<T extends Model<object> = Model> {
  new (data?: Record<string, unknown>): T;
  /** The declared proxy (a proxy or a config), if any. */
  readonly proxy: Proxy | ProxyTypeConfig | undefined;
  /** The name in messages and client ids: `entityName`, else the proxy url's last segment (see Model.getEntityName). */
  getEntityName(): string;
  /** The field that holds the id (default `'id'`). */
  idProperty: string;
  /** The field a create sends the client id in, if any (default none). */
  clientIdProperty: string | undefined;
  /** The model's proxy, made from its config once (a TypeError when it has none). */
  getProxy(): Proxy;
  /** The declared fields, resolved. */
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

/** A field config whose name is one of the model's fields. */
export type FieldConfigOf<D> = Omit<FieldConfig, 'name'> & { name: keyof D & string };

/**
 * The fields of a model with data `D`, for type checking `static fields`: a misspelt field name
 * does not compile.
 * @example static override fields = ['id', 'name', { name: 'age', type: 'int' }] satisfies FieldsOf<UserData>;
 */
export type FieldsOf<D> = readonly ((keyof D & string) | FieldConfigOf<D>)[];
