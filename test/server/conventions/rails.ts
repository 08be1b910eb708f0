// Rails 6.1 API scaffold in production mode, as shared/reference/rails-behaviour.md describes it.
import { createHash, randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { emptyReply, isObject, jsonReply, mediaType, parseForm, parseJson } from '../http.js';
import { sortRows } from '../query.js';
import { itemUrl, parseRoute, scopeOf, type ResourceRoute } from '../routes.js';
import { singular, type Scope, type Store } from '../store.js';
import type { Reply, Row } from '../types.js';
import { applyNested, nestedErrors, rendered, takeNested } from './railsNested.js';
import { lastParam, origin, type ApiRequest, type Context, type Convention } from './context.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const FALSE_VALUES = new Set(['0', 'f', 'F', 'false', 'FALSE', 'off', 'OFF']);
const TIMESTAMPS = ['created_at', 'updated_at'];

interface Call {
  req: ApiRequest;
  ctx: Context;
  route: ResourceRoute;
  scope: Scope | undefined;
  /** errors are JSON only for `Accept: application/json` or a .json suffix */
  json: boolean;
}

// Rails ignores Accept lists that contain the */* wildcard (browsers, fetch's default): those get HTML.
function acceptsJson(accept: string | undefined): boolean {
  const types = (accept ?? '').split(',').map((entry) => mediaType(entry)).filter((type) => type !== '');
  return types.length > 0 && !types.includes('*/*') && types[0] === 'application/json';
}

function railsHeaders(): Record<string, string> {
  return { 'X-Request-Id': randomUUID(), 'X-Runtime': '0.002000' };
}

/** 404/400 in production: JSON for JSON requests, else an empty text/html body. */
function error(call: Pick<Call, 'json'>, status: number): Reply {
  if (call.json) return jsonReply(status, { status, error: STATUS_CODES[status] ?? 'Error' }, railsHeaders(), 'application/json; charset=UTF-8');
  return emptyReply(status, { 'Content-Type': 'text/html', ...railsHeaders() });
}

/** Success JSON; 200/201 bodies get Rack's weak ETag, and a matching If-None-Match on GET is a 304. */
function ok(call: Call, status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  const reply = jsonReply(status, value, { ...headers, ...railsHeaders() }, JSON_TYPE);
  const etag = `W/"${createHash('md5').update(reply.body ?? '').digest('hex')}"`;
  reply.headers.ETag = etag;
  reply.headers['Cache-Control'] = 'max-age=0, private, must-revalidate';
  if (call.req.method === 'GET' && call.req.headers['if-none-match'] === etag) return emptyReply(304, { ETag: etag, ...railsHeaders() });
  return reply;
}

export const rails: Convention = (req, ctx) => {
  const route = parseRoute(req.path, ctx.basePath, ctx.store);
  const json = (route.kind === 'resource' && route.suffix === 'json') || acceptsJson(req.headers.accept);
  if (route.kind !== 'resource') return error({ json }, 404);
  const scope = scopeOf(route, ctx.store);
  if (scope === 'missing') return error({ json }, 404);
  const call: Call = { req, ctx, route, scope, json };
  if (route.id === undefined) {
    if (req.method === 'GET') return index(call);
    if (req.method === 'POST') return create(call);
    return error(call, 404); // no route matches
  }
  const row = ctx.store.find(route.collection, route.id, scope);
  if (!['GET', 'PUT', 'PATCH', 'DELETE'].includes(req.method)) return error(call, 404);
  if (!row) return error(call, 404); // ActiveRecord::RecordNotFound
  if (req.method === 'GET') return ok(call, 200, ctx.nested?.[route.collection] ? rendered(ctx.store, row, ctx.nested, route.collection) : row);
  if (req.method === 'DELETE') {
    ctx.store.remove(route.collection, row);
    return emptyReply(204, { 'Cache-Control': 'no-cache', ...railsHeaders() });
  }
  return update(call, row);
};

/** Ruby's String#to_i: the leading integer, or 0. */
function toI(raw: string | undefined): number {
  const value = Number.parseInt(raw ?? '', 10);
  return Number.isNaN(value) ? 0 : value;
}

/** Ordered by id; either page or per_page turns paging on; X-Total-Count always. */
function index(call: Call): Reply {
  const { req, ctx, route, scope } = call;
  const rows = sortRows(ctx.store.rows(route.collection, scope), [{ property: 'id', direction: 'ASC' }]);
  const headers: Record<string, string> = { 'X-Total-Count': String(rows.length) };
  if (!req.query.has('page') && !req.query.has('per_page')) return ok(call, 200, rows, headers);
  const pageRaw = lastParam(req.query, 'page');
  const perPageRaw = lastParam(req.query, 'per_page');
  const page = Math.max(1, pageRaw === undefined ? 1 : toI(pageRaw));
  let perPage = perPageRaw === undefined ? 10 : toI(perPageRaw);
  if (perPage < 1) perPage = 10;
  perPage = Math.min(perPage, 100);
  headers['X-Page'] = String(page);
  headers['X-Per-Page'] = String(perPage);
  return ok(call, 200, rows.slice((page - 1) * perPage, page * perPage), headers);
}

/**
 * params.require(:user).permit(...): `{ "user": {...} }`, or a bare body that ParamsWrapper wraps
 * (only keys that are column names). A missing or empty root is a 400.
 */
function params(call: Call): { attrs: Row; children: Exclude<ReturnType<typeof takeNested>, 'bad'> } | Reply {
  const { req, ctx, route } = call;
  const type = mediaType(req.headers['content-type']);
  let parsed: unknown = {};
  if (type === 'application/json' && req.body.trim() !== '') {
    const result = parseJson(req.body);
    if (!result.ok) return error(call, 400);
    parsed = result.value;
  } else if (type === 'application/x-www-form-urlencoded') {
    parsed = parseForm(req.body);
  }
  // Other content types: Rails does not parse the body at all.
  if (!isObject(parsed)) return error(call, 400);
  const root = singular(route.collection);
  const columns = ctx.store.columns(route.collection);
  const known = (key: string): boolean => (columns ? columns.has(key) || key === 'id' || TIMESTAMPS.includes(key) : !key.startsWith('_'));
  const wrapped = root in parsed ? parsed[root] : Object.fromEntries(Object.entries(parsed).filter(([key]) => known(key)));
  if (!isObject(wrapped) || Object.keys(wrapped).length === 0) return error(call, 400);
  const children = takeNested(ctx.nested, route.collection, wrapped);
  if (children === 'bad') return error(call, 400);
  // Strong params: id, timestamps and unknown keys are dropped silently.
  const attrs: Row = {};
  for (const [key, value] of Object.entries(wrapped)) {
    if (key === 'id' || TIMESTAMPS.includes(key) || !known(key)) continue;
    attrs[key] = cast(ctx.store, route.collection, key, value);
  }
  return { attrs, children };
}

/** ActiveModel type casting: '42' -> 42, 'abc' -> 0, 'false' -> false, 'maybe' -> true, '' -> nil. */
function cast(store: Store, collection: string, key: string, value: unknown): unknown {
  const type = store.fieldType(collection, key);
  if (value === null || typeof value === 'object') return value;
  if (type === 'number' && typeof value !== 'number') {
    if (value === '') return null;
    const number = Number.parseFloat(String(value));
    return Number.isNaN(number) ? 0 : number;
  }
  if (type === 'boolean' && typeof value !== 'boolean') {
    if (value === '') return null;
    return !FALSE_VALUES.has(String(value)) && value !== 0;
  }
  if (type === 'string' && typeof value !== 'string') return String(value);
  return value;
}

/** Ruby's blank?: nil, false, whitespace-only strings, empty arrays and hashes. */
function blank(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

function invalid(ctx: Context, collection: string, record: Row): Record<string, string[]> | undefined {
  const failing = ctx.store.requiredFields(collection).filter((field) => blank(record[field]));
  if (failing.length === 0) return undefined;
  return Object.fromEntries(failing.map((field) => [field, ["can't be blank"]]));
}

function stamp(ctx: Context, collection: string, attrs: Row, created: boolean): void {
  const now = new Date().toISOString();
  if (created && ctx.store.hasField(collection, 'created_at')) attrs.created_at = now;
  if (ctx.store.hasField(collection, 'updated_at')) attrs.updated_at = now;
}

function create(call: Call): Reply {
  const { ctx, route, scope } = call;
  const result = params(call);
  if ('status' in result) return result;
  const children = nestedErrors(ctx.store, result.children, undefined);
  if (children === 'not found') return error(call, 404);
  const errors = { ...invalid(ctx, route.collection, result.attrs), ...children };
  if (Object.keys(errors).length > 0) return jsonReply(422, errors, railsHeaders(), JSON_TYPE);
  stamp(ctx, route.collection, result.attrs, true);
  const row = ctx.store.insert(route.collection, result.attrs, scope);
  const body = result.children.length > 0 || ctx.nested?.[route.collection] ? applyNested(ctx.store, result.children, row, ctx.nested, route.collection) : row;
  return ok(call, 201, body, { Location: itemUrl(origin(call.req, ctx), route, row.id) });
}

/** PUT and PATCH are the same partial update. */
function update(call: Call, row: Row): Reply {
  const { ctx, route } = call;
  const result = params(call);
  if ('status' in result) return result;
  const children = nestedErrors(ctx.store, result.children, row.id);
  if (children === 'not found') return error(call, 404);
  const errors = { ...invalid(ctx, route.collection, { ...row, ...result.attrs }), ...children };
  if (Object.keys(errors).length > 0) return jsonReply(422, errors, railsHeaders(), JSON_TYPE);
  stamp(ctx, route.collection, result.attrs, false);
  const merged = ctx.store.merge(row, result.attrs);
  return ok(call, 200, ctx.nested?.[route.collection] ? applyNested(ctx.store, result.children, merged, ctx.nested, route.collection) : merged);
}
