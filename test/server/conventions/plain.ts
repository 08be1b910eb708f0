// Plain conventions: what an Ext-style Rest proxy with default options talks to (API.md).
import { emptyReply, isJsonMediaType, isObject, jsonReply, parseJson } from '../http.js';
import { plainList } from '../query.js';
import { itemUrl, parseRoute, scopeOf, type ResourceRoute } from '../routes.js';
import type { Scope } from '../store.js';
import type { Reply, Row } from '../types.js';
import type { ApiRequest, Context, Convention } from './context.js';

const notFound = (): Reply => jsonReply(404, { success: false, message: 'Not found' });
const malformed = (): Reply => jsonReply(400, { message: 'Malformed JSON' });

interface Call {
  req: ApiRequest;
  ctx: Context;
  route: ResourceRoute;
  scope: Scope | undefined;
}

export const plain: Convention = (req, ctx) => {
  const route = parseRoute(req.path, ctx.basePath, ctx.store);
  if (route.kind === 'root') {
    return jsonReply(200, Object.fromEntries(Object.keys(ctx.store.db).map((name) => [name, `${ctx.base}/${name}`])));
  }
  if (route.kind === 'unknown') return notFound();
  const scope = scopeOf(route, ctx.store);
  if (scope === 'missing') return notFound();
  const call: Call = { req, ctx, route, scope };
  const onItem = route.id !== undefined;
  const allow = onItem ? 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS' : 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS';
  switch (req.method) {
    case 'OPTIONS':
      return emptyReply(204, { Allow: allow });
    case 'GET':
      return onItem ? readOne(call) : list(call);
    case 'POST':
      return onItem ? jsonReply(405, { success: false, message: 'Method not allowed' }, { Allow: allow }) : idempotent(call, () => create(call));
    case 'PUT':
    case 'PATCH':
      return onItem ? update(call, req.method === 'PUT') : updateMany(call, req.method === 'PUT');
    case 'DELETE':
      return onItem ? destroy(call) : destroyMany(call);
    default:
      return jsonReply(405, { success: false, message: 'Method not allowed' }, { Allow: allow });
  }
};

/** A JSON body, or the 415/400 answer. */
function readBody(req: ApiRequest): { value: unknown } | Reply {
  if (!isJsonMediaType(req.headers['content-type'])) return jsonReply(415, { message: 'Content-Type must be application/json' });
  if (req.body.trim() === '') return { value: {} };
  const parsed = parseJson(req.body);
  return parsed.ok ? { value: parsed.value } : malformed();
}

const isReply = (value: { value: unknown } | Reply): value is Reply => 'status' in value;

/** Splits Ext's clientId off a body item: it is echoed back, never stored. */
function splitClientId(item: Row): { data: Row; echo: Row } {
  const { clientId, ...data } = item;
  return { data, echo: clientId === undefined ? {} : { clientId } };
}

function validationError(errors: string[], index?: number): Reply {
  const body: Record<string, unknown> = { errors: Object.fromEntries(errors.map((field) => [field, ['is required']])) };
  if (index !== undefined) body.index = index;
  return jsonReply(422, body);
}

function ifMatchFails(call: Call, row: Row): Reply | undefined {
  const header = call.req.headers['if-match'];
  if (header === undefined) return undefined;
  const current = call.ctx.store.etag(row);
  const tags = header.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (tags.includes('*') || tags.includes(current)) return undefined;
  return jsonReply(412, row, { ETag: current });
}

/**
 * Replays the first successful answer to a POST with an already seen Idempotency-Key; refuses
 * (422, as the IETF draft and Stripe do) the key reused for another path or body.
 */
function idempotent(call: Call, apply: () => Reply): Reply {
  const key = call.req.headers['idempotency-key'];
  if (!key) return apply();
  const request = `${call.req.path}\n${call.req.body}`;
  const seen = call.ctx.idempotency.get(key);
  if (seen && seen.request !== request) return jsonReply(422, { message: 'Idempotency-Key reused with a different request' });
  if (seen) return { ...seen.reply, headers: { ...seen.reply.headers, 'Idempotent-Replayed': 'true' } };
  const reply = apply();
  if (reply.status >= 200 && reply.status < 300) call.ctx.idempotency.set(key, { request, reply });
  return reply;
}

function list({ req, ctx, route, scope }: Call): Reply {
  const { total, rows } = plainList(ctx.store.rows(route.collection, scope), req.query);
  const headers = { 'X-Total-Count': String(total) };
  return ctx.envelope ? jsonReply(200, { success: true, total, data: rows }, headers) : jsonReply(200, rows, headers);
}

function readOne({ req, ctx, route, scope }: Call): Reply {
  const row = ctx.store.find(route.collection, route.id ?? '', scope);
  if (!row) return notFound();
  const etag = ctx.store.etag(row);
  if (req.headers['if-none-match'] === etag) return emptyReply(304, { ETag: etag });
  return jsonReply(200, row, { ETag: etag });
}

function create(call: Call): Reply {
  const { ctx, route, scope } = call;
  const body = readBody(call.req);
  if (isReply(body)) return body;
  const items = Array.isArray(body.value) ? body.value : [body.value];
  if (!items.every(isObject)) return jsonReply(400, { message: 'Body must be an object or an array of objects' });
  const split = items.map(splitClientId);
  // Validate everything first so a batch is all or nothing.
  for (const [index, { data }] of split.entries()) {
    const missing = ctx.store.missing(route.collection, data);
    if (missing.length > 0) return validationError(missing, Array.isArray(body.value) ? index : undefined);
  }
  const stored = split.map(({ data, echo }) => ({ row: ctx.store.insert(route.collection, data, scope), echo }));
  if (Array.isArray(body.value)) return jsonReply(201, stored.map(({ row, echo }) => ({ ...row, ...echo })));
  const [first] = stored;
  if (!first) return notFound();
  return jsonReply(201, { ...first.row, ...first.echo }, {
    Location: itemUrl(ctx.base, route, first.row.id),
    ETag: ctx.store.etag(first.row),
  });
}

function update(call: Call, replace: boolean): Reply {
  const { ctx, route, scope } = call;
  const row = ctx.store.find(route.collection, route.id ?? '', scope);
  if (!row) return notFound();
  // Preconditions are checked before the body is even looked at (RFC 9110 §13.2.2).
  const precondition = ifMatchFails(call, row);
  if (precondition) return precondition;
  const body = readBody(call.req);
  if (isReply(body)) return body;
  if (!isObject(body.value)) return jsonReply(400, { message: 'Body must be an object' });
  const { data, echo } = splitClientId(body.value);
  const missing = ctx.store.missing(route.collection, replace ? data : { ...row, ...data });
  if (missing.length > 0) return validationError(missing);
  if (replace) ctx.store.replace(row, data, scope);
  else ctx.store.merge(row, data);
  return jsonReply(200, { ...row, ...echo }, { ETag: ctx.store.etag(row) });
}

/** PUT/PATCH on the collection with an array: each item by its id, all or nothing. */
function updateMany(call: Call, replace: boolean): Reply {
  const { ctx, route, scope } = call;
  const body = readBody(call.req);
  if (isReply(body)) return body;
  if (!Array.isArray(body.value) || !body.value.every(isObject)) return jsonReply(400, { message: 'Body must be an array of objects' });
  const plan: { row: Row; data: Row; echo: Row }[] = [];
  for (const [index, item] of body.value.entries()) {
    const { data, echo } = splitClientId(item);
    const row = data.id === undefined ? undefined : ctx.store.find(route.collection, String(data.id), scope);
    if (!row) return notFound();
    const missing = ctx.store.missing(route.collection, replace ? data : { ...row, ...data });
    if (missing.length > 0) return validationError(missing, index);
    plan.push({ row, data, echo });
  }
  const answer = plan.map(({ row, data, echo }) => {
    if (replace) ctx.store.replace(row, data, scope);
    else ctx.store.merge(row, data);
    return { ...row, ...echo };
  });
  return jsonReply(200, answer);
}

function destroy(call: Call): Reply {
  const { ctx, route, scope } = call;
  const row = ctx.store.find(route.collection, route.id ?? '', scope);
  if (!row) return notFound();
  const precondition = ifMatchFails(call, row);
  if (precondition) return precondition;
  ctx.store.remove(route.collection, row);
  return emptyReply(204);
}

/** DELETE on the collection with a JSON array of ids or of objects with ids, all or nothing. */
function destroyMany(call: Call): Reply {
  const { ctx, route, scope } = call;
  const body = readBody(call.req);
  if (isReply(body)) return body;
  if (!Array.isArray(body.value)) return jsonReply(400, { message: 'Body must be an array of ids or records' });
  const rows: Row[] = [];
  for (const item of body.value) {
    const id = isObject(item) ? item.id : item;
    const row = id === undefined || id === null ? undefined : ctx.store.find(route.collection, String(id), scope);
    if (!row) return notFound();
    rows.push(row);
  }
  for (const row of rows) ctx.store.remove(route.collection, row);
  return emptyReply(204);
}
