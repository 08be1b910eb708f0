/**
 * The transport: layers that each add one concern around sending a request with fetch (a
 * timeout, retries, shared GETs, hooks, the caller's abort), composed once when a proxy's options
 * are set. They know HTTP and nothing of records or operations.
 */
import type { Abortable } from './link.js';

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Why a try is made again: a status, or no answer. */
export type RetryReason = number | 'network' | 'timeout';

/** One HTTP request, as the layers send it. */
export interface HttpRequest {
  readonly url: string;
  readonly method: string;
  /** By lower-case name, as fetch sends them. */
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  /** Send cookies cross-origin. */
  readonly credentials: boolean;
  /** `PUT /users/2` (without the cache buster): how messages name the request. */
  readonly label: string;
  /** A write: never follows a redirect, and its failures say whether it may have been applied. */
  readonly write: boolean;
  /** The caller's signal (an outer layer's Link inside the layers): aborts the request and the wait for it. */
  readonly signal: Abortable | undefined;
  /** May be sent again after a failure that may have reached the server (an idempotent verb, or a keyed POST). */
  readonly retryable: boolean;
  /** Identical GETs in flight with the same key and the same headers (as sent) share one fetch; undefined: never shared. */
  readonly shareKey: string | undefined;
  /** What the request is about, for hooks (the proxy's Request); the layers never look into it. */
  readonly context?: unknown;
  /** Skip HTTP caches (`cache: 'no-store'`): a read that carries its own validator. */
  readonly noStore?: boolean | undefined;
  /** Told before each retry. */
  readonly onRetry?: ((attempt: number, delay: number, reason: RetryReason) => void) | undefined;
}

/** An answer with its body read. */
export interface Exchange {
  readonly response: Response;
  readonly text: string;
  /** An earlier try of this request failed after it may have reached the server. */
  readonly ambiguous: boolean;
}

/** Send a request (`attempt` counts the tries of one request, from 1). */
export type Send = (request: HttpRequest, attempt: number) => Promise<Exchange>;

/** A concern wrapped around the layers inside it. */
export type Layer = (next: Send) => Send;
