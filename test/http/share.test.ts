/**
 * Identical GETs in flight share one fetch (src/http/share.ts): the same url and the same
 * headers, whatever their order; anything else is sent on its own, however the url reads.
 */
import { describe, expect, it } from 'vitest';
import { sharingGets } from '../../src/http/share.js';
import type { Exchange, HttpRequest } from '../../src/http/types.js';

function get(url: string, headers: Record<string, string>): HttpRequest {
  return { url, method: 'GET', headers, body: undefined, credentials: false, label: `GET ${url}`, write: false, signal: undefined, retryable: false, shareKey: url };
}

/** The urls the layer sent, for GETs made at the same time. */
async function sent(requests: HttpRequest[]): Promise<string[]> {
  const urls: string[] = [];
  const send = sharingGets()(async (request) => {
    urls.push(request.url);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const exchange: Exchange = { response: new Response(null, { status: 304 }), text: '', ambiguous: false };
    return exchange;
  });
  await Promise.all(requests.map((request) => send(request, 1)));
  return urls;
}

describe('sharingGets', () => {
  it('shares GETs of one url with the same headers, in any order', async () => {
    expect(await sent([get('http://h/u', { accept: 'application/json', 'if-none-match': '"1"' }), get('http://h/u', { 'if-none-match': '"1"', accept: 'application/json' })])).toEqual(['http://h/u']);
  });

  it('sends on its own a GET whose headers differ, or whose url reads like another url and its headers', async () => {
    expect(await sent([get('http://h/u', { a: 'b' }), get('http://h/u', { a: 'c' }), get('http://h/u', {})])).toHaveLength(3);
    expect(await sent([get('http://h/u', { a: 'b' }), get('http://h/u\na:b', {}), get('http://h/u\n', { a: 'b' })])).toHaveLength(3);
  });
});
