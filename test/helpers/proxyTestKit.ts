/**
 * Small helpers shared by the proxy contract tests: awaiting a ProxyError, settling a batch,
 * reading urls, and fetch stand-ins that never answer or capture the raw `RequestInit`.
 */
import { BatchError, ProxyError, type Batch } from '../../src/index.js';
import type { Answer, RecordedCall } from './recordingFetch.js';

/** Await `promise` and return the ProxyError it rejects with; fail when it fulfils or rejects otherwise. */
export async function proxyErrorOf(promise: Promise<unknown>): Promise<ProxyError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProxyError) return error;
    throw new Error(`expected a ProxyError, got ${String(error)}`);
  }
  throw new Error('expected the promise to reject with a ProxyError, but it fulfilled');
}

/**
 * `proxy.batch()` resolves with its Batch; whether a batch with failed operations resolves or
 * rejects with a BatchError carrying it is not fixed by the contract: accept both.
 */
export async function settleBatch(promise: Promise<Batch>): Promise<Batch> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof BatchError) return error.batch;
    throw error;
  }
}

const RELATIVE_BASE = 'http://relative.invalid';

/** The (normalised) path of an absolute or root-relative url. */
export function pathOf(url: string): string {
  return new URL(url, RELATIVE_BASE).pathname;
}

/** The query params of an absolute or root-relative url. */
export function queryOf(url: string): URLSearchParams {
  return new URL(url, RELATIVE_BASE).searchParams;
}

/** The raw path part of a url as written (before any `?` or `#`, origin removed), not normalised. */
export function rawPathOf(url: string): string {
  const beforeQuery = url.split(/[?#]/, 1)[0] ?? '';
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(beforeQuery);
  return origin ? beforeQuery.slice(origin[0].length) : beforeQuery;
}

/** A responder that never answers on its own: it rejects when the request's signal aborts. */
export function neverAnswer(call: RecordedCall): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    // Safety net so that a proxy which forgets the signal cannot hang the suite forever.
    const timer = setTimeout(() => resolve({ status: 200, body: [] }), 5000);
    const signal = call.signal;
    if (!signal) return;
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      },
      { once: true },
    );
  });
}

type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Wrap a fetch so that every `RequestInit` it receives is kept (credentials, signal, ...). */
export function capturingInit(inner: FetchFunction): FetchFunction & { inits: RequestInit[] } {
  const inits: RequestInit[] = [];
  const wrapped = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    inits.push(init ?? {});
    return inner(input, init);
  };
  return Object.assign(wrapped, { inits });
}

/** A promise with its resolve function exposed. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Ids carried by a batched destroy body: `[2, 3]`, `[{ id: 2 }, { id: 3 }]` or one such item. */
export function idsInBody(json: unknown): unknown[] {
  const items = Array.isArray(json) ? json : [json];
  return items.map((item: unknown) => {
    if (typeof item === 'object' && item !== null && 'id' in item) return item.id;
    return item;
  });
}

/** Narrow a JSON body to a plain object (fails the test otherwise). */
export function objectBody(json: unknown): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new Error(`expected a JSON object body, got ${JSON.stringify(json)}`);
  }
  return Object.fromEntries(Object.entries(json));
}

/**
 * A responder that behaves like a REST server: a POST is answered 201 with its body plus an id
 * the server assigned (per item for an array body), GET with `[]`, DELETE with 204, other
 * writes with their body echoed. (A create answered without any id is a failure by contract.)
 */
export function serverLike(firstId = 100): (call: RecordedCall) => Answer {
  let nextId = firstId;
  const assignId = (item: unknown): unknown =>
    typeof item === 'object' && item !== null && !Array.isArray(item) ? { ...item, id: nextId++ } : item;
  return (call) => {
    switch (call.method) {
      case 'POST':
        return { status: 201, body: Array.isArray(call.json) ? call.json.map(assignId) : assignId(call.json ?? {}) };
      case 'GET':
        return { body: [] };
      case 'DELETE':
        return { status: 204 };
      default:
        return { status: 200, body: call.json ?? {} };
    }
  };
}
