/**
 * The user's hooks around every try: `before` may change the headers (a token, a trace id);
 * `after` sees every answer, with a body it can read, and may ask for the request once more
 * (`'retry'`, after refreshing an expired token on a 401).
 */
import { ProxyError } from '../errors/ProxyError.js';
import { cannotSend } from '../errors/messages.js';
import type { HttpRequest } from './types.js';
import { dev } from '../util/dev.js';

export type BeforeHook = (request: HttpRequest, init: RequestInit & { headers: Headers }, attempt: number) => void | Promise<void>;
export type AfterHook = (request: HttpRequest, response: Response, attempt: number) => unknown;

/** The request as sent after `before` ran: its headers as the hook left them. Anything else it changed is refused. */
export async function runBefore(before: BeforeHook, request: HttpRequest, attempt: number): Promise<HttpRequest> {
  const init: RequestInit & { headers: Headers } = { method: request.method, headers: new Headers(request.headers) };
  if (request.body !== undefined) init.body = request.body;
  await before(request, init, attempt);
  // The records commit what the writer made: a body (or a verb) the server gets instead would
  // make them hold values it never got.
  for (const key of Object.keys(init)) {
    const changed = key === 'method' ? init.method !== request.method : key === 'body' ? init.body !== request.body : key !== 'headers';
    if (changed) throw new ProxyError('config', cannotSend(request.label, `the onRequest hook changed init.${key}${dev('; it may change init.headers only (the records would commit what the server never got)')}`), { mayHaveBeenApplied: false });
  }
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  return { ...request, headers };
}

/** Whether an answer says the request may have been applied: a 2xx, or a 5xx. */
export function mayHaveApplied(response: Response): boolean {
  return response.ok || response.status >= 500;
}

/**
 * Whether a request may be sent once more after an answer that may say it was applied: never a
 * POST without an idempotency key (the retry policy's rule).
 */
export function resendable(request: HttpRequest, response: Response): boolean {
  return request.method !== 'POST' || request.headers['idempotency-key'] !== undefined || !mayHaveApplied(response);
}

/**
 * The answer as the `after` hook sees it: the same status, headers and url, with the body the
 * proxy read (as text) readable again. The proxy reads the original first.
 */
export function readable(response: Response, text: string): Response {
  const status = response.status;
  if (status < 200 || status > 599) return response;
  const copy = new Response(status === 204 || status === 205 || status === 304 ? null : text, { status, statusText: response.statusText, headers: response.headers });
  return Object.defineProperties(copy, { url: { value: response.url }, redirected: { value: response.redirected }, type: { value: response.type } });
}
