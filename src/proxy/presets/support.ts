/**
 * How a RestProxy applies a preset by name. The preset registry installs this when it is loaded
 * (by `rest-proxy/presets`, or by an app that imports `registerPreset`), so that an app that
 * names no preset ships no registry.
 */
import type { RestProxyConfig } from '../options/rest.js';
import { dev } from '../../util/dev.js';

/** A RestProxy config whose preset is any name (checked against the registry). */
export type PresetInput = Omit<RestProxyConfig, 'preset'> & { preset?: string | undefined };

export interface PresetSupport {
  /** The config with the preset's conventions under it (a TypeError for an unknown name). */
  apply(config: PresetInput): PresetInput;
  /** Whether the preset's server has batch endpoints. */
  supportsBatch(name: string): boolean;
}

let support: PresetSupport | undefined;

export function installPresets(installed: PresetSupport): void {
  support = installed;
}

/** The config with its preset applied; a TypeError saying what to import when no preset can be. */
export function applyPresetOf(config: PresetInput): PresetInput {
  if (typeof config !== 'object' || config === null || config.preset === undefined) return config;
  if (support === undefined) {
    throw new TypeError(
      `RestProxy: preset ${JSON.stringify(config.preset)} is not registered${dev(': the built-in presets are registered by', ':')} import 'rest-proxy/presets'${dev(' (once, before the proxy is made), your own by registerPreset')}`,
    );
  }
  return support.apply(config);
}

export function presetSupportsBatch(name: string): boolean {
  return support?.supportsBatch(name) ?? true;
}
