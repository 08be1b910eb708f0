/**
 * One try: fetch with a timeout, and the body read as text in the charset its Content-Type
 * declares. The timeout does not rely on fetch honouring the signal: the try fails when the time
 * is up, whatever the fetch does.
 */
import { ProxyError } from '../errors/ProxyError.js';
import { aborted, networkFailed, noFetch, timedOut } from '../errors/messages.js';
import { isPlainObject } from '../util/options.js';
import type { FetchFunction, HttpRequest, Send } from './types.js';

/** The charset a Content-Type declares, when it is not UTF-8 (which `text()` reads). */
function declaredCharset(contentType: string | null): string | undefined {
  if (contentType === null) return undefined;
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType);
  const charset = match?.[1];
  return charset === undefined || /^utf-?8$/i.test(charset) ? undefined : charset;
}

/** The body as text, decoded as the response says it is encoded (an unknown charset reads as UTF-8, as a browser would). */
export async function readText(response: Response): Promise<string> {
  const charset = declaredCharset(response.headers.get('content-type'));
  if (charset === undefined) return response.text();
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    return response.text();
  }
  return decoder.decode(await response.arrayBuffer());
}

function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = isPlainObject(cause) || cause instanceof Error ? Reflect.get(cause, 'code') : undefined;
  const detail = cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${detail}` : detail;
}

/** The init fetch gets: writes never follow redirects (the caller sees the 3xx, or an opaque redirect in a browser). */
function initOf(request: HttpRequest, signal: AbortSignal): RequestInit {
  const init: RequestInit = { method: request.method, headers: request.headers, signal };
  if (request.body !== undefined) init.body = request.body;
  if (request.credentials) init.credentials = 'include';
  if (request.write) init.redirect = 'manual';
  return init;
}

/** The innermost layer: one fetch, bounded by `timeout` ms (0: none). */
export function sendOnce(fetchOf: () => FetchFunction | undefined, timeout: number): Send {
  return (request) =>
    new Promise((resolve, reject) => {
      const fetchImpl = fetchOf();
      if (fetchImpl === undefined) {
        reject(new ProxyError('config', noFetch(request.label)));
        return;
      }
      const controller = new AbortController();
      const signal = request.signal;
      let done = false;
      const finish = (): void => {
        done = true;
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const fail = (error: ProxyError): void => {
        if (done) return;
        finish();
        reject(error);
      };
      const onAbort = (): void => {
        controller.abort(signal?.reason);
        fail(new ProxyError('abort', aborted(request.label, 'in flight'), { cause: signal?.reason, mayHaveBeenApplied: request.write }));
      };
      const timer =
        timeout > 0
          ? setTimeout(() => {
              controller.abort();
              fail(new ProxyError('timeout', timedOut(request.label, timeout, request.write)));
            }, timeout)
          : undefined;
      if (signal !== undefined) {
        if (signal.aborted) {
          fail(new ProxyError('abort', aborted(request.label, 'before'), { cause: signal.reason, mayHaveBeenApplied: false }));
          return;
        }
        signal.addEventListener('abort', onAbort, { once: true });
      }
      fetchImpl(request.url, initOf(request, controller.signal)).then(
        (response) =>
          readText(response).then(
            (text) => {
              if (done) return;
              finish();
              resolve({ response, text, ambiguous: false });
            },
            (error: unknown) => fail(new ProxyError('network', networkFailed(request.label, networkReason(error), request.write), { cause: error })),
          ),
        (error: unknown) => fail(new ProxyError('network', networkFailed(request.label, networkReason(error), request.write), { cause: error })),
      );
    });
}
