import type { JsonReaderConfig } from '../../reader/JsonReader.js';
import { isPlainObject } from '../../util/options.js';
import type { JsonWriterConfig } from '../../writer/JsonWriter.js';
import type { RestProxyConfig } from '../RestProxy.js';
import { builtInPresets } from './builtIn.js';

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

const presets = new Map<string, Preset>(Object.entries(builtInPresets));

/**
 * Add (or replace) a preset, to be used as `new RestProxy({ url, preset: name })`.
 * @example registerPreset('my-api', { pageParam: 'p', limitParam: 'n', reader: { rootProperty: 'items' } })
 */
export function registerPreset(name: string, preset: Preset): void {
  if (typeof name !== 'string' || name === '') throw new TypeError(`registerPreset: the name must be a non-empty string, got ${String(name)}`);
  if (!isPlainObject(preset)) throw new TypeError(`registerPreset: preset "${name}" must be an object of RestProxy options`);
  presets.set(name, preset);
}

export function hasPreset(name: string): boolean {
  return presets.has(name);
}

/** The names of the registered presets. */
export function presetNames(): string[] {
  return [...presets.keys()];
}

/** The config with the preset's conventions under it (options given in the config win). */
export function applyPreset(config: RestProxyConfig): RestProxyConfig {
  if (!isPlainObject(config) || config.preset === undefined) return config;
  const name = config.preset;
  const preset = typeof name === 'string' ? presets.get(name) : undefined;
  if (preset === undefined) {
    throw new TypeError(`RestProxy: preset must be the name of a registered preset (${presetNames().map((n) => `"${n}"`).join(', ')}), got ${JSON.stringify(name)}`);
  }
  const { supportsBatch, reader, writer, ...options } = preset;
  if (supportsBatch === false && config.batchActions === true) {
    throw new TypeError(
      `RestProxy: batchActions cannot be true with preset "${name}": that server has no batch endpoint (json-server, for one, stores a POSTed array as a single record)`,
    );
  }
  const merged: RestProxyConfig = { ...options, ...config };
  if (reader !== undefined) merged.reader = isPlainObject(config.reader) ? { ...reader, ...config.reader } : (config.reader ?? { ...reader });
  if (writer !== undefined) merged.writer = isPlainObject(config.writer) ? { ...writer, ...config.writer } : (config.writer ?? { ...writer });
  if (options.headers !== undefined && config.headers !== undefined) merged.headers = { ...options.headers, ...config.headers };
  return merged;
}
