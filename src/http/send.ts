/**
 * One try: the onRequest hook, fetch, the body read as text in the charset its Content-Type
 * declares (at most `maxBytes` of it), and the onResponse hook, all bounded by `timeout` and the
 * caller's signal. The timeout does not rely on fetch (nor a hook) honouring the signal: the try
 * fails when the time is up, whatever they do.
 */
import { ProxyError, ownError } from '../errors/ProxyError.js';
import { aborted, networkFailed, noFetch, timedOut, tooLarge } from '../errors/messages.js';
import { isPlainObject } from '../util/options.js';
import { Link } from './link.js';
import { mayHaveApplied, readable, resendable, runBefore, type AfterHook, type BeforeHook } from './hooks.js';
import type { Exchange, FetchFunction, HttpRequest, Send } from './types.js';

/** One UTF-8 decoder for every answer (making one per answer costs a sixth of a small read). */
const UTF8 = /* @__PURE__ */ new TextDecoder();

/** A decoder for the charset a Content-Type declares (an unknown one reads as UTF-8, as a browser would). */
function decoderFor(contentType: string | null): TextDecoder {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  if (charset === undefined || /^utf-?8$/i.test(charset)) return UTF8;
  try {
    return new TextDecoder(charset);
  } catch {
    return new TextDecoder();
  }
}

/**
 * The body (not null: the caller answers a body-less response itself) as text, decoded as the
 * response says it is encoded, counted as it is read: past `maxBytes` (or a Content-Length above
 * it) the body is cancelled and the try fails at once.
 */
export async function readText(response: Response, maxBytes: number, request: HttpRequest): Promise<string> {
  const tooBig = (how: string): ProxyError =>
    new ProxyError('parse', tooLarge(request.label, response.status, maxBytes, how), {
      response, status: response.status, statusText: response.statusText, mayHaveBeenApplied: request.write && mayHaveApplied(response),
    });
  const body: ReadableStream<Uint8Array> | null | undefined = response.body;
  // No web stream: a fetch that buffers the whole answer first (React Native's, whatwg-fetch), or
  // gives a Node stream (node-fetch). Read whole: only its Content-Length can bound it.
  const stream = body && 'getReader' in body ? body : undefined;
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > maxBytes) {
    void stream?.cancel().catch(() => undefined);
    throw tooBig(`its Content-Length is ${length}`);
  }
  const decoder = decoderFor(response.headers.get('content-type'));
  if (stream === undefined) return decoder.decode(await response.arrayBuffer());
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    // Past the limit, or the try is over (a fetch that ignores the signal): let the body go.
    const over = size > maxBytes;
    if (over || request.signal?.aborted) {
      void reader.cancel().catch(() => undefined);
      throw over ? tooBig(`${size} bytes were read`) : new ProxyError('abort', aborted(request.label, 'in flight', request.write));
    }
    chunks.push(value);
  }
  // Decoded once, at the end (decoding chunk by chunk is twice as slow).
  let bytes = chunks[0] ?? new Uint8Array(0);
  if (chunks.length > 1) {
    bytes = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
  }
  return decoder.decode(bytes);
}

/** The init fetch gets: writes never follow redirects (the caller sees the 3xx, or an opaque redirect in a browser). */
function initOf(request: HttpRequest): RequestInit {
  const init: RequestInit = { method: request.method, headers: request.headers };
  const signal = request.signal;
  // The one real signal of the request (the layers link theirs: a try is never sent aborted).
  if (signal !== undefined) init.signal = signal instanceof Link ? signal.signal() : signal;
  if (request.body !== undefined) init.body = request.body;
  if (request.credentials) init.credentials = 'include';
  if (request.write) init.redirect = 'manual';
  if (request.noStore) init.cache = 'no-store';
  return init;
}

/** The innermost layer: fetch and read the answer (no timer: the try around it has one). */
export function fetching(fetchOf: () => FetchFunction | undefined, maxBytes: number): Send {
  return async (request) => {
    const fetchImpl = fetchOf();
    if (fetchImpl === undefined) throw new ProxyError('config', noFetch(request.label));
    // A fetch that failed (or a body that could not be read): kind 'network', with the platform's code.
    const failed = (error: unknown): ProxyError => {
      const cause = error instanceof Error ? error.cause : undefined;
      const code = isPlainObject(cause) || cause instanceof Error ? Reflect.get(cause, 'code') : undefined;
      const detail = cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
      const reason = typeof code === 'string' ? `${code}: ${detail}` : detail;
      // A connection refused or a name not found (Node's codes): nothing was sent, so nothing was applied.
      return new ProxyError('network', networkFailed(request.label, reason, request.write), { cause: error, mayHaveBeenApplied: !/^E(CONNREFUSED|NOTFOUND):/.test(reason) });
    };
    let response: Response;
    try {
      response = await fetchImpl(request.url, initOf(request));
    } catch (error) {
      throw failed(error);
    }
    try {
      // No body (204, 304, HEAD): nothing to read (a Content-Length there tells the size of what was not sent).
      return { response, text: response.body === null ? '' : await readText(response, maxBytes, request), ambiguous: false };
    } catch (error) {
      throw error instanceof ProxyError ? error : failed(error);
    }
  };
}

/**
 * Tries of a request, each bounded by `timeout` ms (0: none) and the caller's signal, hooks
 * included. An `after` hook's `'retry'` sends the request once more, unless it is a POST without
 * an idempotency key that may have been applied.
 */
export function trying(send: Send, timeout: number, before: BeforeHook | undefined, after: AfterHook | undefined): Send {
  const retried = new WeakSet<HttpRequest>();
  /** One try; the `after` hook's verdict goes to `outcome`. */
  const oneTry = (request: HttpRequest, attempt: number, outcome?: { verdict?: unknown }): Promise<Exchange> =>
    new Promise((resolve, reject) => {
      const controller = new Link();
      const signal = request.signal;
      /** Which hook runs (undefined: the fetch), and whether the request was sent. */
      let hook: 'onRequest' | 'onResponse' | undefined = before && 'onRequest';
      let sent = false;
      let answer: Response | undefined;
      let done = false;
      const settle = (): boolean => {
        if (done) return false;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        return true;
      };
      const fail = (error: unknown): void => {
        if (settle()) reject(error);
        controller.abort(signal?.reason);
      };
      // Nothing was sent while onRequest ran; after an answer, the answer says.
      const applied = (): boolean => request.write && sent && (answer === undefined || mayHaveApplied(answer));
      const onAbort = (): void =>
        fail(new ProxyError('abort', aborted(request.label, sent ? 'in flight' : 'before', applied()), { cause: signal?.reason, mayHaveBeenApplied: applied() }));
      const timer = timeout > 0 ? setTimeout(() => fail(new ProxyError('timeout', timedOut(request.label, timeout, applied(), hook), { mayHaveBeenApplied: applied() })), timeout) : undefined;
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort);
      // Without hooks, no async function around the send: a 304's layers are mostly promises.
      const hooked = async (): Promise<Exchange | undefined> => {
        const prepared = before ? await runBefore(before, request, attempt) : request;
        if (done) return;
        hook = undefined;
        sent = true;
        const exchange = await send({ ...prepared, signal: controller }, attempt);
        if (after && !done) {
          hook = 'onResponse';
          answer = exchange.response;
          if (outcome) outcome.verdict = await after(request, readable(answer, exchange.text), attempt);
        }
        return exchange;
      };
      (before || after ? hooked() : ((sent = true), send({ ...request, signal: controller }, attempt))).then((exchange) => exchange && settle() && resolve(exchange), fail);
    });
  const tries = async (request: HttpRequest, attempt: number): Promise<Exchange> => {
    const outcome: { verdict?: unknown } = {};
    const exchange = await oneTry(request, attempt, outcome);
    const response = exchange.response;
    if (outcome.verdict !== 'retry' || retried.has(request) || !resendable(request, response)) return exchange;
    retried.add(request);
    // A try of its own: `before` runs again (with the token the hook just refreshed).
    const applied = request.write && mayHaveApplied(response);
    const next = await tries(request, attempt + 1).catch((error: unknown) => {
      throw ownError(error, applied);
    });
    return applied ? { ...next, ambiguous: true } : next;
  };
  // Only the `after` hook asks for a try again.
  return after ? tries : oneTry;
}
