import { ProxyError } from '../errors/ProxyError.js';
import { CANNOT_SEND, cannotSend, failedWith, notJson, relativeUrl } from '../errors/messages.js';
import { ifNoneMatch, validatorOf } from '../http/conditional.js';
import { addHeaders, basicAuth } from '../http/headers.js';
import type { AfterHook, BeforeHook } from '../http/hooks.js';
import { retrying, type NormalizedRetry } from '../http/retry.js';
import { fetching, trying } from '../http/send.js';
import { sharingGets } from '../http/share.js';
import type { FetchFunction, HttpRequest, Send } from '../http/types.js';
import type { Operation } from '../operation/Operation.js';
import { Request } from '../operation/Request.js';
import type { Action, RecordLike } from '../operation/types.js';
import { defineOptions, isPlainObject, optionChanges, type OptionSchema, type Stored } from '../util/options.js';
import { appendQuery, encodeQuery, isAbsoluteUrl, removeQueryParam, splitUrl } from '../util/url.js';
import { unwritableField } from '../writer/JsonWriter.js';
import { readAnswer } from './answer.js';
import { etags } from './features/etag.js';
import type { Feature } from './features/feature.js';
import { idempotencyKeys } from './features/idempotency.js';
import { AJAX_METHODS, ajaxSchema, type AjaxProxyConfig, type RequestHookContext, type ResponseHookContext } from './options/ajax.js';
import { classNameOf } from './Proxy.js';
import { ServerProxy } from './ServerProxy.js';
import { dev } from '../util/dev.js';

export type { AjaxProxyConfig, FetchFunction, RequestHookContext, ResponseHookContext };

type AjaxDefaults = 'actionMethods' | 'headers' | 'withCredentials' | 'paramsAsJson' | 'idempotencyKey' | 'etag' | 'maxResponseBytes' | 'conditionalReads';

// The option properties come from AjaxProxyConfig (declared once there, with their documentation).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface AjaxProxy extends Omit<Stored<AjaxProxyConfig, AjaxDefaults>, keyof ServerProxy | 'actionMethods' | 'retry'> {
  /** The verb per action, every action listed (the defaults fill in what `actionMethods` left out). */
  actionMethods: Record<Action, string>;
  /** The retry policy, every setting filled in (`retry: 0` gives `limit: 0`). */
  retry: NormalizedRetry;
}

/** What is composed once from the options: the layers a request goes through, and the features around them. */
interface Transport {
  send: Send;
  features: readonly Feature[];
  /** The proxy's headers by lower-case name, checked once, with the Basic credentials. */
  headers: Readonly<Record<string, string>>;
  /** Whether identical GETs in flight may share one fetch (see shareReads). */
  sharing: boolean;
}


/** Why fetch could never send to this absolute url, or undefined. */
function unsendable(url: string): string | undefined {
  const scheme = /^[a-z][\w+.-]*:/i.exec(url)?.[0] ?? '';
  if (!/^https?:$/i.test(scheme)) return CANNOT_SEND.scheme(scheme);
  if (/^[a-z][\w+.-]*:\/\/[^/?#]*@/i.test(url)) return CANNOT_SEND.credentials;
  try {
    new URL(url);
  } catch {
    return CANNOT_SEND.url(url);
  }
  return undefined;
}

/**
 * A ServerProxy that sends its requests with WHATWG fetch: verbs per action, headers,
 * credentials, timeouts, cancellation, retries, ETags and idempotency keys. Each of these is a
 * layer or a feature (src/http/, ./features/), composed when the options are set.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class AjaxProxy extends ServerProxy {
  static override className = 'AjaxProxy';
  static override optionSchema: OptionSchema = ajaxSchema;

  #transport: Transport;
  #composedAt: number;
  /** The last absolute url checked as sendable (a proxy sends to few urls). */
  #checked: string | undefined = undefined;

  constructor(config: AjaxProxyConfig = {}) {
    super(config);
    // Composed now, so that options that cannot go together fail at construction.
    this.#transport = this.#compose();
    this.#composedAt = optionChanges(this);
  }

  /** The default verbs, as the `actionMethods` option fills in the actions it leaves out. */
  getDefaultActionMethods(): Record<Action, string> {
    return { ...AJAX_METHODS };
  }

  /** The verb for `request.action`. */
  getMethod(request: Request): string {
    return this.actionMethods[request.action];
  }

  /** `PUT /users/2`: the verb and the url (without the cache buster, nor a password), for messages. */
  describe(request: Request): string {
    const url = (request.url ?? '').replace(/^([a-z][\w+.-]*:\/\/)[^/?#]*@/i, '$1');
    return `${request.method} ${request.action === 'read' ? removeQueryParam(url, this.cacheString) : url}`;
  }

  /** Whether a request may be sent again after a failure that may have reached the server. */
  #retryable(action: Action, method: string): boolean {
    const retry = this.retry;
    // A create's POST only with its idempotency key (then whatever retry.methods says), never without.
    return retry.limit > 0 && (method === 'POST' && action === 'create' ? this.idempotencyKey : retry.methods.includes(method));
  }

  #compose(): Transport {
    const features: Feature[] = [];
    if (this.idempotencyKey) features.push(idempotencyKeys);
    if (this.etag) features.push(etags);
    const headers: Record<string, string> = {};
    addHeaders(headers, this.headers);
    if (this.etag && headers['if-match'] !== undefined) {
      throw new TypeError(`${classNameOf(this)}: headers: If-Match ${JSON.stringify(headers['if-match'])}${dev(' would replace the ETag that etag: true sends with each record; remove If-Match from headers, or set etag: false', ' with etag: true')}`);
    }
    if (this.password !== undefined && this.username === undefined) throw new TypeError(`${classNameOf(this)}: password needs a username`);
    if (this.username !== undefined) headers['authorization'] = basicAuth(this.username, this.password ?? '');
    // Identical GETs in flight share one fetch (./http/share.ts), compared after onRequest ran;
    // never through a custom fetch (it may add the caller's cookie) unless shareReads says so.
    const sharing = this.shareReads ?? this.fetch === undefined;
    let send = fetching(() => this.fetch ?? (typeof fetch === 'function' ? fetch : undefined), this.maxResponseBytes);
    if (sharing) send = sharingGets()(send);
    send = trying(send, this.timeout, this.#beforeHook(), this.#afterHook());
    if (this.retry.limit > 0) send = retrying(this.retry)(send);
    return { send, features, headers, sharing };
  }

  #beforeHook(): BeforeHook | undefined {
    const onRequest = this.onRequest;
    if (onRequest === undefined) return undefined;
    return async (http, init, attempt) => {
      const request = http.context;
      if (!(request instanceof Request)) return;
      try {
        await onRequest({ request, url: http.url, init, attempt });
      } catch (error) {
        throw new ProxyError('config', failedWith(http.label, `the onRequest hook threw: ${error instanceof Error ? error.message : String(error)}`), { cause: error });
      }
    };
  }

  #afterHook(): AfterHook | undefined {
    const onResponse = this.onResponse;
    if (onResponse === undefined) return undefined;
    return async (http, response, attempt) => {
      const request = http.context;
      if (!(request instanceof Request)) return undefined;
      try {
        return await onResponse({ request, response, attempt });
      } catch (error) {
        // The answer came but cannot be taken (kind 'server'): a write answered 2xx (or 5xx) may
        // have been applied whatever the hook did.
        throw new ProxyError('server', failedWith(http.label, `the onResponse hook threw: ${error instanceof Error ? error.message : String(error)}`), {
          cause: error, response, status: response.status, statusText: response.statusText, mayHaveBeenApplied: http.write && (response.ok || response.status >= 500),
        });
      }
    };
  }

  /** The transport for the current options: composed again only after an option changed. */
  #current(): Transport {
    const changes = optionChanges(this);
    if (changes !== this.#composedAt) {
      this.#transport = this.#compose();
      this.#composedAt = changes;
    }
    return this.#transport;
  }

  protected override async doRequest(operation: Operation): Promise<void> {
    const transport = this.#current();
    for (let round = 1; ; round++) {
      const request = this.buildRequest(operation);
      request.method = this.getMethod(request).toUpperCase();
      if (operation.action !== 'read') this.#write(request);
      const sent = this.#prepare(request, transport);
      const exchange = await transport.send(sent, 1);
      try {
        // A 304 to a conditional read (sent with If-None-Match, so no-store): nothing changed (no
        // records, no events). A 304 to any other request is an error like any other.
        operation.notModified = sent.noStore === true && exchange.response.status === 304;
        if (operation.notModified) return operation.setSuccessful(undefined);
        readAnswer(this, request, exchange, sent.retryable);
        if (request.action === 'read') operation.validated = validatorOf(exchange.response, sent.shareKey ?? removeQueryParam(sent.url, this.cacheString));
        return;
      } catch (error) {
        // Our own earlier, unanswered write was applied: send this one again with what the answer said.
        if (round === 1 && error instanceof ProxyError && transport.features.some((feature) => feature.recover?.(request, exchange, error) === 'again')) continue;
        throw error;
      }
    }
  }

  protected override resendsCreates(): boolean {
    return this.idempotencyKey;
  }

  /** The body of a write: a create sent again sends the body it was first sent with (see model/writeState.ts). */
  #write(request: Request): void {
    const operation = request.operation;
    const sent = operation.sentAs;
    const body = sent?.body;
    if (body !== undefined) {
      request.jsonData = body.data;
      operation.written = body.written;
      return;
    }
    this.writer.write(request);
    if (sent !== undefined) sent.body = { data: request.jsonData, written: operation.written };
  }

  /** The request as fetch will send it: the final url, the headers, the body. Refuses what fetch never could send. */
  #prepare(request: Request, transport: Transport): HttpRequest {
    const method = request.method;
    let params = request.params;
    let body = request.jsonData;
    const hasBody = method !== 'GET' && method !== 'HEAD';
    if (this.paramsAsJson && hasBody && (body === undefined || isPlainObject(body))) {
      body = { ...body, ...params };
      params = {};
    }
    const label = this.describe(request);
    let json: string | undefined;
    try {
      json = body === undefined ? undefined : JSON.stringify(body);
    } catch (error) {
      throw new ProxyError('config', cannotSend(label, notJson(unwritableField(request.operation.written), error)), { cause: error });
    }
    // Verbs fetch refuses outright.
    if (/^(CONNECT|TRACE|TRACK)$/.test(method)) throw new ProxyError('config', cannotSend(label, CANNOT_SEND.verb(method)));
    if (body !== undefined && !hasBody) throw new ProxyError('config', cannotSend(label, CANNOT_SEND.body(method, request.action)));
    let url = this.#finalUrl(request, params, label);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = this.writer.contentType;
    Object.assign(headers, transport.headers);
    addHeaders(headers, request.headers);
    if (transport.headers['authorization'] !== undefined) headers['authorization'] = transport.headers['authorization'];
    for (const feature of transport.features) feature.beforeSend?.(request, headers);
    const operation = request.operation;
    // A read of the url its validator came from: If-None-Match, no cache buster, no HTTP cache.
    const bare = method === 'GET' ? removeQueryParam(url, this.cacheString) : url;
    const etag = request.action === 'read' && this.conditionalReads ? ifNoneMatch(operation.validator, bare) : undefined;
    if (etag !== undefined) {
      headers['if-none-match'] = etag;
      url = bare;
    }
    request.headers = headers;
    return {
      url,
      method,
      headers,
      body: json,
      credentials: this.withCredentials,
      label,
      write: method !== 'GET',
      signal: operation.link ?? operation.signal,
      retryable: !operation.once && this.#retryable(request.action, method),
      shareKey: method === 'GET' && transport.sharing ? bare : undefined,
      noStore: etag !== undefined,
      context: request,
      onRetry: (attempt, delay, reason) => this.fire('retry', { proxy: this, operation, attempt, delay, reason }),
    };
  }

  /** The url to fetch: the built url plus the params, resolved against the page's location. */
  #finalUrl(request: Request, params: Record<string, unknown>, label: string): string {
    const url = appendQuery(request.url ?? '', encodeQuery(params));
    let absolute = url;
    if (!isAbsoluteUrl(url)) {
      // The page's location, where there is one (not in Node).
      const base = typeof location === 'object' ? location.href : undefined;
      if (base === undefined) throw new ProxyError('config', relativeUrl(label, splitUrl(url).path), { mayHaveBeenApplied: false });
      absolute = new URL(url, base).href;
    }
    // The part before the path decides whether fetch can send it: checked once per collection url.
    const source = request.sourceUrl;
    const key = source !== undefined && isAbsoluteUrl(source) ? source : absolute;
    if (key !== this.#checked) {
      const problem = unsendable(absolute);
      if (problem !== undefined) throw new ProxyError('config', cannotSend(label, problem), { mayHaveBeenApplied: false });
      this.#checked = key;
    }
    return absolute;
  }

  /** With `etag`, a record that has an ETag goes alone, with its If-Match. */
  protected override goesAlone(action: Action, record: RecordLike): boolean {
    return super.goesAlone(action, record) || (action !== 'create' && this.etag && record.etag !== undefined);
  }
}

defineOptions(AjaxProxy.prototype, 'AjaxProxy', ajaxSchema);
