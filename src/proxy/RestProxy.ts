import { ProxyError } from '../errors/ProxyError.js';
import { badSegment, missingTemplateValue, notUnicode } from '../errors/messages.js';
import type { Request } from '../operation/Request.js';
import { isValidId, type Action } from '../operation/types.js';
import { defineOptions, is, option, type OptionSchema, type Schema, type Stored } from '../util/options.js';
import { appendFormat, appendSegment, appendSlash, fillTemplate, joinUrl, pathSegment, splitUrl } from '../util/url.js';
import { AjaxProxy } from './AjaxProxy.js';
import { REST_METHODS, restOptions, type PresetName, type Presets, type RestProxyConfig } from './options/rest.js';
import { applyPresetOf, presetSupportsBatch } from './presets/support.js';
import { sent } from './ServerProxy.js';
import { dev } from '../util/dev.js';

export type { PresetName, Presets, RestProxyConfig };

export const restSchema = {
  ...restOptions,
  // Assigned after construction too, `batchActions: true` is refused while the preset forbids it.
  batchActions: option(is.boolean, () => false, (value, owner) => {
    if (value === true && owner instanceof RestProxy && owner.preset !== undefined && !presetSupportsBatch(owner.preset)) {
      throw new TypeError(`RestProxy: batchActions cannot be true with preset "${owner.preset}"${dev(': that server has no batch endpoint')}`);
    }
    return value;
  }),
} satisfies Schema<RestProxyConfig>;

// The option properties come from RestProxyConfig (declared once there, with their documentation).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the members come from the config
export interface RestProxy extends Omit<Stored<RestProxyConfig, 'appendId' | 'trailingSlash'>, keyof AjaxProxy> {}

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
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class RestProxy extends AjaxProxy {
  static override className = 'RestProxy';
  static override optionSchema: OptionSchema = restSchema;

  constructor(config: RestProxyConfig = {}) {
    // A preset's options go under the ones given (its name is checked against the registry).
    super(applyPresetOf(config));
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
   * `super.buildUrl(request)` last. An id or template value that cannot be one path segment (a
   * dot segment, not a string or finite number) fails with kind 'config': nothing is sent.
   */
  override buildUrl(request: Request): string {
    const source = this.getUrl(request);
    const operation = request.operation;
    const action = operation.action;
    const records = operation.records;
    const record = records.length === 1 ? records[0] : undefined;
    const segment = (value: unknown, what: string): string => {
      let encoded: string | undefined;
      try {
        encoded = pathSegment(value);
      } catch (error) {
        throw new ProxyError('config', notUnicode(action, value), { operation, request, cause: error });
      }
      if (encoded === undefined) throw new ProxyError('config', badSegment(action, what, value), { operation, request });
      return encoded;
    };
    // A value of a {name} template comes from the params (which then leave the query), else the record.
    const names: string[] = [];
    const url = fillTemplate(source, (name) => {
      names.push(name);
      const value = request.params[name] !== undefined ? request.params[name] : record?.get(name);
      if (value === undefined || value === null || value === '') {
        throw new ProxyError('config', missingTemplateValue(action, source, name, record !== undefined), { operation, request });
      }
      return segment(value, `value of {${name}}`);
    });
    for (const name of names) delete request.params[name];

    const { path, query, hash } = splitUrl(url);
    let result = path;
    let withId = false;
    // A read by id names its id even when it is not a valid one (it must fail, not read the collection).
    const id = records.length > 1 ? undefined : record && !record.phantom ? record.getId() : operation.id;
    const byId = this.isValidId(id) || (action === 'read' && records.length === 0 && id !== undefined && id !== null && id !== '');
    if (byId && this.appendId) {
      withId = true;
      result = appendSegment(result, segment(id, 'id'));
      if (sent(this.idParam)) delete request.params[this.idParam];
    } else if (byId && typeof id !== 'string' && (typeof id !== 'number' || !Number.isFinite(id))) {
      throw new ProxyError('config', badSegment(action, 'id', id), { operation, request });
    }
    // After an id the dot is always added: an id ending in '.' must not lose it ('a.' + json is 'a..json').
    if (this.format) result = withId ? `${result}.${this.format}` : appendFormat(result, this.format);
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
      // Checked against the registry first: an unknown name changes nothing.
      const { preset: _name, ...conventions } = typeof name === 'string' ? applyPresetOf({ preset: name }) : {};
      setPreset.call(this, name);
      for (const [key, value] of Object.entries(conventions)) Reflect.set(this, key, value);
    },
  });
}

