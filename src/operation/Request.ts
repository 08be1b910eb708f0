import type { Operation } from './Operation.js';
import type { Action } from './types.js';

/** The config of a Request. @example new Request({ operation, url: '/users/2', method: 'PUT' }) */
export interface RequestConfig {
  /** The operation the request carries out. Required. */
  operation: Operation;
  /** The action. Default: the operation's. */
  action?: Action;
  /** The url to start from; `buildUrl` fills in the rest. Default: the proxy's (`getUrl`). */
  url?: string;
  /** The HTTP verb. Default `'GET'`; the proxy sets the verb of the action before sending. */
  method?: string;
  /** Params sent in the query string (or in the body with `paramsAsJson`). Default `{}`. */
  params?: Record<string, unknown>;
  /** Headers of this request only. Default `{}`. */
  headers?: Record<string, string>;
  /** The body, as the writer produced it. Default none. */
  jsonData?: unknown;
}

/**
 * One HTTP request as the proxy builds it: url, verb, params (sent in the query string, or in
 * the body with `paramsAsJson`), headers and the writer's body.
 */
export class Request {
  // Declared: the constructor sets them (no field definitions for the minifier to keep).
  declare operation: Operation;
  declare action: Action;
  #url: string | undefined;
  #built = false;
  declare method: string;
  declare params: Record<string, unknown>;
  /** The headers: the operation's until the request is sent, then every header that was sent (by lower-case name). */
  declare headers: Record<string, string>;
  /** The body the writer produced (undefined: no body). */
  declare jsonData: unknown;
  /** The cache buster's value, chosen once so that buildUrl gives the same url every time. */
  cacheBuster: number | undefined;
  /** The url `getUrl` chose, so that building again starts from it and not from its own result. */
  sourceUrl: string | undefined;

  /** The url: the one to start from until `buildUrl` sets the built one. */
  get url(): string | undefined {
    return this.#url;
  }

  set url(url: string | undefined) {
    this.#url = url;
    this.#built = false;
  }

  /** True while `url` is the one `buildUrl` produced (setting `url` clears it). */
  get isBuilt(): boolean {
    return this.#built;
  }

  /** Set the final url (ServerProxy.buildUrl calls this). */
  setBuiltUrl(url: string): void {
    this.#url = url;
    this.#built = true;
  }

  constructor(config: RequestConfig) {
    if (typeof config !== 'object' || config === null || !config.operation) {
      throw new TypeError('Request: the config must be an object with an operation');
    }
    this.operation = config.operation;
    this.action = config.action ?? config.operation.action;
    this.#url = config.url;
    this.method = config.method ?? 'GET';
    this.params = config.params ?? {};
    this.headers = config.headers ?? {};
    this.jsonData = config.jsonData;
  }
}
