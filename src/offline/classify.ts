/**
 * What the outbox does with a failed attempt (the failure table of docs/offline.md), and its
 * delays: pure functions of the error, the entry and the time.
 */
import { ProxyError } from '../errors/ProxyError.js';
import type { EntryAction, StoredError } from './entry.js';
import type { JsonValue } from './storage.js';

export type Verdict =
  | 'offline' // no answer: the outbox pauses and probes its head
  | 'retry' // the entry backs off and counts an attempt
  | 'rate-limit' // the outbox pauses until Retry-After
  | 'auth' // the outbox pauses until resume()
  | 'fail' // failed at once
  | 'conflict' // failed with the server's current version
  | 'done'; // a DELETE of a record already gone

/** `resent`: the entry was sent before this attempt (a 409 then answers our own earlier try). */
export function classify(error: ProxyError, action: EntryAction, resent: boolean): Verdict {
  const status = error.status;
  if (error.kind === 'network' || error.kind === 'timeout' || error.kind === 'abort') return 'offline';
  if (status === 401) return 'auth';
  if (status === 429 || (status === 503 && retryAfter(error, 0) !== undefined)) return 'rate-limit';
  if (action === 'destroy' && (status === 404 || status === 410)) return 'done';
  if (status === 409 && resent) return 'retry';
  if (status === 409 || status === 412) return 'conflict';
  if (status >= 500 || status === 408 || error.kind === 'parse' || (error.kind === 'server' && status !== 400)) return 'retry';
  return 'fail';
}

/** Milliseconds until the time a Retry-After header of the answer names, if it names one. */
export function retryAfter(error: ProxyError, now: number): number | undefined {
  const text = error.response?.headers.get('retry-after')?.trim();
  if (text === undefined || text === '') return undefined;
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  // At least 1 s (a server answering 0 or a past date to every try was sent to in a loop), at
  // most what a timer holds (about 24.8 days): a longer one fires at once.
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 1000), 2 ** 31 - 1) : undefined;
}

/** The n-th delay (n from 1): near 1 s and doubling, jittered (±20%), at most `max` ms. */
export function backoff(n: number, max: number, random = Math.random()): number {
  return Math.min(max, 1000 * 2 ** Math.min(n - 1, 30) * (0.8 + 0.4 * random));
}

/** The same failure, marked as kept by the outbox (it will be sent again). */
export function queued(error: ProxyError): ProxyError {
  const copy = new ProxyError(error.kind, error.message, { ...error, cause: error.cause, mayHaveBeenApplied: error.mayHaveBeenApplied });
  Object.defineProperty(copy, 'queued', { value: true, enumerable: true });
  return copy;
}

export function asJson(value: unknown): JsonValue | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  try {
    const parsed: JsonValue = JSON.parse(JSON.stringify(value));
    return parsed;
  } catch {
    return undefined;
  }
}

/** A message as stored: its urls without user info, query or fragment (a key or token there is not to be written to disk). */
const redact = (message: string): string => message.replace(/(https?:\/\/)[^\s/@]*@/g, '$1').replace(/(https?:\/\/[^\s?#]*)[?#]\S*/g, '$1');

export function storedError(error: ProxyError): StoredError {
  const current = asJson(error.current ?? error.body);
  const etag = error.response?.headers.get('etag') ?? undefined;
  const fieldErrors = error.fieldErrors;
  return {
    kind: error.kind, status: error.status, message: redact(error.message),
    ...(fieldErrors ? { fieldErrors: { ...fieldErrors } } : {}), ...(current === undefined ? {} : { current }), ...(etag === undefined ? {} : { etag }),
  };
}
