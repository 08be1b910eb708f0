// What the browser-side test server (remote.ts) and the hub (hub.ts) say to each other; no I/O here.
import type { ChaosOptions, Db, Fault, RecordedRequest, Row, ScriptedResponder, ServerStats, TestServerOptions } from './types.js';

type ServerOp = 'db' | 'requests' | 'stats' | 'reset' | 'close';
type RouteOp = 'routeCalls' | 'removeRoute';

/** One call to the hub; `id` names a test server the hub started, `route` a route of `respond`. */
export type HubCall =
  | { op: 'start'; options: TestServerOptions<object> }
  | { [K in ServerOp]: { op: K; id: number } }[ServerOp]
  | { op: 'setRows'; id: number; collection: string; rows: Row[] | null }
  | { op: 'inject'; id: number; fault: Fault }
  | { op: 'respond'; id: number; method: string; path: string | RegExp; answer: ScriptedResponder; times: number | undefined }
  | { [K in RouteOp]: { op: K; id: number; route: number } }[RouteOp]
  | { op: 'chaos'; id: number; options: ChaosOptions | null };

/** A recorded request on the wire: URLSearchParams is not JSON, so the query travels as pairs. */
export type WireRequest = Omit<RecordedRequest, 'query'> & { query: [string, string][] };

export interface HubResults {
  start: { id: number; url: string };
  db: Db;
  requests: WireRequest[];
  stats: ServerStats;
  reset: null;
  close: null;
  setRows: null;
  inject: null;
  respond: { route: number };
  routeCalls: number;
  removeRoute: null;
  chaos: null;
}

/** The hub answers `{ value }` or, with status 500, `{ error }`. */
export type HubAnswer<K extends HubCall['op']> = { value: HubResults[K] } | { error: string };

/**
 * JSON that keeps what faults and routes are made of: RegExps, Infinity (`times`) and, towards
 * the hub only, functions (as source text, see `reviveFunctions`).
 */
export function encode(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item instanceof RegExp) return { $regexp: [item.source, item.flags] };
    if (typeof item === 'number' && !Number.isFinite(item)) return { $number: String(item) };
    if (typeof item === 'function') return { $function: item.toString() };
    return item;
  });
}

/** The reviver for `JSON.parse`; `makeFunction` turns function source back into a function (hub only). */
export function reviver(makeFunction?: (source: string) => unknown): (key: string, item: unknown) => unknown {
  return (_key, item) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
    if ('$regexp' in item && Array.isArray(item.$regexp)) return new RegExp(String(item.$regexp[0]), String(item.$regexp[1]));
    if ('$number' in item) return Number(item.$number);
    if ('$function' in item && typeof item.$function === 'string') {
      if (!makeFunction) throw new TypeError('functions are not expected here');
      return makeFunction(item.$function);
    }
    return item;
  };
}
