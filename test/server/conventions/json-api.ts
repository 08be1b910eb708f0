// JSON:API 1.x resource endpoints, with the shapes in API.md.
import { emptyReply, isObject, jsonReply, mediaType, parseJson } from '../http.js';
import { looseEquals, sortRows, type Sorter } from '../query.js';
import { itemUrl, parseRoute, scopeOf, type ResourceRoute } from '../routes.js';
import { isBlank, type Scope } from '../store.js';
import type { Reply, Row } from '../types.js';
import { lastParam, origin, without, type ApiRequest, type Context, type Convention } from './context.js';

const MEDIA_TYPE = 'application/vnd.api+json';
const DEFAULT_PAGE_SIZE = 10;

interface Call {
  req: ApiRequest;
  ctx: Context;
  route: ResourceRoute;
  scope: Scope | undefined;
}

const api = (status: number, value: unknown, headers: Record<string, string> = {}): Reply => jsonReply(status, value, headers, MEDIA_TYPE);

function apiError(status: number, title: string, detail?: string): Reply {
  const error: Row = { status: String(status), title };
  if (detail !== undefined) error.detail = detail;
  return api(status, { errors: [error] });
}

/** `{ type, id (string), attributes }`: the id never appears among the attributes. */
function resource(collection: string, row: Row): Row {
  return { type: collection, id: String(row.id), attributes: without(row, 'id') };
}

export const jsonApi: Convention = (req, ctx) => {
  const route = parseRoute(req.path, ctx.basePath, ctx.store);
  if (route.kind !== 'resource') return apiError(404, 'Not Found', 'No route matches this path');
  const scope = scopeOf(route, ctx.store);
  if (scope === 'missing') return apiError(404, 'Not Found', 'Parent resource not found');
  const call: Call = { req, ctx, route, scope };
  if (route.id === undefined) {
    if (req.method === 'GET') return list(call);
    if (req.method === 'POST') return create(call);
    return apiError(405, 'Method Not Allowed');
  }
  if (!['GET', 'PATCH', 'DELETE'].includes(req.method)) return apiError(405, 'Method Not Allowed');
  const row = ctx.store.find(route.collection, route.id, scope);
  if (!row) return apiError(404, 'Not Found', `${route.collection} ${route.id} not found`);
  if (req.method === 'GET') return api(200, { data: resource(route.collection, row) });
  if (req.method === 'DELETE') {
    ctx.store.remove(route.collection, row);
    return emptyReply(204);
  }
  return update(call, row);
};

/** `sort=-name,age` */
function sorters(query: URLSearchParams): Sorter[] {
  return (lastParam(query, 'sort') ?? '')
    .split(',')
    .map((field) => field.trim())
    .filter((field) => field !== '')
    .map((field): Sorter => ({ property: field.replace(/^-/, ''), direction: field.startsWith('-') ? 'DESC' : 'ASC' }));
}

/** `filter[name]=Ed`; a comma-separated value matches any of its items. */
function filtered(rows: Row[], query: URLSearchParams): Row[] {
  let result = rows;
  for (const [key, value] of query) {
    const field = /^filter\[([^\]]+)\]$/.exec(key)?.[1];
    if (!field) continue;
    const wanted = value.split(',');
    result = result.filter((row) => wanted.some((item) => looseEquals(row[field], item)));
  }
  return result;
}

function positive(raw: string | undefined, fallback: number): number {
  const value = raw !== undefined && /^\s*\d+\s*$/.test(raw) ? Number.parseInt(raw, 10) : NaN;
  return value >= 1 ? value : fallback;
}

function list({ req, ctx, route, scope }: Call): Reply {
  const rows = sortRows(filtered(ctx.store.rows(route.collection, scope), req.query), sorters(req.query));
  let data = rows;
  if (req.query.has('page[number]') || req.query.has('page[size]')) {
    const number = positive(lastParam(req.query, 'page[number]'), 1);
    const size = positive(lastParam(req.query, 'page[size]'), DEFAULT_PAGE_SIZE);
    data = rows.slice((number - 1) * size, number * size);
  }
  return api(200, { data: data.map((row) => resource(route.collection, row)), meta: { total: rows.length } });
}

/** `{ data: { type, id?, attributes, relationships? } }` sent as application/vnd.api+json. */
function document(call: Call): { type: unknown; id: unknown; attributes: Row } | Reply {
  const { req } = call;
  if (mediaType(req.headers['content-type']) !== MEDIA_TYPE) return apiError(415, 'Unsupported Media Type', `Content-Type must be ${MEDIA_TYPE}`);
  const parsed = parseJson(req.body);
  if (!parsed.ok) return apiError(400, 'Bad Request', 'Malformed JSON');
  const data = isObject(parsed.value) ? parsed.value.data : undefined;
  if (!isObject(data)) return apiError(400, 'Bad Request', 'The request must contain a primary data object');
  if (data.type !== call.route.collection) return apiError(409, 'Conflict', `Type must be ${call.route.collection}`);
  const attributes: Row = isObject(data.attributes) ? without(data.attributes, 'id') : {};
  // A to-one relationship `user: { data: { type, id } }` is stored as the foreign key userId.
  if (isObject(data.relationships)) {
    for (const [name, relationship] of Object.entries(data.relationships)) {
      const target = isObject(relationship) ? relationship.data : undefined;
      if (isObject(target) && target.id !== undefined) attributes[`${name}Id`] = /^\d+$/.test(String(target.id)) ? Number(target.id) : target.id;
    }
  }
  return { type: data.type, id: data.id, attributes };
}

function invalid(call: Call, record: Row): Reply | undefined {
  const failing = call.ctx.store.requiredFields(call.route.collection).filter((field) => isBlank(record[field]));
  if (failing.length === 0) return undefined;
  return api(422, {
    errors: failing.map((field) => ({ status: '422', source: { pointer: `/data/attributes/${field}` }, detail: "can't be blank" })),
  });
}

function create(call: Call): Reply {
  const doc = document(call);
  if ('status' in doc) return doc;
  const failure = invalid(call, doc.attributes);
  if (failure) return failure;
  const row = call.ctx.store.insert(call.route.collection, doc.attributes, call.scope);
  return api(201, { data: resource(call.route.collection, row) }, { Location: itemUrl(origin(call.req, call.ctx), call.route, row.id) });
}

function update(call: Call, row: Row): Reply {
  const doc = document(call);
  if ('status' in doc) return doc;
  if (doc.id !== undefined && String(doc.id) !== String(row.id)) return apiError(409, 'Conflict', 'The id does not match the URL');
  const failure = invalid(call, { ...row, ...doc.attributes });
  if (failure) return failure;
  call.ctx.store.merge(row, doc.attributes);
  return api(200, { data: resource(call.route.collection, row) });
}
