import { ProxyError } from '../errors/ProxyError.js';
import type { Request } from '../operation/Request.js';
import { isValidId, type Action } from '../operation/types.js';
import { defineOptions, is, option, type OptionSchema } from '../util/options.js';
import { appendFormat, appendSegment, appendSlash, encodeId, fillTemplate, joinUrl, splitUrl, templateNames } from '../util/url.js';
import { AjaxProxy, ajaxSchema, type AjaxProxyConfig } from './AjaxProxy.js';
import { applyPreset, getPreset, hasPreset } from './presets/registry.js';
import { sent } from './ServerProxy.js';

export interface RestProxyConfig extends AjaxProxyConfig {
  /** Append the record's id to the url of a request about one instance (`/users/2`). Default true. */
  appendId?: boolean;
  /** When set, `.<format>` ends the path of every url (`/users.json`, `/users/2.json`). Default none. */
  format?: string;
  /** End every path with `/` (`/users/`, `/users/2/`), as Django expects. Default false. */
  trailingSlash?: boolean;
  /**
   * A named set of server conventions: param names and encodings, reader and writer settings,
   * path style and error bodies. Options given beside it win. Built in: `'json-server'`,
   * `'django-rest'`, `'rails'`, `'laravel'`, `'spring-data-rest'`, `'json-api'`; add your own with
   * `registerPreset`. Default none. @example new RestProxy({ url: '/api/users', preset: 'django-rest' })
   */
  preset?: string;
}

const REST_METHODS: Record<Action, string> = { create: 'POST', read: 'GET', update: 'PUT', destroy: 'DELETE' };

export const restSchema: OptionSchema = {
  ...ajaxSchema,
  appendId: option(is.boolean, () => true),
  format: option({ expect: 'a string of letters and digits (e.g. "json")', test: (v) => typeof v === 'string' && /^[\w-]*$/.test(v) }),
  trailingSlash: option(is.boolean, () => false),
  preset: option({ expect: 'the name of a registered preset', test: (v) => typeof v === 'string' && hasPreset(v) }),
  // Assigned after construction too, `batchActions: true` is refused while the preset forbids it.
  batchActions: option(is.boolean, () => false, (value, owner) => {
    if (value === true && owner instanceof RestProxy && owner.preset !== undefined && getPreset(owner.preset)?.supportsBatch === false) {
      throw new TypeError(`RestProxy: batchActions cannot be true with preset "${owner.preset}": that server has no batch endpoint`);
    }
    return value;
  }),
};

/**
 * The Rest proxy: create, read, update and destroy go to POST, GET, PUT and DELETE, and every
 * url is built from the base url, the record's id and the format:
 *
 *     create   POST   /users
 *     read     GET    /users        (a collection: a store load)
 *     read     GET    /users/2      (one record: Model.load(2))
 *     update   PUT    /users/2
 *     destroy  DELETE /users/2
 */
export class RestProxy extends AjaxProxy {
  static override className = 'RestProxy';
  static override optionSchema: OptionSchema = restSchema;

  /** {@inheritDoc RestProxyConfig.appendId} */
  declare appendId: boolean;
  /** {@inheritDoc RestProxyConfig.format} */
  declare format: string | undefined;
  /** {@inheritDoc RestProxyConfig.trailingSlash} */
  declare trailingSlash: boolean;
  /** {@inheritDoc RestProxyConfig.preset} */
  declare preset: string | undefined;

  constructor(config: RestProxyConfig = {}) {
    super(applyPreset(config));
  }

  override getDefaultActionMethods(): Record<Action, string> {
    return { ...REST_METHODS };
  }

  /** Anything but undefined, null and '' (so `0` is a valid id). */
  isValidId(id: unknown): boolean {
    return isValidId(id);
  }

  /**
   * Build the url: fill `{name}` templates, append the id (encoded) and the format or trailing
   * slash to the path, keep the base url's query and fragment after it; then
   * `super.buildUrl(request)` adds the cache buster. Override it to customise, and call
   * `super.buildUrl(request)` last.
   */
  override buildUrl(request: Request): string {
    const source = this.getUrl(request);
    const operation = request.operation;
    const records = operation.records;
    const record = records.length === 1 ? records[0] : undefined;
    let url = source;
    const names = templateNames(source);
    if (names.length > 0) {
      url = fillTemplate(
        source,
        (name) => (request.params[name] !== undefined ? request.params[name] : record?.readField(name)),
        (name) => {
          throw new ProxyError(
            'config',
            `${operation.action} failed: the url ${source} needs a value for {${name}}; pass it in the params ({ params: { ${name}: ... } })${record ? ' or set it on the record' : ''}`,
            { operation, request },
          );
        },
      );
      for (const name of names) delete request.params[name];
    }

    const { path, query, hash } = splitUrl(url);
    let result = path;
    let withId = false;
    const id = records.length > 1 ? undefined : record && !record.phantom ? record.getId() : operation.id;
    if (this.appendId && this.isValidId(id)) {
      withId = true;
      let segment: string;
      try {
        segment = encodeId(id);
      } catch (error) {
        throw new ProxyError('config', `${operation.action} failed: the id ${JSON.stringify(String(id))} cannot be put in a url (it is not valid Unicode)`, { operation, request, cause: error });
      }
      result = appendSegment(result, segment);
      if (sent(this.idParam)) delete request.params[this.idParam];
    }
    // After an id the dot is always added: an id ending in '.' must not lose it ('a.' + json is 'a..json').
    if (this.format !== undefined && this.format !== '') result = withId ? `${result}.${this.format}` : appendFormat(result, this.format);
    else if (this.trailingSlash) result = appendSlash(result);
    request.url = joinUrl({ path: result, query, hash });
    return super.buildUrl(request);
  }
}

defineOptions(RestProxy.prototype, 'RestProxy', restSchema);

// Assigned after construction, `preset` applies its conventions over the current options.
const presetOption = Object.getOwnPropertyDescriptor(RestProxy.prototype, 'preset');
const setPreset = presetOption?.set;
if (setPreset) {
  Object.defineProperty(RestProxy.prototype, 'preset', {
    ...presetOption,
    set(this: RestProxy, name: unknown) {
      setPreset.call(this, name);
      if (typeof name !== 'string') return;
      const { preset: _name, ...conventions } = applyPreset({ preset: name });
      for (const [key, value] of Object.entries(conventions)) Reflect.set(this, key, value);
    },
  });
}
