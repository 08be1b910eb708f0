/**
 * Retry policy: which failures are retried, and how long to wait before the next try
 * (exponential backoff with jitter, or the server's Retry-After, always bounded).
 */
import { isPlainObject } from '../util/options.js';

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
  expect: 'a number of retries or { limit, methods, statusCodes, backoffLimit, delay }',
  test: (v: unknown): boolean => {
    if (typeof v === 'number') return Number.isInteger(v) && v >= 0;
    if (!isPlainObject(v)) return false;
    return Object.entries(v).every(([key, value]) => {
      if (!KEYS.includes(key)) return false;
      if (value === undefined) return true;
      if (key === 'methods') return Array.isArray(value) && value.every((m) => typeof m === 'string');
      if (key === 'statusCodes') return Array.isArray(value) && value.every((s) => Number.isInteger(s));
      return typeof value === 'number' && value >= 0 && Number.isFinite(value);
    });
  },
};

export function normalizeRetry(value: unknown): NormalizedRetry {
  if (typeof value === 'number') return { ...DEFAULT_RETRY, limit: value };
  if (!isPlainObject(value)) return { ...DEFAULT_RETRY };
  const result: NormalizedRetry = { ...DEFAULT_RETRY, methods: [...DEFAULT_RETRY.methods], statusCodes: [...DEFAULT_RETRY.statusCodes] };
  if (typeof value.limit === 'number') result.limit = value.limit;
  if (Array.isArray(value.methods)) result.methods = value.methods.map((m) => String(m).toUpperCase());
  if (Array.isArray(value.statusCodes)) result.statusCodes = value.statusCodes.map(Number);
  if (typeof value.backoffLimit === 'number') result.backoffLimit = value.backoffLimit;
  if (typeof value.delay === 'number') result.delay = value.delay;
  return result;
}

/**
 * Milliseconds to wait before try number `attempt + 1` (attempt counts from 1). A Retry-After
 * header (seconds, or an HTTP date) wins when it is sane; anything absurd (negative, not a
 * number, years away) is clamped to `[0, backoffLimit]`.
 */
export function retryDelay(retry: NormalizedRetry, attempt: number, retryAfter: string | null, now = Date.now()): number {
  if (retryAfter !== null && retryAfter.trim() !== '') {
    const text = retryAfter.trim();
    let ms = NaN;
    if (/^-?\d+(\.\d+)?$/.test(text)) ms = Number(text) * 1000;
    else {
      const date = Date.parse(text);
      if (!Number.isNaN(date)) ms = date - now;
    }
    if (Number.isFinite(ms)) return Math.min(Math.max(ms, 0), retry.backoffLimit);
  }
  const exponential = retry.delay * 2 ** (attempt - 1);
  const jittered = exponential * (0.5 + Math.random() * 0.5);
  return Math.min(jittered, retry.backoffLimit);
}
