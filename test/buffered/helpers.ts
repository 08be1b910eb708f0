/**
 * What the BufferedStore tests share: a model, rows the test server computes on request (any
 * number of them, so a million costs nothing), and a fetch gate that holds each page read "in
 * flight" until the test lets it go to the real server (request orders without timing).
 */
import { BufferedStore, type BufferedStoreConfig } from '../../src/buffered.js';
import { Model } from '../../src/index.js';
import type { TestServer } from '../server/index.js';

export class Order extends Model<{ id: number; title: string; amount: number }> {
  static override fields = ['id', 'title', 'amount'];
  static override entityName = 'orders';
}

export interface RowsOptions {
  /** Send the total (X-Total-Count, in the plain envelope's `total`)? Default true. */
  total?: boolean;
  /** Only rows with id in this set remain (a server that deleted some). */
  gone?: ReadonlySet<number>;
}

/** The row at server index `index` for a sort direction (ids 1..n ascending, or n..1). */
export function rowAt(index: number, n: number, descending: boolean): { id: number; title: string; amount: number } {
  const id = descending ? n - index : index + 1;
  return { id, title: `Order ${id}`, amount: id % 97 };
}

/**
 * GET /orders computed on request: `start`/`limit` paging, `sort` on id (ASC or DESC), a filter
 * `amount` = value keeping rows whose amount matches (computed by scanning: small n only).
 */
export function computedRows(server: TestServer, n: number, options: RowsOptions = {}): void {
  server.respond('GET', /^\/orders(\?|$)/, (req) => {
    const start = Number(req.query.get('start') ?? 0);
    const limit = Number(req.query.get('limit') ?? 25);
    const sort = req.query.get('sort');
    const descending = sort !== null && sort.includes('DESC');
    const filter = req.query.get('filter');
    let rows: { id: number; title: string; amount: number }[];
    let total = n;
    if (filter !== null) {
      const parsed: unknown = JSON.parse(filter);
      const first: unknown = Array.isArray(parsed) ? parsed[0] : undefined;
      const value = typeof first === 'object' && first !== null ? Number(Reflect.get(first, 'value')) : NaN;
      const all = Array.from({ length: n }, (_, index) => rowAt(index, n, descending)).filter((row) => row.amount === value);
      total = all.length;
      rows = all.slice(start, start + limit);
    } else {
      rows = [];
      for (let index = start; index < Math.min(n, start + limit); index++) rows.push(rowAt(index, n, descending));
    }
    const headers: Record<string, string> = options.total === false ? {} : { 'X-Total-Count': String(total) };
    return { status: 200, headers, body: rows };
  });
}

export interface Gate {
  fetch: typeof fetch;
  /** The url of every read started by the library, in order (path and query). */
  readonly started: string[];
  /** The page numbers started, in order. */
  pages(): number[];
  /** How many reads wait for the test. */
  readonly held: number;
  /** Let the oldest held read (or all) go to the server; resolves once their answers are in the library's hands. */
  release(count?: number): Promise<void>;
  /** Let the reads go one at a time, each once the library started it, until none starts (bounded). */
  drain(): Promise<void>;
  /** Let every read go as soon as it starts from now on. */
  open(): void;
}

/** A fetch that holds each GET until released (writes go at once); `ignoreAbort`: a held read is answered though aborted (a late answer). */
export function gate(ignoreAbort = false): Gate {
  const started: string[] = [];
  const queue: { go: () => void; done: Promise<unknown> }[] = [];
  let opened = false;
  const gated: typeof fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? 'GET';
    if (method !== 'GET') return fetch(input, init);
    started.push(url.replace(/^https?:\/\/[^/]+/, ''));
    if (opened) return fetch(input, init);
    let go = (): void => undefined;
    const allowed = new Promise<void>((resolve, reject) => {
      go = resolve;
      if (!ignoreAbort) init?.signal?.addEventListener('abort', () => reject(init.signal?.reason ?? new DOMException('aborted', 'AbortError')), { once: true });
    });
    const done = allowed.then(() => fetch(input, ignoreAbort ? { ...init, signal: null } : init));
    queue.push({ go, done: done.catch(() => undefined) });
    return done;
  };
  return {
    fetch: gated,
    started,
    pages: () => started.map((url) => Number(new URL(url, 'http://x').searchParams.get('page'))),
    get held() {
      return queue.length;
    },
    async release(count?: number) {
      // The reads the library starts in a later microtask or turn: waited for (bounded).
      for (let turn = 0; turn < 20 && queue.length === 0; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
      const going = queue.splice(0, count ?? queue.length);
      for (const entry of going) entry.go();
      await Promise.all(going.map((entry) => entry.done));
      // The answers' bodies read and taken in (a few turns of the event loop).
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
    },
    async drain() {
      for (let round = 0; round < 100; round++) {
        for (let turn = 0; turn < 20 && queue.length === 0; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
        if (queue.length === 0) return;
        await this.release(1);
      }
    },
    open() {
      opened = true;
      for (const entry of queue.splice(0)) entry.go();
    },
  };
}

/** Every microtask and pending timer callback of now has run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** A BufferedStore of orders on `url` (total in X-Total-Count), reading through the gate when given; `made` collects it for destroy. */
export function ordersStore(url: string, g: Gate | undefined, config: BufferedStoreConfig<Order>, made: BufferedStore<Order>[]): BufferedStore<Order> {
  const store = new BufferedStore<Order>({
    model: Order,
    proxy: { url: `${url}/orders`, noCache: false, reader: { totalHeader: 'X-Total-Count' }, ...(g ? { fetch: g.fetch } : {}) },
    ...config,
  });
  made.push(store);
  return store;
}
