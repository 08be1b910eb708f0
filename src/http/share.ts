/**
 * Identical GETs in flight at the same time share one fetch: the same url (`shareKey`, set only
 * where sharing is safe) and every header, as sent (after the onRequest hook), so that nothing
 * that can carry credentials differs. Each caller can still abort its own wait (or time out); the
 * fetch itself is cancelled when no caller waits any more, and no later GET joins a fetch that a
 * caller gave up on.
 */
import { ProxyError, ownError } from '../errors/ProxyError.js';
import { aborted } from '../errors/messages.js';
import type { Exchange, Layer } from './types.js';

interface Shared {
  promise: Promise<Exchange>;
  controller: AbortController;
  waiters: number;
}

export function sharingGets(): Layer {
  return (next) => {
    const inflight = new Map<string, Shared>();
    return (request, attempt) => {
      if (request.shareKey === undefined || request.method !== 'GET') return next(request, attempt);
      // The headers with their names in order (a property list): sorting [name, value] pairs compares each as text, which costs.
      const key = `${request.shareKey}\n${JSON.stringify(request.headers, Object.keys(request.headers).sort())}`;
      let entry = inflight.get(key);
      if (entry === undefined) {
        const controller = new AbortController();
        const shared: Shared = { promise: next({ ...request, signal: controller.signal }, attempt), controller, waiters: 0 };
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
      if (signal === undefined) return shared.promise;
      return new Promise<Exchange>((resolve, reject) => {
        const abort = (): void => {
          reject(new ProxyError('abort', aborted(request.label, 'in flight'), { cause: signal.reason }));
          // A caller gave up on it (a timeout, an abort): forgotten, so that a GET made now (that
          // caller's retry) starts afresh instead of joining a request that may be stalled.
          if (inflight.get(key) === shared) inflight.delete(key);
          if (--shared.waiters === 0) shared.controller.abort(signal.reason);
        };
        if (signal.aborted) {
          abort();
          return;
        }
        signal.addEventListener('abort', abort, { once: true });
        shared.promise.then(
          (exchange) => {
            signal.removeEventListener('abort', abort);
            resolve(exchange);
          },
          (error: unknown) => {
            signal.removeEventListener('abort', abort);
            reject(ownError(error));
          },
        );
      });
    };
  };
}
