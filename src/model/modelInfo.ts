/**
 * The field table of a model class, built once and kept on its prototype for a fast lookup per
 * record, and the name a model goes by in messages and client ids.
 */
import { describeValue } from '../util/options.js';
import { resourceName } from '../util/url.js';
import { extensions } from './extensions.js';
import { Field } from './fields.js';
import { dev } from '../util/dev.js';

/** What the table is built from: a model class's statics. */
export interface ModelStatics {
  readonly prototype: object;
  readonly fields: unknown;
  readonly idProperty: string;
  readonly entityName: string;
  readonly proxy: unknown;
}

export interface ModelInfo {
  model: ModelStatics;
  idProperty: string;
  fields: Field[];
  byName: Map<string, Field>;
  /** Fields converted when a record is made from server data (mapping, custom convert, default). */
  eager: Field[];
  idField: Field | undefined;
  /** The key of the id in server data: the id field's mapping, or the id property. */
  idKey: string;
  /** The first segment of every field mapping: keys of server data that belong to a mapped field. */
  mappedRoots: Set<string>;
  /** Fields that may wait for a new parent's key (rest-proxy/associations adds them): only these ask extensions.keyWaits when null. */
  keys: Set<string>;
}

/** @internal Where a model class keeps its table: on its prototype, so each record finds it at once. */
export const INFO: unique symbol = Symbol(dev('rest-proxy.modelInfo'));

interface WithInfo {
  readonly [INFO]?: ModelInfo | undefined;
}

function cachedInfo(prototype: WithInfo): ModelInfo | undefined {
  return Object.hasOwn(prototype, INFO) ? prototype[INFO] : undefined;
}

/** The field table of a model class (its own fields after its parents'). */
export function infoOf(model: ModelStatics): ModelInfo {
  const prototype: WithInfo = model.prototype;
  const cached = cachedInfo(prototype);
  if (cached !== undefined) return cached;
  const chain: ModelStatics[] = [];
  for (let current: unknown = model; typeof current === 'function' && current !== Function.prototype; current = Object.getPrototypeOf(current)) {
    if (Object.hasOwn(current, 'fields') && isStatics(current)) chain.unshift(current);
  }
  const name = entityNameOf(model);
  const byName = new Map<string, Field>();
  for (const cls of chain) {
    const own = cls.fields;
    if (!Array.isArray(own)) throw new TypeError(`${name}.fields must be an array${dev(' of field names or configs')}, got ${describeValue(own)}`);
    for (const declaration of own) {
      const field = new Field(declaration, name);
      byName.set(field.name, field);
    }
  }
  const fields = [...byName.values()];
  const idField = byName.get(model.idProperty);
  const info: ModelInfo = {
    model,
    idProperty: model.idProperty,
    fields,
    byName,
    eager: fields.filter((field) => field.mapping !== undefined || field.customConvert !== undefined || field.defaultValue !== undefined),
    idField,
    idKey: idField?.mapping ?? model.idProperty,
    mappedRoots: new Set(fields.flatMap((field) => (field.mapping === undefined ? [] : [field.mapping.split('.')[0] ?? field.mapping]))),
    keys: new Set(),
  };
  // Before the table is kept: a bad declaration throws again at the next use.
  extensions.modelReady?.(model);
  Object.defineProperty(prototype, INFO, { value: info, configurable: true });
  return info;
}

/** The table of a record's model class. */
export function recordInfo(record: WithInfo & { readonly constructor: unknown }): ModelInfo {
  const info = record[INFO];
  // A subclass without a table of its own finds its parent's first: check whose it is.
  if (info !== undefined && info.model === record.constructor) return info;
  const model = record.constructor;
  if (!isStatics(model)) throw new TypeError(`expected a record${dev(' of a Model class')}, got ${describeValue(record)}`);
  return infoOf(model);
}

function isStatics(value: unknown): value is ModelStatics {
  return typeof value === 'function' && 'idProperty' in value;
}

/**
 * The name a model goes by in messages and client ids: its `entityName`, else the last segment
 * of its proxy's url (`/api/users` -> `users`), else `Record`. Never the class name, which a
 * minifier renames.
 */
export function entityNameOf(model: ModelStatics): string {
  if (typeof model.entityName === 'string' && model.entityName !== '') return model.entityName;
  const proxy = model.proxy;
  const url: unknown = typeof proxy === 'object' && proxy !== null ? Reflect.get(proxy, 'url') : undefined;
  return (typeof url === 'string' && resourceName(url)) || 'Record';
}
