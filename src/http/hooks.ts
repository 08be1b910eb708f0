/**
 * The user's hooks around every try: `before` may change the headers (a token, a trace id);
 * `after` sees every answer and may ask for the request once more (`'retry'`, after refreshing
 * an expired token on a 401), at most once per request.
 */
import type { Exchange, HttpRequest, Layer } from './types.js';

export type BeforeHook = (request: HttpRequest, init: RequestInit & { headers: Headers }, attempt: number) => void | Promise<void>;
export type AfterHook = (request: HttpRequest, response: Response, attempt: number) => unknown;

export function hooks(before: BeforeHook | undefined, after: AfterHook | undefined): Layer {
  const retried = new WeakSet<HttpRequest>();
  return (next) => {
    const send = async (request: HttpRequest, attempt: number): Promise<Exchange> => {
      let sent = request;
      if (before !== undefined) {
        const init: RequestInit & { headers: Headers } = { method: request.method, headers: new Headers(request.headers) };
        if (request.body !== undefined) init.body = request.body;
        await before(request, init, attempt);
        const headers: Record<string, string> = {};
        init.headers.forEach((value, name) => {
          headers[name] = value;
        });
        sent = { ...request, headers, body: typeof init.body === 'string' ? init.body : request.body };
      }
      const exchange = await next(sent, attempt);
      if (after === undefined) return exchange;
      const verdict = await after(request, exchange.response, attempt);
      if (verdict !== 'retry' || retried.has(request)) return exchange;
      retried.add(request);
      // A try of its own: `before` runs again (with the token the hook just refreshed).
      return send(request, attempt + 1);
    };
    return send;
  };
}
