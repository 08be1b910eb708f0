/**
 * Retries: which failures are tried again, how long to wait before the next try (exponential
 * backoff with jitter, or the server's Retry-After, always bounded), and the layer that does it.
 */
import { ProxyError, ownError } from '../errors/ProxyError.js';
import { aborted, afterTries, earlierApplied } from '../errors/messages.js';
import { isPlainObject } from '../util/options.js';
import { dev } from '../util/dev.js';
import type { Abortable } from './link.js';
import type { Exchange, Layer } from './types.js';

export interface RetryOptions {
  /** Retries after the first try (so `limit + 1` tries at most). Default 2. */
  limit?: number;
  /** Verbs that are retried. Default `['GET', 'PUT', 'DELETE']` (POST only with `idempotencyKey`). */
  methods?: string[];
  /** Statuses that are retried. Default `[408, 429, 500, 502, 503, 504]`. */
  statusCodes?: number[];
  /** The longest wait between two tries, in ms, also bounding Retry-After. Default 10000. */
  backoffLimit?: number;
  /** The first wait, in ms; each next one doubles (with jitter). Default 300. */
  delay?: number;
}

export type NormalizedRetry = Required<RetryOptions>;

export const DEFAULT_RETRY: NormalizedRetry = {
  limit: 2,
  methods: ['GET', 'PUT', 'DELETE'],
  statusCodes: [408, 429, 500, 502, 503, 504],
  backoffLimit: 10_000,
  delay: 300,
};

const KEYS = Object.keys(DEFAULT_RETRY);

export const isRetry = {
  expect: `an integer or ${dev('{ limit: integer, methods, statusCodes: 100-599, backoffLimit, delay }', 'a retry config')}`,
  test: (v: unknown): boolean => {
    if (typeof v === 'number') return Number.isInteger(v) && v >= 0;
    if (!isPlainObject(v)) return false;
    return Object.entries(v).every(([key, value]) => {
      if (!KEYS.includes(key)) return false;
      if (value === undefined) return true;
      if (key === 'methods') return Array.isArray(value) && value.every((m) => typeof m === 'string');
      if (key === 'statusCodes') return Array.isArray(value) && value.every((s) => Number.isInteger(s) && s >= 100 && s <= 599);
      return typeof value === 'number' && value >= 0 && Number.isFinite(value) && (key !== 'limit' || Number.isInteger(value));
    });
  },
};

/** A retry option as `isRetry` let it through: every setting filled in (each array a copy, the verbs upper case). */
export function normalizeRetry(value: unknown): NormalizedRetry {
  const given: Record<string, unknown> = typeof value === 'number' ? { limit: value } : isPlainObject(value) ? value : {};
  const result = { ...DEFAULT_RETRY };
  for (const key of KEYS) if (given[key] !== undefined) Reflect.set(result, key, given[key]);
  return { ...result, methods: result.methods.map((m) => String(m).toUpperCase()), statusCodes: result.statusCodes.map(Number) };
}

/**
 * Milliseconds to wait before try number `attempt + 1` (attempt counts from 1). A Retry-After
 * header (seconds, or an HTTP date) wins when it is sane; anything absurd (negative, not a
 * number, years away) is clamped to `[0, backoffLimit]`.
 */
export function retryDelay(retry: NormalizedRetry, attempt: number, retryAfter: string | null, now = Date.now(), random = Math.random()): number {
  const text = retryAfter?.trim();
  if (text) {
    // Seconds, or an HTTP date (one that does not parse gives NaN, as an absurd value does).
    const ms = /^-?\d+(\.\d+)?$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
    if (Number.isFinite(ms)) return Math.min(Math.max(ms, 0), retry.backoffLimit);
  }
  const exponential = retry.delay * 2 ** (attempt - 1);
  const jittered = exponential * (0.5 + random * 0.5);
  return Math.min(jittered, retry.backoffLimit);
}

/**
 * The jitter of one outcome: callers that shared a try (the same answer, the same error) wait
 * alike, so that their next tries are shared too.
 */
const jitters = new WeakMap<object, number>();
function jitterOf(outcome: object): number {
  let jitter = jitters.get(outcome);
  if (jitter === undefined) jitters.set(outcome, (jitter = Math.random()));
  return jitter;
}

function sleep(ms: number, signal: Abortable | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort);
  });
}

/**
 * Try again, after a delay, a retryable request that got no answer (network, timeout) or one of
 * the retried statuses. The answer it ends with says whether an earlier try may have reached the
 * server (`ambiguous`): no answer, or a 5xx.
 */
export function retrying(policy: NormalizedRetry): Layer {
  return (next) => (request) => {
    if (!request.retryable) return next(request, 1);
    return (async (): Promise<Exchange> => {
      let ambiguous = false;
      for (let attempt = 1; ; attempt++) {
        let exchange: Exchange | undefined;
        let failure: ProxyError | undefined;
        try {
          exchange = await next(request, attempt);
        } catch (error) {
          if (!(error instanceof ProxyError) || (error.kind !== 'network' && error.kind !== 'timeout')) throw ownError(error, ambiguous && request.write);
          failure = error;
        }
        const status = exchange?.response.status;
        if (attempt > policy.limit || (status !== undefined && !policy.statusCodes.includes(status))) {
          if (exchange !== undefined) return ambiguous ? { ...exchange, ambiguous } : exchange;
          if (failure !== undefined && attempt > 1) {
            // The last try was not sent (its onRequest never settled), an earlier one may have been applied.
            const message = ambiguous && request.write && !failure.mayHaveBeenApplied ? earlierApplied(failure.message) : failure.message;
            throw new ProxyError(failure.kind, afterTries(message, attempt), { cause: failure.cause, mayHaveBeenApplied: ambiguous || failure.mayHaveBeenApplied });
          }
          if (failure !== undefined) throw failure;
        }
        // A try that got no answer, or a server error, may still have been applied.
        ambiguous ||= failure?.mayHaveBeenApplied ?? (status !== undefined && status >= 500);
        const outcome: object = exchange ?? failure ?? {};
        const delay = retryDelay(policy, attempt, exchange?.response.headers.get('retry-after') ?? null, Date.now(), jitterOf(outcome));
        request.onRetry?.(attempt, delay, failure?.kind === 'timeout' ? 'timeout' : failure ? 'network' : (status ?? 0));
        try {
          await sleep(delay, request.signal);
        } catch (error) {
          throw new ProxyError('abort', aborted(request.label, 'waiting'), { cause: error });
        }
      }
    })();
  };
}
