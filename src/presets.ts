/**
 * rest-proxy/presets: the built-in server conventions, registered by importing this entry once
 * (`import 'rest-proxy/presets'`), so that `preset: 'rails'` works by name. An app that names no
 * preset does not import it, and ships none of them.
 * @module rest-proxy/presets
 */
import { builtInPresets } from './proxy/presets/builtIn.js';
import { registerPreset } from './proxy/presets/registry.js';

for (const [name, preset] of Object.entries(builtInPresets)) registerPreset(name, preset);

export { jsonApiPreset, railsRootKey } from './proxy/presets/builtIn.js';
export type { JsonApiOptions } from './proxy/presets/builtIn.js';
export { singularize, snakeCase } from './proxy/presets/inflect.js';
export { getPreset, presetNames, registerPreset } from './proxy/presets/registry.js';
export type { Preset } from './proxy/presets/registry.js';
