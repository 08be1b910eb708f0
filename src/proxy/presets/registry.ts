import { toReader, type JsonReaderConfig } from '../../reader/JsonReader.js';
import { describeValue, isPlainObject, type OptionSchema } from '../../util/options.js';
import { toWriter, type JsonWriterConfig } from '../../writer/JsonWriter.js';
import { restOptions, type RestProxyConfig } from '../options/rest.js';
import { installPresets, type PresetInput } from './support.js';
import { dev } from '../../util/dev.js';

/**
 * A named set of server conventions: plain option values plus small encoder functions. The
 * options are those of RestProxy; `reader` and `writer` are merged with the ones given beside
 * the preset, and every option given beside it wins.
 */
export interface Preset extends Omit<RestProxyConfig, 'preset' | 'url' | 'api' | 'model' | 'fetch' | 'reader' | 'writer'> {
  reader?: JsonReaderConfig;
  writer?: JsonWriterConfig;
  /** False when the server has no batch endpoints: `batchActions: true` is then refused. */
  supportsBatch?: boolean;
}

/** Options that belong to one proxy, never to a server's conventions. */
const NOT_CONVENTIONS = new Set(['preset', 'url', 'api', 'model', 'fetch']);

/** The registry starts empty: `import 'rest-proxy/presets'` registers the built-in presets, so an app that names none ships none. */
const presets = new Map<string, Preset>();

/** The built-in presets' names, so that a missing import can be told from a typo. */
const BUILT_IN = ['json-server', 'django-rest', 'rails', 'laravel', 'spring-data-rest', 'json-api'];

/** A copy down to the reader and writer configs, so that the registry shares no object with its callers. */
function copyPreset(preset: Preset): Preset {
  const copy: Preset = { ...preset };
  if (preset.reader !== undefined) copy.reader = { ...preset.reader };
  if (preset.writer !== undefined) copy.writer = { ...preset.writer };
  return copy;
}

/** Check a preset as the RestProxy would check its options, so a mistake names the preset at once. */
function checkPreset(name: string, preset: Record<string, unknown>): void {
  const where = `registerPreset: preset "${name}"`;
  for (const [key, value] of Object.entries(preset)) {
    if (value === undefined) continue;
    if (key === 'supportsBatch') {
      if (typeof value !== 'boolean') throw new TypeError(`${where}: supportsBatch must be a boolean, got ${describeValue(value)}`);
      continue;
    }
    if (key === 'reader' || key === 'writer') {
      if (!isPlainObject(value)) throw new TypeError(`${where}: ${key} must be a ${key} config object, got ${describeValue(value)}`);
      try {
        if (key === 'reader') toReader(value);
        else toWriter(value);
      } catch (error) {
        throw new TypeError(`${where}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      continue;
    }
    if (NOT_CONVENTIONS.has(key)) {
      throw new TypeError(`${where}: ${key} belongs to each proxy, not to a preset${dev(` of server conventions; give it beside the preset ({ url, preset: '${name}' })`)}`);
    }
    const schema: OptionSchema = restOptions;
    const spec = Object.hasOwn(schema, key) ? schema[key] : undefined;
    if (spec === undefined) throw new TypeError(`${where}: unknown option "${key}"${dev(' (a preset holds RestProxy options, reader, writer and supportsBatch)')}`);
    if (!spec.test(value)) throw new TypeError(`${where}: ${key} must be ${spec.expect}, got ${describeValue(value)}`);
  }
  if (preset.supportsBatch === false && preset.batchActions === true) {
    throw new TypeError(`${where}: batchActions cannot be true when supportsBatch is false`);
  }
}

/**
 * Add (or replace) a preset, to be used as `new RestProxy({ url, preset: name })`. Its options
 * are checked now: an unknown or ill-typed one is a TypeError naming the preset and the option.
 * @example registerPreset('my-api', { pageParam: 'p', limitParam: 'n', reader: { rootProperty: 'items' } })
 */
export function registerPreset(name: string, preset: Preset): void {
  if (typeof name !== 'string' || name === '') throw new TypeError(`registerPreset: the name must be a non-empty string, got ${describeValue(name)}`);
  if (!isPlainObject(preset)) throw new TypeError(`registerPreset: preset "${name}" must be an object of RestProxy options, got ${describeValue(preset)}`);
  checkPreset(name, preset);
  // A copy, so that later changes to the object given do not change proxies made afterwards.
  presets.set(name, copyPreset(preset));
}

/**
 * A copy of a registered preset, to build on: e.g. json-server's conventions for a server that
 * does have batch endpoints: `registerPreset('my-json-server', { ...getPreset('json-server'), supportsBatch: true })`.
 */
export function getPreset(name: string): Preset | undefined {
  const preset = presets.get(name);
  return preset === undefined ? undefined : copyPreset(preset);
}

export function hasPreset(name: string): boolean {
  return presets.has(name);
}

/** The names of the registered presets. */
export function presetNames(): string[] {
  return [...presets.keys()];
}

/** A copy without the entries whose value is undefined (`{}` for undefined). */
function withoutUndefined<T extends object>(value: T | undefined): Partial<T> {
  const copy = { ...value };
  for (const key of Object.keys(copy)) if (Reflect.get(copy, key) === undefined) Reflect.deleteProperty(copy, key);
  return copy;
}

/**
 * Whether a value is a plain object, as a boolean rather than a type guard, so that a typed
 * config keeps its type (an ill-typed option is left for the RestProxy to report).
 */
function isObject(value: unknown): boolean {
  return isPlainObject(value);
}

function bothObjects(preset: unknown, given: unknown): boolean {
  return isObject(preset) && isObject(given);
}

/**
 * A preset's reader or writer config with the given config's entries over it (a copy when none
 * is given); a reader or writer instance, not a plain object, replaces it whole.
 */
function underGiven<C extends object, I extends object>(preset: C, given: C | I | undefined): C | I {
  return given === undefined || isObject(given) ? { ...preset, ...withoutUndefined(given) } : given;
}

/**
 * The config with the preset's conventions under it. Options given in the config win (an option
 * given as `undefined` counts as not given; `null` or `''` turns a param off); `reader` and
 * `writer` configs, `headers`, `actionMethods` and `extraParams` are merged entry by entry (a
 * reader or writer instance replaces the preset's one whole).
 */
export function applyPreset(config: PresetInput): PresetInput {
  if (!isPlainObject(config) || config.preset === undefined) return config;
  const name: unknown = config.preset;
  const preset = typeof name === 'string' ? presets.get(name) : undefined;
  if (preset === undefined) {
    if (typeof name === 'string' && BUILT_IN.includes(name)) {
      throw new TypeError(`RestProxy: preset "${name}" is built in${dev(', but the built-in presets are registered only where they are imported: add', ':')} import 'rest-proxy/presets'${dev(' once, before the proxy is made')}`);
    }
    const names = presetNames();
    throw new TypeError(
      `RestProxy: preset must be the name of a registered preset, got ${describeValue(name)}; ${names.length > 0 ? `the registered presets are ${names.map((n) => `"${n}"`).join(', ')}` : 'none is registered'}${dev(" (import 'rest-proxy/presets' for the built-in ones, or add one with registerPreset)")}`,
    );
  }
  const { supportsBatch, reader, writer, ...options } = preset;
  if (supportsBatch === false && config.batchActions === true) {
    throw new TypeError(
      `RestProxy: batchActions cannot be true with preset "${name}": that server has no batch endpoint${dev(' (json-server, for one, stores a POSTed array as a single record); leave batchActions off so that a sync sends one request per record')}`,
    );
  }
  // An option given as undefined is not given: the preset's value stays (null or '' turns a param off).
  const given = withoutUndefined(config);
  const merged: PresetInput = { ...options, ...given };
  if (reader !== undefined) merged.reader = underGiven(reader, given.reader);
  if (writer !== undefined) merged.writer = underGiven(writer, given.writer);
  // Objects of independent entries are added to the preset's (and win entry by entry) instead of
  // replacing them all, as a partial actionMethods keeps the defaults for the actions it leaves out.
  const { headers, actionMethods, extraParams } = given;
  if (bothObjects(options.headers, headers)) merged.headers = { ...options.headers, ...headers };
  if (bothObjects(options.actionMethods, actionMethods)) merged.actionMethods = { ...options.actionMethods, ...withoutUndefined(actionMethods) };
  if (bothObjects(options.extraParams, extraParams)) merged.extraParams = { ...options.extraParams, ...extraParams };
  return merged;
}

// Loaded, the registry is what RestProxy applies presets with.
installPresets({ apply: applyPreset, supportsBatch: (name) => presets.get(name)?.supportsBatch !== false });
