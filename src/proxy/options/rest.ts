/** The options of the Rest proxy (RestProxy), declared once. */
import type { Action } from '../../operation/types.js';
import { is, option, type Schema } from '../../util/options.js';
import { dev } from '../../util/dev.js';
import { actionMethodsOption, ajaxSchema, type AjaxProxyConfig } from './ajax.js';

/**
 * The names of the presets, for type checking: the built-in ones, and those an app registers
 * and declares here (`declare module 'rest-proxy' { interface Presets { 'my-api': true } }`).
 */
export interface Presets {
  'json-server': true;
  'django-rest': true;
  rails: true;
  laravel: true;
  'spring-data-rest': true;
  'json-api': true;
}

export type PresetName = keyof Presets;

export interface RestProxyConfig extends AjaxProxyConfig {
  /** Append the record's id to the url of a request about one instance (`/users/2`). Default true. */
  appendId?: boolean;
  /** When set, `.<format>` ends the path of every url (`/users.json`, `/users/2.json`). Default none. */
  format?: string | undefined;
  /** End every path with `/` (`/users/`, `/users/2/`), as Django expects. Default false. */
  trailingSlash?: boolean;
  /**
   * A named set of server conventions: param names and encodings, reader and writer settings,
   * path style and error bodies. Options given beside it win. Built in (registered by
   * `import 'rest-proxy/presets'`): `'json-server'`, `'django-rest'`, `'rails'`, `'laravel'`,
   * `'spring-data-rest'`, `'json-api'`; add your own with `registerPreset`. Default none.
   * @example new RestProxy({ url: '/api/users', preset: 'django-rest' })
   */
  preset?: PresetName | undefined;
}

export const REST_METHODS: Readonly<Record<Action, string>> = Object.freeze({ create: 'POST', read: 'GET', update: 'PUT', destroy: 'DELETE' });

/** The RestProxy options as plain values (the preset's effects are added by RestProxy itself). */
export const restOptions = {
  ...ajaxSchema,
  actionMethods: actionMethodsOption(REST_METHODS),
  appendId: option(is.boolean, () => true),
  format: option({ expect: `a string of letters and digits${dev(' (e.g. "json")')}`, test: (v) => typeof v === 'string' && /^[\w-]*$/.test(v) }),
  trailingSlash: option(is.boolean, () => false),
  preset: option(is.string),
} satisfies Schema<RestProxyConfig>;
