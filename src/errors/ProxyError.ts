import type { Operation } from '../operation/Operation.js';
import type { Request } from '../operation/Request.js';
import { earlierApplied } from './messages.js';

/** What kind of failure a ProxyError reports. */
export type ProxyErrorKind =
  | 'http' // the server answered with an error status
  | 'network' // no answer: connection refused or reset, DNS, CORS
  | 'timeout' // no answer within `timeout` ms
  | 'abort' // cancelled by the caller's AbortSignal, or superseded by a newer load
  | 'parse' // the answer was not JSON, was cut short, or not in the shape the reader expects
  | 'server' // the server said it failed (`success: false`) or its answer cannot be used
  | 'validation' // 422, a 400 that maps fields to messages, or `success: false` with field errors: see `fieldErrors`
  | 'conflict' // 409 or 412: someone else changed the record; see `current`
  | 'dependency' // not sent: it needed another record's write first, which failed (that error is `cause`)
  | 'config'; // the request cannot be built or sent: no url, a relative url without a page, a missing template value, an id that cannot be a path segment, a record without an id, a url or verb fetch refuses, a value JSON cannot hold; nothing was sent

/** Field name to messages, as a server's validation answer gives them. */
export type FieldErrors = Record<string, string[]>;

/** What a ProxyError is made with: each detail becomes the error's property of the same name (documented there). */
export interface ProxyErrorDetails {
  status?: number;
  statusText?: string;
  operation?: Operation | undefined;
  request?: Request | undefined;
  response?: Response | undefined;
  body?: unknown;
  fieldErrors?: FieldErrors | undefined;
  current?: unknown;
  cause?: unknown;
  /** Override the default guess of `mayHaveBeenApplied`. */
  mayHaveBeenApplied?: boolean;
  /** A load replaced by a newer one (see `ProxyError.superseded`). */
  superseded?: boolean;
}

/**
 * Every failure of an operation. The message says what was asked and what went wrong, e.g.
 * `PUT /users/2 failed: 500 Internal Server Error`; `kind` says which family it belongs to.
 */
export class ProxyError extends Error {
  override name = 'ProxyError';
  declare readonly kind: ProxyErrorKind;
  /** The HTTP status, or 0 when there was no response. */
  declare readonly status: number;
  declare readonly statusText: string;
  declare operation: Operation | undefined;
  declare request: Request | undefined;
  declare readonly response: Response | undefined;
  /** The response body: parsed JSON when it was JSON, else its text. */
  declare readonly body: unknown;
  /** For kind 'validation': the server's messages per field (an object without a prototype). */
  declare readonly fieldErrors: FieldErrors | undefined;
  /** For kind 'conflict': the server's current version of the record, when it sent one. */
  declare readonly current: unknown;
  /**
   * Whether the server may have applied the write although it failed here: no answer (network,
   * timeout, abort in flight), an unreadable answer, a 5xx, or a 2xx that could not be taken (no
   * id for a new record, a hook that threw), a batched DELETE answered 404 or 410 (some of its
   * records may be gone). Never for a redirected write (writes do not follow
   * redirects: nothing was applied) nor for what could not be sent.
   * The records stay unsaved either way; retrying an idempotent write is safe.
   */
  declare readonly mayHaveBeenApplied: boolean;
  /**
   * True for a store load that a newer load replaced (kind 'abort'): not a failure to show. A UI
   * that starts a load from an effect (React's StrictMode runs effects twice) ignores it.
   * @example store.load().catch((error) => { if (!(error instanceof ProxyError && error.superseded)) show(error); })
   */
  declare readonly superseded: boolean;
  /**
   * True when an outbox (rest-proxy/offline) kept the write and will send it again (set by the
   * outbox; undefined otherwise).
   */
  declare readonly queued?: boolean;

  constructor(kind: ProxyErrorKind, message: string, details: ProxyErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    this.status = details.status ?? 0;
    this.statusText = details.statusText ?? '';
    this.operation = details.operation;
    this.request = details.request;
    this.response = details.response;
    this.body = details.body;
    this.fieldErrors = details.fieldErrors;
    this.current = details.current;
    this.mayHaveBeenApplied =
      details.mayHaveBeenApplied ??
      (kind === 'network' || kind === 'timeout' || kind === 'parse' || kind === 'abort' || this.status >= 500);
    this.superseded = details.superseded ?? false;
  }
}

/**
 * The same failure as an error of its own (each caller of a shared request gets one, on which
 * the proxy names its operation). `earlier`: an earlier try may have been applied, which a later
 * try's failure (a hook that threw, an abort before it was sent) must not hide.
 */
export function ownError(error: unknown, earlier = false): unknown {
  if (!(error instanceof ProxyError)) return error;
  const applied = error.mayHaveBeenApplied;
  return new ProxyError(error.kind, earlier && !applied ? earlierApplied(error.message) : error.message, { ...error, cause: error.cause, mayHaveBeenApplied: earlier || applied });
}

export function isProxyError(error: unknown): error is ProxyError {
  return error instanceof ProxyError;
}
