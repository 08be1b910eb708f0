import type { FieldInfo, FieldType, RecordLike } from '../operation/types.js';
import { canonicalIsoTime } from '../util/isoDate.js';
import { describeValue, is, isPlainObject } from '../util/options.js';
import { dev } from '../util/dev.js';

/** A field declaration: a name (type `'auto'`), or a config. */
export interface FieldConfig {
  /** The field's name, the key of its value in the record's data. Required. @example { name: 'email', type: 'string' } */
  name: string;
  /**
   * How values are converted: `'auto'` (default: kept as they are), `'string'`, `'int'`,
   * `'number'`, `'boolean'` or `'date'`. (Typed as string too, so that a plain
   * `static fields = [{ name: 'age', type: 'int' }]` compiles; other values are a TypeError.)
   */
  type?: FieldType | (string & {});
  /** The value of a new record that was given none. Default none. */
  defaultValue?: unknown;
  /** Whether null is kept (true, the default) or turned into the type's empty value ('', 0, false). */
  allowNull?: boolean;
  /** False: the field is never written to the server nor tracked as modified. Default true. */
  persist?: boolean;
  /** The name (or dotted path) of the value in server data. @example { name: 'email', mapping: 'email_address' } */
  mapping?: string;
  /** Your own conversion of values (from the server and from `set`). */
  convert?: (value: unknown, record: RecordLike) => unknown;
  /** Your own conversion of the value written to the server. */
  serialize?: (value: unknown, record: RecordLike) => unknown;
}

export type FieldDeclaration = string | FieldConfig;

/** Returned by a converter for a value it cannot convert. */
export const INVALID: unique symbol = Symbol('invalid');
type Converted = unknown;

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/** Date.parse, with a fast path for the canonical ISO form (about twice as fast). */
function parseDate(text: string): number {
  const time = canonicalIsoTime(text);
  return Number.isNaN(time) ? Date.parse(text) : time;
}

function toDate(value: unknown): Converted {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? INVALID : value;
  if (typeof value === 'number') return Number.isFinite(value) ? new Date(value) : INVALID;
  if (typeof value === 'string') {
    const time = parseDate(value);
    return Number.isNaN(time) ? INVALID : new Date(time);
  }
  return INVALID;
}

const CONVERTERS: Record<Exclude<FieldType, 'auto'>, (value: unknown) => Converted> = {
  string: (value) => (typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : typeof value === 'object' ? INVALID : String(value)),
  int: (value) => {
    if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : INVALID;
    if (typeof value === 'string' && /^\s*[-+]?\d+(\.\d*)?\s*$/.test(value)) return Math.trunc(Number(value));
    if (typeof value === 'boolean') return value ? 1 : 0;
    return INVALID;
  },
  number: (value) => {
    if (typeof value === 'number') return Number.isNaN(value) ? INVALID : value;
    if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
    if (typeof value === 'boolean') return value ? 1 : 0;
    return INVALID;
  },
  boolean: (value) => {
    if (typeof value === 'boolean') return value;
    if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : INVALID;
    if (typeof value === 'string') {
      const text = value.trim().toLowerCase();
      return TRUE.has(text) ? true : FALSE.has(text) ? false : INVALID;
    }
    return INVALID;
  },
  date: toDate,
};

/** Each field type (its keys, in the order messages list them), with its empty value. */
const EMPTY: Record<FieldType, unknown> = { auto: null, string: '', int: 0, number: 0, boolean: false, date: null };

function isFieldType(type: unknown): type is FieldType {
  return typeof type === 'string' && Object.hasOwn(EMPTY, type);
}

/** Whether a value is already in the field type's form (so a lazy conversion can be skipped). */
const CONVERTED: Record<FieldType, (value: unknown) => boolean> = {
  auto: () => true,
  string: (v) => typeof v === 'string',
  int: (v) => typeof v === 'number' && Number.isInteger(v),
  number: (v) => typeof v === 'number' && !Number.isNaN(v),
  boolean: (v) => typeof v === 'boolean',
  date: (v) => v instanceof Date,
};

/** A field config's options, each with its check, in the order they are checked (name and type have their own; defaultValue takes anything). */
const OPTION_CHECKS = {
  name: undefined,
  type: undefined,
  defaultValue: undefined,
  allowNull: is.boolean,
  persist: is.boolean,
  convert: is.function,
  serialize: is.function,
  mapping: { expect: 'a non-empty string', test: (v: unknown) => typeof v === 'string' && v !== '' },
} as const;

/** A declared field of a model class, with its converter built once. */
export class Field implements FieldInfo {
  // Declared, not defined: the constructor sets each one (and the bundle carries no field list).
  declare readonly name: string;
  declare readonly type: FieldType;
  declare readonly mapping: string | undefined;
  declare readonly persist: boolean;
  declare readonly serialize: FieldConfig['serialize'];
  declare readonly defaultValue: unknown;
  declare readonly allowNull: boolean;
  declare readonly customConvert: FieldConfig['convert'];
  /** Converted on first read, not when a record is made from server data (built-in types only). */
  declare readonly lazy: boolean;
  /** What null converts to (the type's empty value with `allowNull: false`, else null), made once: a field given no value reads as it (readField), unless a custom convert makes it. */
  declare readonly blank: unknown;
  /** The type's check, looked up once (readField calls it on every read of a lazy field). */
  readonly #inType: (value: unknown) => boolean;

  constructor(declaration: FieldDeclaration, modelName: string) {
    const config: FieldConfig = typeof declaration === 'string' ? { name: declaration } : declaration;
    if (!isPlainObject(config) || typeof config.name !== 'string' || config.name === '') {
      throw new TypeError(`${modelName}.fields: ${dev('each field must be a name or a config with a name', 'not a field')}, got ${describeValue(declaration)}`);
    }
    const where = `${modelName}.fields "${config.name}"`;
    for (const key of Object.keys(config)) {
      if (!Object.hasOwn(OPTION_CHECKS, key)) throw new TypeError(`${where}: unknown field option "${key}"`);
    }
    const type = config.type ?? 'auto';
    if (!isFieldType(type)) throw new TypeError(`${where}: type ${dev(`must be one of ${Object.keys(EMPTY).join(', ')}`, 'is unknown')}, got ${describeValue(config.type)}`);
    for (const [key, check] of Object.entries(OPTION_CHECKS)) {
      const value: unknown = Reflect.get(config, key);
      if (check && value !== undefined && !check.test(value)) throw new TypeError(`${where}: ${key} must be ${check.expect}, got ${describeValue(value)}`);
    }
    this.name = config.name;
    this.type = type;
    this.mapping = config.mapping;
    this.persist = config.persist ?? true;
    this.serialize = config.serialize;
    this.defaultValue = config.defaultValue;
    this.allowNull = config.allowNull ?? true;
    this.customConvert = config.convert;
    this.lazy = type !== 'auto' && config.convert === undefined;
    this.#inType = CONVERTED[type];
    this.blank = this.allowNull ? null : EMPTY[type];
  }

  isConverted(value: unknown): boolean {
    return this.#inType(value) || (value === null && this.allowNull);
  }

  /** Convert a value; INVALID when it cannot be. */
  convert(value: unknown, record: RecordLike): Converted {
    if (this.customConvert) return this.customConvert(value, record);
    if (this.type === 'auto') return value;
    if (value === undefined || value === null || (value === '' && this.type !== 'string')) return this.blank;
    return CONVERTERS[this.type](value);
  }

  /** A value as the record reads it: converted, or the field's blank when its type cannot take it (a server's `'many'` for an int). */
  read(value: unknown, record: RecordLike): unknown {
    const converted = this.convert(value, record);
    return converted === INVALID ? this.blank : converted;
  }

  /** A fresh copy of the default value (objects and Dates are not shared between records). */
  makeDefault(): unknown {
    const value = this.defaultValue;
    return typeof value === 'object' && value !== null ? structuredClone(value) : value;
  }
}

/** Values that count as equal for dirty tracking: Dates by time, NaN equals NaN. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return Object.is(a, b) || a === b;
}
