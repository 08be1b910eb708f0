import { ProxyError, type ProxyErrorDetails, type ProxyErrorKind } from '../errors/ProxyError.js';
import type { Operation } from '../operation/Operation.js';
import type { Request } from '../operation/Request.js';
import { ResultSet } from '../operation/ResultSet.js';
import type { Action, RecordLike } from '../operation/types.js';
import { ReadShapeError } from '../reader/JsonReader.js';
import { defineOptions, is, isPlainObject, option, type OptionSchema } from '../util/options.js';
import { appendQuery, encodeQuery, isAbsoluteUrl, removeQueryParam, splitUrl } from '../util/url.js';
import { isRetry, normalizeRetry, retryDelay, type NormalizedRetry, type RetryOptions } from './retry.js';
import { ServerProxy, serverSchema, type ServerProxyConfig } from './ServerProxy.js';

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** What the `onRequest` hook gets, before every try of a request. */
export interface RequestHookContext {
  request: Request;
  /** The final url (params included). */
  url: string;
  /** The fetch init; change `init.headers` (a Headers object) to add a token or a trace id. */
  init: RequestInit & { headers: Headers };
  /** The try about to be made (1 for the first). */
  attempt: number;
}

/** What the `onResponse` hook gets, after every answer. */
export interface ResponseHookContext {
  request: Request;
  response: Response;
  attempt: number;
}

export interface AjaxProxyConfig extends ServerProxyConfig {
  /**
   * The verb per action; a partial object keeps the defaults for the rest.
   * Default `{ create: 'POST', read: 'GET', update: 'POST', destroy: 'POST' }`.
   * @example { update: 'PATCH' }
   */
  actionMethods?: Partial<Record<Action, string>>;
  /** Headers of every request. Default `{}`. @example { Authorization: 'Bearer ...' } */
  headers?: Record<string, string>;
  /** Send cookies cross-origin (`credentials: 'include'`). Default false. */
  withCredentials?: boolean;
  /** The user name of HTTP Basic credentials (an `Authorization: Basic` header). Default none. */
  username?: string;
  /** The password of HTTP Basic credentials (with `username`). Default none. */
  password?: string;
  /** For non-GET requests, put the params in the JSON body instead of the query string. Default false. */
  paramsAsJson?: boolean;
  /** The fetch to use (tests, SSR, instrumentation). Default the global `fetch`. */
  fetch?: FetchFunction;
  /**
   * Retries with exponential backoff and jitter on network errors, timeouts and the listed
   * statuses, honouring `Retry-After`. A number sets `limit`; `0` turns retries off.
   * Default `{ limit: 2, methods: ['GET','PUT','DELETE'], statusCodes: [408,429,500,502,503,504], backoffLimit: 10000, delay: 300 }`.
   */
  retry?: number | RetryOptions;
  /**
   * Send an `Idempotency-Key` header with every create, the same for every try and every later
   * sync of one record until it succeeds, and allow POST to be retried. Default false.
   */
  idempotencyKey?: boolean;
  /** Keep each record's last `ETag` and send it as `If-Match` with its PUT, PATCH and DELETE. Default false. */
  etag?: boolean;
  /** Called before every try: add headers, log, trace. Default none. */
  onRequest?: (context: RequestHookContext) => void | Promise<void>;
  /**
   * Called after every answer. Return `'retry'` to send the request once more (e.g. after
   * refreshing an expired token on a 401). Default none.
   */
  onResponse?: (context: ResponseHookContext) => void | 'retry' | Promise<void | 'retry'>;
}

/** A response with its body already read. */
interface Exchange {
  response: Response;
  text: string;
  /** An earlier try of this request failed after it may have reached the server. */
  ambiguous?: boolean;
}

/** One GET in flight, shared by every identical request. */
interface SharedExchange {
  promise: Promise<Exchange>;
  controller: AbortController;
  waiters: number;
}

const AJAX_METHODS: Record<Action, string> = { create: 'POST', read: 'GET', update: 'POST', destroy: 'POST' };

const isActionMethods = {
  expect: 'an object mapping create, read, update and destroy to HTTP verbs',
  test: (v: unknown) =>
    isPlainObject(v) &&
    Object.entries(v).every(([key, verb]) => key in AJAX_METHODS && (verb === undefined || (typeof verb === 'string' && /^[A-Za-z]+$/.test(verb)))),
};
const isHeaders = {
  expect: 'an object of header names to string values',
  test: (v: unknown) => isPlainObject(v) && Object.values(v).every((value) => typeof value === 'string'),
};

export const ajaxSchema: OptionSchema = {
  ...serverSchema,
  actionMethods: option(isActionMethods, () => ({}), (value, owner) => {
    const defaults = owner instanceof AjaxProxy ? owner.getDefaultActionMethods() : AJAX_METHODS;
    const result = { ...defaults };
    if (isPlainObject(value)) {
      for (const [action, verb] of Object.entries(value)) {
        if (typeof verb === 'string' && (action === 'create' || action === 'read' || action === 'update' || action === 'destroy')) {
          result[action] = verb.toUpperCase();
        }
      }
    }
    return result;
  }),
  headers: option(isHeaders, () => ({})),
  withCredentials: option(is.boolean, () => false),
  username: option(is.string),
  password: option(is.string),
  paramsAsJson: option(is.boolean, () => false),
  fetch: option(is.function),
  retry: option(isRetry, () => ({}), normalizeRetry),
  idempotencyKey: option(is.boolean, () => false),
  etag: option(is.boolean, () => false),
  onRequest: option(is.function),
  onResponse: option(is.function),
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 408: 'Request Timeout', 409: 'Conflict', 410: 'Gone', 412: 'Precondition Failed',
  413: 'Payload Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 429: 'Too Many Requests',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

function hasWriteBody(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}

function isRecordLike(value: unknown): value is RecordLike {
  return typeof value === 'object' && value !== null && 'beginWrite' in value && 'getModelClass' in value;
}

/** The fetch init of a request, before any hook: its headers by lower-case name. */
type SendInit = RequestInit & { headers: Record<string, string> };

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_HEADER_VALUE = /[\0\r\n]|[^\0-\xff]/;

/** Add headers by lower-case name, refusing what fetch would (as a Headers would, with a clearer message). */
function addHeaders(into: Record<string, string>, headers: Record<string, string>): void {
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (!HEADER_NAME.test(name)) throw new TypeError(`the header name ${JSON.stringify(name)} is not valid (letters, digits and !#$%&'*+-.^_\`|~ only)`);
    if (BAD_HEADER_VALUE.test(value)) throw new TypeError(`the value of the header "${name}" is not valid (no line breaks, NUL or characters beyond \\xFF): ${JSON.stringify(value)}`);
    into[name.toLowerCase()] = value.replace(/^[\t ]+|[\t ]+$/g, '');
  }
}

/** Base64 of UTF-8 text (btoa alone fails on non-Latin-1 characters). */
function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The key of a batched create: the one its records were first sent under (Proxy.batch groups
 * them by it, so a batch is re-sent exactly as it was), else a new one for all of them.
 */
function batchKey(records: readonly RecordLike[]): string {
  const first = records[0]?.batchKey;
  if (first !== undefined && records.every((record) => record.batchKey === first)) return first;
  const key = `batch-${records[0]?.idempotencyKey ?? ''}`;
  for (const record of records) record.batchKey = key;
  return key;
}

function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = isPlainObject(cause) || cause instanceof Error ? Reflect.get(cause, 'code') : undefined;
  const detail = cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${detail}` : detail;
}

function htmlTitle(text: string): string | undefined {
  const match = /<title[^>]*>([^<]*)<\/title>/i.exec(text);
  return match?.[1]?.trim() || undefined;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Whether the server's current version holds every value that was sent. */
function echoes(sent: unknown, current: unknown): boolean {
  return isPlainObject(sent) && isPlainObject(current) && Object.entries(sent).every(([key, value]) => JSON.stringify(current[key]) === JSON.stringify(value));
}

/** Thrown inside a try to stop the retry loop at once. */
class Aborted extends Error {}

/**
 * A ServerProxy that sends its requests with WHATWG fetch: verbs per action, headers,
 * credentials, timeouts, cancellation, retries, ETags and idempotency keys.
 */
export class AjaxProxy extends ServerProxy {
  static override className = 'AjaxProxy';
  static override optionSchema: OptionSchema = ajaxSchema;

  /** {@inheritDoc AjaxProxyConfig.actionMethods} */
  declare actionMethods: Record<Action, string>;
  /** {@inheritDoc AjaxProxyConfig.headers} */
  declare headers: Record<string, string>;
  /** {@inheritDoc AjaxProxyConfig.withCredentials} */
  declare withCredentials: boolean;
  /** {@inheritDoc AjaxProxyConfig.username} */
  declare username: string | undefined;
  /** {@inheritDoc AjaxProxyConfig.password} */
  declare password: string | undefined;
  /** {@inheritDoc AjaxProxyConfig.paramsAsJson} */
  declare paramsAsJson: boolean;
  /** {@inheritDoc AjaxProxyConfig.fetch} */
  declare fetch: FetchFunction | undefined;
  /** {@inheritDoc AjaxProxyConfig.retry} */
  declare retry: NormalizedRetry;
  /** {@inheritDoc AjaxProxyConfig.idempotencyKey} */
  declare idempotencyKey: boolean;
  /** {@inheritDoc AjaxProxyConfig.etag} */
  declare etag: boolean;
  /** {@inheritDoc AjaxProxyConfig.onRequest} */
  declare onRequest: AjaxProxyConfig['onRequest'];
  /** {@inheritDoc AjaxProxyConfig.onResponse} */
  declare onResponse: AjaxProxyConfig['onResponse'];

  /** GETs in flight, by url and headers, so that identical ones share one request. */
  #inflight = new Map<string, SharedExchange>();

  constructor(config: AjaxProxyConfig = {}) {
    super(config);
  }

  /** The verbs used when `actionMethods` leaves an action out. */
  getDefaultActionMethods(): Record<Action, string> {
    return { ...AJAX_METHODS };
  }

  /** The verb for `request.action`. */
  getMethod(request: Request): string {
    return this.actionMethods[request.action] ?? this.getDefaultActionMethods()[request.action];
  }

  protected override async doRequest(operation: Operation): Promise<void> {
    for (let round = 1; ; round++) {
      const request = this.buildRequest(operation);
      request.method = this.getMethod(request);
      if (operation.action !== 'read') this.writer.write(request);
      const exchange = await this.send(request);
      try {
        this.processResponse(request, exchange);
        return;
      } catch (error) {
        // Our own earlier, unanswered write was applied: send this one again with its ETag.
        if (round === 1 && this.answersOwnEarlierWrite(request, exchange, error)) continue;
        throw error;
      }
    }
  }

  /**
   * Whether a 412 says only that this record's earlier write, whose answer was lost, was applied
   * (its current version is that write), while this request carries newer edits or removes the
   * record. The record then takes the ETag of the 412, so the request can be sent again instead
   * of failing as a conflict.
   */
  private answersOwnEarlierWrite(request: Request, exchange: Exchange, error: unknown): boolean {
    const records = request.operation.records;
    const record = records.length === 1 ? records[0] : undefined;
    if (!this.etag || !(error instanceof ProxyError) || error.status !== 412 || request.action === 'create' || request.action === 'read' || !record?.outcomeUnknown) return false;
    const etag = exchange.response.headers.get('etag');
    if (etag === null || !echoes(record.unconfirmedWrite, error.body)) return false;
    record.etag = etag;
    return true;
  }

  /** `PUT /users/2`: the verb and the url (without the cache buster), for messages. */
  describe(request: Request): string {
    return `${request.method} ${removeQueryParam(request.url ?? '', this.cacheString)}`;
  }

  private fail(kind: ProxyErrorKind, request: Request, message: string, extra: ProxyErrorDetails = {}): ProxyError {
    return new ProxyError(kind, message, { ...extra, request, operation: request.operation });
  }

  /** The url to fetch: the built url plus the params, resolved against the page's location. */
  private finalUrl(request: Request, params: Record<string, unknown>): string {
    const url = appendQuery(request.url ?? '', encodeQuery(params));
    if (isAbsoluteUrl(url)) return url;
    const location: unknown = Reflect.get(globalThis, 'location');
    const base = isPlainObject(location) || (typeof location === 'object' && location !== null) ? Reflect.get(location, 'href') : undefined;
    if (typeof base === 'string') return new URL(url, base).href;
    throw this.fail(
      'config',
      request,
      `${this.describe(request)} failed: the url is relative and there is no page location to resolve it against (this is not a browser page); use an absolute url such as 'http://localhost:3000${splitUrl(url).path}'`,
    );
  }

  /**
   * The headers of a request, by lower-case name (as fetch sends them): a plain object rather
   * than a Headers, which fetch would copy into its own anyway.
   */
  private buildHeaders(request: Request, hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (hasBody) headers['content-type'] = this.writer.contentType;
    addHeaders(headers, this.headers);
    addHeaders(headers, request.headers);
    if (this.username !== undefined) {
      headers['authorization'] = `Basic ${base64(`${this.username}:${this.password ?? ''}`)}`;
    }
    const records = request.operation.records;
    const method = request.method;
    if (this.etag && records.length === 1 && (method === 'PUT' || method === 'PATCH' || method === 'DELETE')) {
      const etag = records[0]?.etag;
      if (etag !== undefined) headers['if-match'] ??= etag;
    }
    if (this.idempotencyKey && request.action === 'create' && records.length > 0) {
      headers['idempotency-key'] ??= records.length === 1 ? (records[0]?.idempotencyKey ?? '') : batchKey(records);
    }
    return headers;
  }

  /**
   * Send the request (with its retries) and read the body. Identical GETs in flight at the same
   * time share one request; each caller can still abort its own wait.
   */
  /** @internal */
  protected send(request: Request): Promise<Exchange> {
    // Not async, so that a plain write's promise is its one try's (no frame kept per layer); a
    // throw while preparing the request is still a rejection.
    try {
      return this.startSend(request);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private startSend(request: Request): Promise<Exchange> {
    const method = request.method.toUpperCase();
    request.method = method;
    let params = request.params;
    let body = request.jsonData;
    if (this.paramsAsJson && hasWriteBody(method) && (body === undefined || isPlainObject(body))) {
      body = { ...(isPlainObject(body) ? body : {}), ...params };
      params = {};
    }
    const url = this.finalUrl(request, params);
    const headers = this.buildHeaders(request, body !== undefined);
    request.headers = headers;
    const init = {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(this.withCredentials ? { credentials: 'include' as const } : {}),
    };
    if (method !== 'GET') {
      // Without a caller's signal nothing can cancel a write: no controller to wire up.
      if (request.operation.signal === undefined) return this.sendWithRetries(request, url, init, undefined);
      const controller = new AbortController();
      return this.whileNotAborted(request, controller, this.sendWithRetries(request, url, init, controller.signal));
    }
    const key = `${removeQueryParam(url, this.cacheString)}\n${JSON.stringify(headers)}`;
    let shared = this.#inflight.get(key);
    if (shared === undefined) {
      const controller = new AbortController();
      const promise = this.sendWithRetries(request, url, init, controller.signal);
      const entry: SharedExchange = { promise, controller, waiters: 0 };
      shared = entry;
      this.#inflight.set(key, entry);
      const forget = (): void => {
        if (this.#inflight.get(key) === entry) this.#inflight.delete(key);
      };
      promise.then(forget, forget);
    }
    shared.waiters++;
    const entry = shared;
    // A caller that aborts stops waiting; the request itself is cancelled when no one waits.
    return this.whileNotAborted(request, entry.controller, entry.promise, () => {
      if (--entry.waiters > 0) return;
      // Forget it before cancelling, so that an identical GET made now starts afresh.
      if (this.#inflight.get(key) === entry) this.#inflight.delete(key);
      entry.controller.abort(new Aborted('every caller aborted'));
    });
  }

  /** Wait for `promise`, but reject at once with kind 'abort' when the caller's signal aborts. */
  private whileNotAborted(
    request: Request,
    controller: AbortController,
    promise: Promise<Exchange>,
    onAbort: () => void = () => controller.abort(new Aborted('aborted')),
  ): Promise<Exchange> {
    const signal = request.operation.signal;
    if (signal === undefined) return promise;
    return new Promise<Exchange>((resolve, reject) => {
      const abort = (): void => {
        onAbort();
        reject(this.fail('abort', request, `${this.describe(request)} was aborted; nothing was changed`, { cause: signal.reason }));
      };
      if (signal.aborted) {
        abort();
        return;
      }
      signal.addEventListener('abort', abort, { once: true });
      promise.then(
        (exchange) => {
          signal.removeEventListener('abort', abort);
          resolve(exchange);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', abort);
          reject(error);
        },
      );
    });
  }

  private mayRetry(request: Request): boolean {
    const method = request.method;
    if (this.retry.limit === 0) return false;
    if (this.retry.methods.includes(method)) return method !== 'POST' || this.idempotencyKey || request.action !== 'create';
    return method === 'POST' && request.action === 'create' && this.idempotencyKey;
  }

  private sendWithRetries(
    request: Request,
    url: string,
    init: SendInit,
    signal: AbortSignal | undefined,
  ): Promise<Exchange> {
    // Tried once and without hooks (a POST without an idempotency key): the request is its one try.
    if (this.onRequest === undefined && this.onResponse === undefined && !this.mayRetry(request)) return this.fetchOnce(request, url, init, signal);
    return this.tryUntilDone(request, url, init, signal);
  }

  private async tryUntilDone(
    request: Request,
    url: string,
    init: SendInit,
    signal: AbortSignal | undefined,
  ): Promise<Exchange> {
    const retry = this.retry;
    const retryable = this.mayRetry(request);
    let hookRetried = false;
    let ambiguous = false;
    for (let attempt = 1; ; attempt++) {
      // A copy per try only when a hook may change it.
      let tryInit: RequestInit = init;
      if (this.onRequest) {
        const copy = { ...init, headers: new Headers(init.headers) };
        await this.onRequest({ request, url, init: copy, attempt });
        tryInit = copy;
      }
      let exchange: Exchange | undefined;
      let failure: ProxyError | undefined;
      try {
        exchange = await this.fetchOnce(request, url, tryInit, signal);
      } catch (error) {
        if (!(error instanceof ProxyError)) throw error;
        failure = error;
      }
      if (exchange && this.onResponse) {
        // Called after every answer; a 'retry' verdict is honoured once per request.
        const verdict = await this.onResponse({ request, response: exchange.response, attempt });
        if (verdict === 'retry' && !hookRetried) {
          hookRetried = true;
          continue;
        }
      }
      if (failure?.kind === 'abort') throw failure;
      const status = exchange?.response.status;
      const shouldRetry =
        retryable &&
        attempt <= retry.limit &&
        (failure !== undefined ? failure.kind === 'network' || failure.kind === 'timeout' : status !== undefined && retry.statusCodes.includes(status));
      if (!shouldRetry) {
        if (failure) {
          if (attempt > 1) throw this.fail(failure.kind, request, `${failure.message} (after ${attempt} tries)`, { cause: failure.cause });
          throw failure;
        }
        if (exchange) return { ...exchange, ambiguous };
      }
      // A try that got no answer, or a server error, may still have been applied.
      ambiguous ||= failure !== undefined || (status !== undefined && status >= 500);
      const delay = retryDelay(retry, attempt, exchange?.response.headers.get('retry-after') ?? null);
      const reason = failure?.kind === 'timeout' ? 'timeout' : failure ? 'network' : (status ?? 0);
      this.fire('retry', { proxy: this, operation: request.operation, attempt, delay, reason });
      try {
        await abortableSleep(delay, signal ?? new AbortController().signal);
      } catch (error) {
        throw this.fail('abort', request, `${this.describe(request)} was aborted while waiting to retry`, { cause: error });
      }
    }
  }

  /** One try: fetch with the timeout, and read the body. */
  private async fetchOnce(request: Request, url: string, init: RequestInit, signal: AbortSignal | undefined): Promise<Exchange> {
    const fetchImpl: FetchFunction | undefined = this.fetch ?? (typeof fetch === 'function' ? fetch : undefined);
    if (fetchImpl === undefined) {
      throw this.fail('config', request, `${this.describe(request)} failed: there is no fetch here; pass one as the proxy's fetch option`);
    }
    const controller = new AbortController();
    const timeout = this.timeout;
    let timedOut = false;
    const timer = timeout > 0 ? setTimeout(() => { timedOut = true; controller.abort(); }, timeout) : undefined;
    // The caller's signal, when there is one, aborts this try too.
    const onAbort = signal === undefined ? undefined : (): void => controller.abort(signal.reason);
    if (signal !== undefined && onAbort !== undefined) {
      if (signal.aborted) controller.abort(signal.reason);
      else signal.addEventListener('abort', onAbort, { once: true });
    }
    try {
      const response = await fetchImpl(url, { ...init, signal: controller.signal });
      return { response, text: await response.text() };
    } catch (error) {
      throw this.fetchFailure(request, error, timedOut, signal);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Why a try got no answer (kept out of fetchOnce, whose frame is kept while it waits). */
  private fetchFailure(request: Request, error: unknown, timedOut: boolean, signal: AbortSignal | undefined): ProxyError {
    const label = this.describe(request);
    if (timedOut) {
      const write = request.action !== 'read' ? '; the server may still have applied it, but nothing was changed here: the records are as they were' : '';
      return this.fail('timeout', request, `${label} failed: no answer within ${this.timeout} ms (timeout)${write}`, { cause: error });
    }
    if (signal?.aborted) return this.fail('abort', request, `${label} was aborted`, { cause: error });
    const kept = request.action !== 'read' ? '. Nothing was changed here: the records are as they were' : '';
    return this.fail('network', request, `${label} failed: network error (${networkReason(error)}); the server is down or unreachable${kept}`, { cause: error });
  }

  /** Turn an answer into the operation's outcome, or throw the ProxyError that says why not. */
  protected processResponse(request: Request, exchange: Exchange): void {
    const operation = request.operation;
    const { response, text } = exchange;
    operation.response = response;
    // For messages only: built when one is needed.
    const label = (): string => this.describe(request);
    const method = request.method;

    if (response.redirected && hasWriteBody(method)) {
      // fetch follows a 301/302 of a POST as a GET (nothing created), and re-sends a PUT, PATCH
      // or DELETE to the new url (where it may have been applied). Either way the proxy's url
      // is wrong, so the write fails, and says which happened.
      const to = response.url;
      const slash = to !== '' && splitUrl(to).path.endsWith('/') && !splitUrl(request.url ?? '').path.endsWith('/');
      const what =
        method === 'POST'
          ? `fetch turns a redirected POST into a GET, so the ${request.action} was not applied`
          : `fetch sent the ${method} again to the new url, where it may have been applied (the record is kept unsaved)`;
      throw this.fail(
        'http',
        request,
        `${label()} was redirected to ${to || 'another url'}; ${what}. Point the proxy at the final url${slash ? ' (the server wants a trailing slash: set trailingSlash: true)' : ''}`,
        { status: response.status, statusText: response.statusText, response, mayHaveBeenApplied: method !== 'POST' },
      );
    }
    if (!response.ok) {
      const error = this.httpError(request, response, text);
      if (!this.isOwnEcho(request, exchange, error)) throw error;
      // The earlier try was applied after all: the record is already gone, or already saved.
      const records = operation.records;
      if (request.action === 'destroy') for (const record of records) record.completeDestroy();
      else this.commitWrite(operation, isPlainObject(error.body) ? [error.body] : [], undefined, (message) => this.fail('server', request, message));
      const etag = response.headers.get('etag');
      if (etag !== null && records.length === 1 && request.action !== 'destroy' && records[0]) records[0].etag = etag;
      operation.setSuccessful(new ResultSet({ records: [...records] }));
      return;
    }

    let body: unknown;
    if (text.trim() !== '' && response.status !== 204 && response.status !== 205) body = this.parseBody(request, response, text);

    const model = this.model ?? operation.records[0]?.getModelClass();
    let resultSet;
    try {
      resultSet = this.reader.read(body, { action: operation.action, model, response, collection: operation.action === 'read' && operation.id === undefined });
    } catch (error) {
      if (!(error instanceof ReadShapeError)) throw error;
      throw this.fail('parse', request, `${label()} answered ${response.status} but ${error.message}`, { status: response.status, statusText: response.statusText, response, body, cause: error });
    }
    if (!resultSet.success) {
      throw this.fail('server', request, `${label()} failed: the server answered success: false${resultSet.message ? `: ${resultSet.message}` : ''}`, {
        status: response.status, statusText: response.statusText, response, body,
      });
    }
    const etag = response.headers.get('etag') ?? undefined;
    if (operation.action === 'read') {
      const first = resultSet.records[0];
      if (etag !== undefined && operation.id !== undefined && resultSet.records.length === 1 && isRecordLike(first)) first.etag = etag;
      operation.setSuccessful(resultSet);
      return;
    }
    const items = resultSet.records.filter(isPlainObject);
    // A Location header gives the id of one created record whose answer has none.
    const assignedId = operation.action === 'create' && operation.records.length === 1 ? this.locationId(response) : undefined;
    this.commitWrite(operation, items, assignedId, (message) =>
      this.fail('server', request, `${label()} failed: ${message}`, { status: response.status, statusText: response.statusText, response, body }),
    );
    const single = operation.records.length === 1 ? operation.records[0] : undefined;
    if (single && etag !== undefined && operation.action !== 'destroy') single.etag = etag;
    resultSet.records = [...operation.records];
    operation.setSuccessful(resultSet);
  }

  /**
   * Whether an error answer only says that an earlier try of this write was applied: a 404 or
   * 410 to a DELETE, or a 412 whose current version is what was sent, after a try (of this
   * request, or of an earlier sync) that may have reached the server without an answer.
   */
  private isOwnEcho(request: Request, exchange: Exchange, error: ProxyError): boolean {
    const records = request.operation.records;
    const uncertain = exchange.ambiguous === true || (records.length > 0 && records.every((record) => record.outcomeUnknown));
    if (!uncertain) return false;
    if (request.action === 'destroy') return error.status === 404 || error.status === 410;
    if (request.action !== 'update' || error.status !== 412 || records.length !== 1) return false;
    return echoes(request.jsonData, error.body);
  }

  /** The id at the end of a `Location` header (a 201 that gives no body). */
  private locationId(response: Response): unknown {
    const location = response.headers.get('location');
    if (location === null || location === '') return undefined;
    let path: string;
    try {
      path = new URL(location, response.url || 'http://localhost/').pathname;
    } catch {
      return undefined;
    }
    const segment = path.replace(/\/+$/, '').split('/').pop();
    if (segment === undefined || segment === '') return undefined;
    const id = decodeURIComponent(segment.replace(/\.[A-Za-z]+$/, ''));
    return /^(0|[1-9]\d{0,14})$/.test(id) ? Number(id) : id;
  }

  private parseBody(request: Request, response: Response, text: string): unknown {
    // Made for an error only.
    const details = (): ProxyErrorDetails => ({ status: response.status, statusText: response.statusText, response, body: text });
    let failure: unknown;
    // What does not start as markup is parsed first: the content type is read only when that fails.
    if (!/^\s*</.test(text)) {
      try {
        return JSON.parse(text);
      } catch (error) {
        failure = error;
      }
    }
    if (failure === undefined || (response.headers.get('content-type') ?? '').includes('html')) {
      const title = htmlTitle(text);
      throw this.fail('parse', request, `${this.describe(request)} answered ${response.status} with an HTML page${title ? ` ("${title}")` : ''} instead of JSON; check that the url points at the API and not at a web page or a login screen`, details());
    }
    const reason = failure instanceof Error ? failure.message : String(failure);
    const cut = /end of (JSON )?input|Unterminated/i.test(reason) ? ' (the body looks cut short)' : '';
    throw this.fail('parse', request, `${this.describe(request)} answered ${response.status} but the body is not valid JSON${cut}: ${reason}; it starts with ${JSON.stringify(text.slice(0, 60))}`, { ...details(), cause: failure });
  }

  private httpError(request: Request, response: Response, text: string): ProxyError {
    const operation = request.operation;
    let body: unknown = text === '' ? undefined : text;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON: keep the text.
      }
    }
    const { message, fieldErrors } = this.reader.readError(body);
    const status = response.status;
    const statusText = response.statusText || STATUS_TEXT[status] || '';
    let kind: ProxyErrorKind = 'http';
    if (status === 409 || status === 412) kind = 'conflict';
    else if (status === 422 || (status === 400 && fieldErrors !== undefined)) kind = 'validation';

    let summary = `${this.describe(request)} failed: ${status}${statusText ? ` ${statusText}` : ''}`;
    const title = typeof body === 'string' ? htmlTitle(body) : undefined;
    if (message !== undefined) summary += `: ${message}`;
    else if (title !== undefined && title !== `${status} ${statusText}`) summary += `: ${title}`;
    if (fieldErrors !== undefined) {
      summary += ` (${Object.entries(fieldErrors).map(([field, messages]) => `${field}: ${messages.join(', ')}`).join('; ')})`;
    }
    summary += this.hint(request, status, kind);
    if (kind === 'validation' && fieldErrors !== undefined && operation.records.length === 1) {
      operation.records[0]?.setServerErrors(fieldErrors);
    }
    return this.fail(kind, request, summary, {
      status, statusText, response, body, fieldErrors: kind === 'validation' ? (fieldErrors ?? {}) : fieldErrors,
      current: kind === 'conflict' && isPlainObject(body) ? body : undefined,
    });
  }

  private hint(request: Request, status: number, kind: ProxyErrorKind): string {
    if (kind === 'conflict') return '; the record changed on the server meanwhile: error.current holds the server\'s version when it sent one, and the local edits are kept';
    if (kind === 'validation') return '; the record keeps its edits and the messages are on record.errors';
    switch (status) {
      case 401: return '; the server wants credentials: set the headers option (Authorization) or username and password';
      case 403: return '; the credentials are not allowed to do this';
      case 404: return request.action === 'read' ? '; check the url and the id' : '; the record may have been deleted on the server, or the url is wrong';
      case 405: return `; the server does not allow ${request.method} here: check actionMethods and the url`;
      case 415: return '; the server does not accept this Content-Type';
      default: return status >= 500 && this.mayRetry(request) && this.retry.statusCodes.includes(status) ? ` (after ${this.retry.limit + 1} tries)` : '';
    }
  }
}

defineOptions(AjaxProxy.prototype, 'AjaxProxy', ajaxSchema);
