import { dev } from './dev.js';

/**
 * Config options: declared once per class with their check, default and normalisation, and
 * turned into validated accessors on the prototype. Every option is afterwards a public,
 * writable property; assigning a wrong value throws the same TypeError as the constructor.
 */
export interface OptionSpec {
  /** Says what the option must be, completing "<name> must be ...", e.g. "a boolean". */
  readonly expect: string;
  readonly test: (value: unknown) => boolean;
  /** The default, made anew for every instance. */
  readonly initial?: () => unknown;
  /** Turns an accepted value into the stored form (e.g. a config object into an instance). */
  readonly normalize?: (value: unknown, owner: object) => unknown;
  /** `undefined` is a value of its own (a param name: "not sent"), not "the default". */
  readonly keepUndefined?: boolean;
  /** Says more precisely what is wrong with a value that passed `test` (a bad header name), else undefined. */
  readonly problem?: (value: unknown) => string | undefined;
}

export type OptionSchema = Readonly<Record<string, OptionSpec>>;

/** The schema of a config interface: one spec per option, none missing, none misspelt. */
export type Schema<C> = { readonly [K in keyof Required<C>]: OptionSpec };

/**
 * The properties a class has for its options: each option of the config, as stored. Options with
 * a default are never undefined; the others may be. Declared on the class by interface merging,
 * so that each option is declared (and documented) once, in its config interface.
 */
export type Stored<C, Defaulted extends keyof C = never> = Required<Pick<C, Defaulted>> & Pick<C, Exclude<keyof C, Defaulted>>;

const VALUES = Symbol(dev('options'));
const CHANGES = Symbol(dev('optionChanges'));

interface WithOptionValues {
  [VALUES]?: Record<string, unknown>;
  [CHANGES]?: number;
}

/** Counts the options set on `owner`, so that what is derived from them is made again only after a change. */
export function optionChanges(owner: object): number {
  const withValues: WithOptionValues = owner;
  return withValues[CHANGES] ?? 0;
}

/**
 * A value as messages name it. Never by a class name of the app's (a minifier renames classes):
 * a record by its model's entity name, another object as an object.
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a Date';
  if (typeof value === 'object') {
    // A record's class (its constructor) names its model.
    const model: unknown = value.constructor;
    const name: unknown = typeof model === 'function' && 'getEntityName' in model && typeof model.getEntityName === 'function' ? model.getEntityName() : undefined;
    return typeof name === 'string' ? `a record of ${name}` : isPlainObject(value) ? 'an object' : 'an object (not a plain one)';
  }
  return String(value);
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] ?? 0;
      row[j] = Math.min(current + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] ?? 0;
}

function suggestion(name: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best === undefined ? '' : ` (did you mean "${best}"?)`;
}

function values(owner: WithOptionValues): Record<string, unknown> {
  return (owner[VALUES] ??= {});
}

/**
 * Check and store one option. `undefined`, or an option not `given` (left out of a config), is
 * its default; but a param name given as undefined is undefined (the param is not sent).
 */
function store(owner: object, className: string, name: string, spec: OptionSpec, value: unknown, given = true): void {
  if (value !== undefined) {
    check(className, name, spec, value);
    const problem = spec.problem?.(value);
    if (problem !== undefined) throw new TypeError(`${className}: ${name}: ${problem}`);
  } else if (!given || !spec.keepUndefined) value = spec.initial?.();
  values(owner)[name] = value !== undefined && spec.normalize ? spec.normalize(value, owner) : value;
  changed(owner);
}

/** A TypeError naming the option, unless `value` passes its test. */
function check(className: string, name: string, spec: OptionSpec, value: unknown): void {
  if (!spec.test(value)) throw new TypeError(`${className}: ${name} must be ${spec.expect}, got ${describeValue(value)}`);
}

function changed(owner: WithOptionValues): void {
  owner[CHANGES] = (owner[CHANGES] ?? 0) + 1;
}

/**
 * Define validated accessors for every option of `schema` on `prototype`. The class declares
 * the matching typed properties with `declare`, so TypeScript knows their types. `afterSet` is
 * called after an assignment (not for the constructor's config).
 */
export function defineOptions(prototype: object, className: string, schema: OptionSchema, afterSet?: (owner: object) => void): void {
  for (const [name, spec] of Object.entries(schema)) {
    Object.defineProperty(prototype, name, {
      configurable: true,
      enumerable: true,
      get(this: WithOptionValues) {
        return values(this)[name];
      },
      set(this: object, value: unknown) {
        store(this, className, name, spec, value);
        afterSet?.(this);
      },
    });
  }
}

/** The config as an object whose every key is an option of `schema` (else a TypeError naming it). */
function checkedConfig(className: string, schema: OptionSchema, config: unknown): object {
  if (config !== undefined && (typeof config !== 'object' || config === null || Array.isArray(config))) {
    throw new TypeError(`${className}: the config must be an object, got ${describeValue(config)}`);
  }
  const given: object = config ?? {};
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(schema, key)) {
      throw new TypeError(`${className}: unknown option "${key}"${dev(suggestion(key, Object.keys(schema)))}`);
    }
  }
  return given;
}

/**
 * Check a config and put each option on `owner` as a plain property (its default when not
 * given): for objects made by the thousand (an operation per record of a sync), whose options
 * are read often and not assigned afterwards.
 */
export function assignOptions(owner: object, className: string, schema: OptionSchema, config: unknown): void {
  const given = checkedConfig(className, schema, config);
  // Every option set in the schema's order (objects of a class keep one shape); only the ones
  // given are checked, the others take their default. Gathered in a plain object and assigned at
  // once: a Reflect.set per option cost an operation 3 us.
  const assigned: Record<string, unknown> = {};
  for (const [name, spec] of entriesOf(schema)) {
    const value: unknown = Object.hasOwn(given, name) ? Reflect.get(given, name) : undefined;
    if (value !== undefined) check(className, name, spec, value);
    assigned[name] = value === undefined ? spec.initial?.() : value;
  }
  Object.assign(owner, assigned);
}

/**
 * Apply defaults, then a user's config, checking every key: an unknown option or a value of the
 * wrong type is a TypeError that names it.
 */
export function applyOptions(
  owner: object,
  className: string,
  schema: OptionSchema,
  config: unknown,
): void {
  const given = checkedConfig(className, schema, config);
  for (const [name, spec] of entriesOf(schema)) {
    const own = Object.hasOwn(given, name);
    store(owner, className, name, spec, own ? Reflect.get(given, name) : undefined, own);
  }
}

/** A schema's entries, listed once (operations are made per record on a sync). */
const schemaEntries = new WeakMap<OptionSchema, [string, OptionSpec][]>();

function entriesOf(schema: OptionSchema): [string, OptionSpec][] {
  let entries = schemaEntries.get(schema);
  if (entries === undefined) {
    entries = Object.entries(schema);
    schemaEntries.set(schema, entries);
  }
  return entries;
}

// Checks shared by the option schemas.
export const is = {
  boolean: { expect: 'a boolean', test: (v: unknown) => typeof v === 'boolean' },
  string: { expect: 'a string', test: (v: unknown) => typeof v === 'string' },
  function: { expect: 'a function', test: (v: unknown) => typeof v === 'function' },
  plainObject: { expect: 'an object', test: (v: unknown) => isPlainObject(v) },
  nonNegativeInteger: {
    expect: 'a non-negative integer',
    test: (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0,
  },
  positiveInteger: {
    expect: 'a positive integer',
    test: (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0,
  },
  /** A header name as fetch takes it (RFC 9110 token). */
  headerName: { expect: `a header name${dev(" (letters, digits and !#$%&'*+-.^_`|~ only)")}`, test: (v: unknown) => typeof v === 'string' && /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(v) },
  /** A header value as fetch takes it: no line breaks, NUL or characters beyond \xFF. */
  headerValue: { expect: `a header value${dev(' (no line breaks, NUL or characters beyond \\xFF)')}`, test: (v: unknown) => typeof v === 'string' && !/[\0\r\n]|[^\0-\xff]/.test(v) },
  /** A param name: a string, or undefined/null/'' meaning "not sent". */
  paramName: {
    expect: `a string${dev(' (or undefined, null or "" to leave the param out)')}`,
    test: (v: unknown) => v === undefined || v === null || typeof v === 'string',
  },
} as const;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A param name option: `undefined`, `null` and `''` all mean the param is not sent. */
export function paramOption(initial: string): OptionSpec {
  return { ...option(is.paramName, () => initial), keepUndefined: true };
}

/** Build a spec from a check, with an optional default and normaliser. */
export function option(
  check: { expect: string; test: (value: unknown) => boolean; problem?: (value: unknown) => string | undefined },
  initial?: () => unknown,
  normalize?: (value: unknown, owner: object) => unknown,
): OptionSpec {
  return { ...check, test: (value) => value === undefined || check.test(value), initial, normalize };
}
