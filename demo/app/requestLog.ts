import type { FetchFunction, RequestHookContext } from '../../src/index.js';

/** One request the proxy sent, as the log shows it. */
export interface LogEntry {
  readonly id: number;
  readonly method: string;
  /** Path and query, decoded for reading. */
  readonly url: string;
  /** What the body holds, e.g. `3 records`; undefined without a body. */
  readonly body: string | undefined;
  /** The HTTP status; 0 while pending or when there was no answer. */
  status: number;
  statusText: string;
  /** Milliseconds until the answer (or the failure). */
  ms: number | undefined;
  /** Why there was no answer (network error, aborted). */
  failure: string | undefined;
  /** 1 for the first try, 2 for the first retry, ... */
  readonly attempt: number;
}

function readableUrl(input: string): string {
  const url = new URL(input, location.href);
  const text = url.origin === location.origin ? `${url.pathname}${url.search}` : url.href;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function describeBody(body: RequestInit['body']): string | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const data: unknown = JSON.parse(body);
    if (Array.isArray(data)) return `${data.length} record${data.length === 1 ? '' : 's'}`;
    return '1 record';
  } catch {
    return `${body.length} bytes`;
  }
}

/**
 * Records every request made through its `fetch`, which the User proxy is given as its `fetch`
 * option (and its `onRequest` hook, for the try number): so the log shows what the proxy really
 * sends, verb, url, status and time, retries included.
 */
export class RequestLog {
  readonly entries: LogEntry[] = [];
  /** The page's Offline switch: every request fails as a browser's fetch does with no network. */
  offline = false;
  #listeners = new Set<(entry: LogEntry) => void>();
  #nextId = 1;
  /** The try number of each url about to be fetched, from the proxy's onRequest hook. */
  #attempts = new Map<string, number>();

  /** The proxy's `onRequest` hook: it tells which try of a request comes next (retries). */
  readonly onRequest = ({ url, attempt }: RequestHookContext): void => {
    this.#attempts.set(url, attempt);
  };

  /** A fetch that logs, then calls the browser's. */
  readonly fetch: FetchFunction = async (input, init) => {
    const attempt = this.#attempts.get(input) ?? 1;
    this.#attempts.delete(input);
    const entry: LogEntry = {
      id: this.#nextId++,
      method: (init.method ?? 'GET').toUpperCase(),
      url: readableUrl(input),
      body: describeBody(init.body),
      status: 0,
      statusText: '',
      ms: undefined,
      failure: undefined,
      attempt,
    };
    this.entries.push(entry);
    this.#emit(entry);
    const started = performance.now();
    try {
      if (this.offline) throw new TypeError('Failed to fetch (the page is offline)');
      const response = await fetch(input, init);
      entry.status = response.status;
      entry.statusText = response.statusText;
      return response;
    } catch (error) {
      const aborted = error instanceof DOMException && error.name === 'AbortError';
      entry.failure = aborted ? 'aborted' : this.offline ? 'offline' : 'no answer';
      throw error;
    } finally {
      entry.ms = Math.round(performance.now() - started);
      this.#emit(entry);
    }
  };

  /** Hear of each new entry and of each entry that completes. Returns the unsubscribe function. */
  subscribe(listener: (entry: LogEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  clear(): void {
    this.entries.length = 0;
  }

  #emit(entry: LogEntry): void {
    for (const listener of this.#listeners) listener(entry);
  }
}

export const requestLog = new RequestLog();
