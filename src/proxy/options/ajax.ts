/** The options of the fetch transport (AjaxProxy), declared once. */
import { headerProblem } from '../../http/headers.js';
import { isRetry, normalizeRetry, type NormalizedRetry, type RetryOptions } from '../../http/retry.js';
import type { FetchFunction } from '../../http/types.js';
import type { Request } from '../../operation/Request.js';
import type { Action } from '../../operation/types.js';
import { dev } from '../../util/dev.js';
import { is, isPlainObject, option, type OptionSpec, type Schema } from '../../util/options.js';
import { serverSchema, type ServerProxyConfig } from './server.js';

export type { FetchFunction };

/** What the `onRequest` hook gets, before every try of a request. */
export interface RequestHookContext {
  request: Request;
  /** The final url (params included). */
  url: string;
  /**
   * The fetch init; change `init.headers` (a Headers object) to add a token or a trace id. Only
   * the headers may change: a changed body, verb or other option fails with kind `'config'`.
   */
  init: RequestInit & { headers: Headers };
  /** The try about to be made (1 for the first). */
  attempt: number;
}

/** What the `onResponse` hook gets, after every answer. */
export interface ResponseHookContext {
  request: Request;
  /** The answer, its body readable (`await response.json()`): the proxy has read its own copy. */
  response: Response;
  attempt: number;
}

export interface AjaxProxyConfig extends ServerProxyConfig {
  /**
   * The verb per action; a partial object keeps the defaults for the rest.
   * Default `{ create: 'POST', read: 'GET', update: 'POST', destroy: 'POST' }` (RestProxy: PUT and DELETE).
   * @example { update: 'PATCH' }
   */
  actionMethods?: Partial<Record<Action, string>>;
  /** Headers of every request, checked when set. Default `{}`. @example { Authorization: 'Bearer ...' } */
  headers?: Record<string, string>;
  /** Send cookies cross-origin (`credentials: 'include'`). Default false. */
  withCredentials?: boolean;
  /** The user name of HTTP Basic credentials (an `Authorization: Basic` header). Default none. */
  username?: string | undefined;
  /** The password of HTTP Basic credentials (with `username`). Default none. */
  password?: string | undefined;
  /** For non-GET requests, put the params in the JSON body instead of the query string. Default false. */
  paramsAsJson?: boolean;
  /**
   * The fetch to use (tests, SSR, instrumentation). Default the global `fetch`. Identical GETs in
   * flight are never shared through a custom fetch unless `shareReads` is true.
   */
  fetch?: FetchFunction | undefined;
  /**
   * Whether identical GETs in flight at the same time share one request. They are compared after
   * the `onRequest` hook ran (the url and every header), so that a request that carries other
   * credentials is never shared. Default: shared with the global fetch, never with a custom
   * `fetch` (which may add the caller's credentials, such as the cookie of a server-rendered
   * visitor). `true` shares through a custom fetch too: say so only when it adds no per-call
   * credentials. `false` never shares. @example { fetch: instrumentedFetch, shareReads: true }
   */
  shareReads?: boolean | undefined;
  /**
   * A read of the url a page or record came from sends its ETag as `If-None-Match` (without the
   * cache buster), and a 304 changes nothing. `false` never sends If-None-Match. Default true.
   */
  conditionalReads?: boolean;
  /**
   * The largest answer read, in bytes. A larger one (by its `Content-Length`, or as it is read)
   * fails at once with kind `'parse'` naming the limit; its body is let go, and it is never
   * retried. Default 134217728 (128 MiB). @example { maxResponseBytes: 8 * 1024 * 1024 }
   */
  maxResponseBytes?: number;
  /**
   * Retries with exponential backoff and jitter on network errors, timeouts and the listed
   * statuses, honouring `Retry-After`. A number sets `limit`; `0` turns retries off.
   * Default `{ limit: 2, methods: ['GET','PUT','DELETE'], statusCodes: [408,429,500,502,503,504], backoffLimit: 10000, delay: 300 }`.
   */
  retry?: number | RetryOptions | NormalizedRetry;
  /**
   * Send an `Idempotency-Key` header with every create, the same for every try and every later
   * sync of one record until it succeeds, and allow POST to be retried. Default false.
   */
  idempotencyKey?: boolean;
  /**
   * Keep each record's last `ETag` and send it as `If-Match` with its PUT, PATCH and DELETE. With
   * `batchActions`, records that have an ETag are written one by one, each with its own If-Match.
   * Default false.
   */
  etag?: boolean;
  /**
   * Called before every try: add headers (a token), log, trace. It may change `init.headers`
   * only: a changed body or verb fails the operation with kind `'config'` (the records would
   * commit what the server never got). `timeout` and the operation's signal cover it. Default none.
   */
  onRequest?: ((context: RequestHookContext) => void | Promise<void>) | undefined;
  /**
   * Called after every answer, with a `response` whose body can be read (the proxy has read its
   * own copy). Return `'retry'` to send the request once more (e.g. after refreshing an expired
   * token on a 401), at most once per request; a POST without an idempotency key is not sent
   * again after an answer that may say it was applied (2xx, 5xx). `timeout` and the operation's
   * signal cover it. Default none.
   */
  onResponse?: ((context: ResponseHookContext) => void | 'retry' | Promise<void | 'retry'>) | undefined;
}

export const AJAX_METHODS: Readonly<Record<Action, string>> = Object.freeze({ create: 'POST', read: 'GET', update: 'POST', destroy: 'POST' });

/** The actionMethods option over these defaults: a partial object keeps the default verb of the others. */
export function actionMethodsOption(defaults: Readonly<Record<Action, string>>): OptionSpec {
  return option(
    {
      expect: `an object mapping ${dev('create, read, update and destroy', 'actions')} to HTTP verbs`,
      test: (v) => isPlainObject(v) && Object.entries(v).every(([key, verb]) => Object.hasOwn(defaults, key) && (verb === undefined || (typeof verb === 'string' && /^[A-Za-z]+$/.test(verb)))),
    },
    () => ({}),
    (value) => {
      const result = { ...defaults };
      if (isPlainObject(value)) {
        for (const [action, verb] of Object.entries(value)) {
          if (typeof verb === 'string' && Object.hasOwn(defaults, action)) Reflect.set(result, action, verb.toUpperCase());
        }
      }
      return result;
    },
  );
}

const isHeaders = {
  expect: 'an object of header names to string values',
  test: (v: unknown) => isPlainObject(v) && Object.values(v).every((value) => typeof value === 'string'),
  problem: (v: unknown) => {
    if (!isPlainObject(v)) return undefined;
    for (const [name, value] of Object.entries(v)) {
      const problem = headerProblem(name, value);
      if (problem !== undefined) return problem;
    }
    return undefined;
  },
};

export const ajaxSchema = {
  ...serverSchema,
  actionMethods: actionMethodsOption(AJAX_METHODS),
  headers: option(isHeaders, () => ({})),
  withCredentials: option(is.boolean, () => false),
  username: option(is.string),
  password: option(is.string),
  paramsAsJson: option(is.boolean, () => false),
  fetch: option(is.function),
  shareReads: option(is.boolean),
  conditionalReads: option(is.boolean, () => true),
  maxResponseBytes: option({ ...is.positiveInteger, test: (v) => v === Infinity || is.positiveInteger.test(v) }, () => 128 * 1024 * 1024),
  retry: option(isRetry, () => ({}), normalizeRetry),
  idempotencyKey: option(is.boolean, () => false),
  etag: option(is.boolean, () => false),
  onRequest: option(is.function),
  onResponse: option(is.function),
} satisfies Schema<AjaxProxyConfig>;
