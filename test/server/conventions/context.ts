// What every convention gets, and the one function it implements.
import type { Store } from '../store.js';
import type { Reply, Row } from '../types.js';
import type { NestedAttributes } from './railsNested.js';

export interface ApiRequest {
  /** HEAD arrives here as GET (the server drops the body afterwards) */
  method: string;
  path: string;
  url: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: string;
}

export interface Context {
  store: Store;
  /** 'http://127.0.0.1:PORT' */
  base: string;
  basePath: string;
  envelope: boolean;
  /** plain mode: Idempotency-Key -> the request (path and body) first applied under it, and its answer */
  idempotency: Map<string, { request: string; reply: Reply }>;
  /** rails: accepts_nested_attributes_for, per parent collection (see railsNested.ts) */
  nested?: NestedAttributes;
}

/** A convention answers one request synchronously; it may change the store. */
export type Convention = (req: ApiRequest, ctx: Context) => Reply;

/** Absolute origin as the client addressed it (frameworks build links from the Host header). */
export function origin(req: ApiRequest, ctx: Context): string {
  return req.headers.host ? `http://${req.headers.host}` : ctx.base;
}

/** The last value of a query param that was given with a non-empty value. */
export function lastParam(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  return values[values.length - 1];
}

/** Copy of a row without some keys (e.g. the id for JSON:API attributes). */
export function without(row: Row, ...keys: string[]): Row {
  const copy: Row = { ...row };
  for (const key of keys) delete copy[key];
  return copy;
}

/** 'first_name' -> 'first name', as Laravel and Rails word field names. */
export function humanize(field: string): string {
  return field.replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
