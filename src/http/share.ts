/**
 * Identical GETs in flight at the same time share one fetch: the same url (`shareKey`, set only
 * where sharing is safe) and every header, as sent (after the onRequest hook), so that nothing
 * that can carry credentials differs. Each caller can still abort its own wait (or time out); the
 * fetch itself is cancelled when no caller waits any more, and no later GET joins a fetch that a
 * caller gave up on.
 */
import { ownError } from '../errors/ProxyError.js';
import { Link } from './link.js';
import type { Exchange, Layer } from './types.js';

interface Shared {
  promise: Promise<Exchange>;
  link: Link;
  waiters: number;
}

/**
 * The layer inside `trying` (send.ts): each caller is a try, whose signal (its Link) aborts when
 * it gives up, and which then rejects by itself; here a caller that gives up only stops waiting.
 */
export function sharingGets(): Layer {
  return (next) => {
    const inflight = new Map<string, Shared>();
    return (request, attempt) => {
      if (request.shareKey === undefined || request.method !== 'GET') return next(request, attempt);
      // The url, then the headers by name in order. Unambiguous: the url's length comes first (an
      // absolute url starts with a letter), a header name has no `:` and a value no line break
      // (fetch refuses both). Built by hand: as JSON (with a property list) it cost four times as much.
      let key = request.shareKey.length + request.shareKey;
      for (const name of Object.keys(request.headers).sort()) key += `\n${name}:${request.headers[name]}`;
      let entry = inflight.get(key);
      if (entry === undefined) {
        const link = new Link();
        const shared: Shared = { promise: next({ ...request, signal: link }, attempt), link, waiters: 0 };
        inflight.set(key, shared);
        const forget = (): void => {
          if (inflight.get(key) === shared) inflight.delete(key);
        };
        shared.promise.then(forget, forget);
        entry = shared;
      }
      const shared = entry;
      shared.waiters++;
      const signal = request.signal;
      signal?.addEventListener('abort', () => {
        // A caller gave up on it (a timeout, an abort): forgotten, so that a GET made now (that
        // caller's retry) starts afresh instead of joining a request that may be stalled.
        if (inflight.get(key) === shared) inflight.delete(key);
        if (--shared.waiters === 0) shared.link.abort(signal.reason);
      });
      return shared.promise.catch((error: unknown) => {
        throw ownError(error);
      });
    };
  };
}
