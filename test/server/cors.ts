// CORS, so tests running in a browser (vitest.browser.config.ts) can call the server from the vitest page's origin.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setHeader } from './scripted.js';

/**
 * Allows the request's Origin (with credentials) on every answer. A preflight is answered here with
 * 204 and reports true: the caller must not record it, count it or let it take a fault or a route.
 */
export function cors(req: IncomingMessage, res: ServerResponse): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Allow-Credentials', 'true');
  res.setHeader('Vary', 'Origin');
  const method = req.headers['access-control-request-method'];
  if (req.method !== 'OPTIONS' || method === undefined) return false;
  res.writeHead(204, {
    'Access-Control-Allow-Methods': method,
    'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ?? '',
    'Access-Control-Max-Age': '600',
  });
  res.end();
  return true;
}

/** Lets the page read every header of the answer (Location, ETag, X-Total-Count, Retry-After, ...). */
export function exposeHeaders(res: ServerResponse, headers: Record<string, string>): void {
  if (res.hasHeader('Access-Control-Allow-Origin')) setHeader(headers, 'Access-Control-Expose-Headers', Object.keys(headers).join(', '));
}
