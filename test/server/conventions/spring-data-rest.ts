// Spring Data REST repository resources (HAL), with the shapes in API.md.
import { emptyReply, isJsonMediaType, isObject, jsonReply, parseJson } from '../http.js';
import { sortRows, type Sorter } from '../query.js';
import { parseRoute, scopeOf, type ResourceRoute } from '../routes.js';
import { isBlank, singular, type Scope } from '../store.js';
import type { Reply, Row } from '../types.js';
import { capitalize, lastParam, origin, without, type ApiRequest, type Context, type Convention } from './context.js';

const HAL = 'application/hal+json';
const DEFAULT_SIZE = 20;
const MAX_SIZE = 2000;

interface Call {
  req: ApiRequest;
  ctx: Context;
  route: ResourceRoute;
  scope: Scope | undefined;
}

const hal = (status: number, value: unknown, headers: Record<string, string> = {}): Reply => jsonReply(status, value, headers, HAL);

/** Spring's own error body (415, 400 parse errors). */
function springError(req: ApiRequest, status: number, error: string, message?: string): Reply {
  const body: Row = { timestamp: new Date().toISOString(), status, error, path: req.path };
  if (message !== undefined) body.message = message;
  return jsonReply(status, body);
}

/** The canonical item URL (also for rows reached through a nested path). */
function selfHref(call: Call, id: unknown): string {
  return `${origin(call.req, call.ctx)}${call.route.prefix}/${call.route.collection}/${encodeURIComponent(String(id))}`;
}

/** Records expose no id, only their self link. */
function entity(call: Call, row: Row): Row {
  return { ...without(row, 'id'), _links: { self: { href: selfHref(call, row.id) } } };
}

export const springDataRest: Convention = (req, ctx) => {
  const route = parseRoute(req.path, ctx.basePath, ctx.store);
  if (route.kind === 'root') {
    const links = Object.keys(ctx.store.db).map((name) => [name, { href: `${origin(req, ctx)}${req.path.replace(/\/$/, '')}/${name}{?page,size,sort}`, templated: true }]);
    return hal(200, { _links: Object.fromEntries(links) });
  }
  if (route.kind === 'unknown') return emptyReply(404);
  const scope = scopeOf(route, ctx.store);
  if (scope === 'missing') return emptyReply(404);
  const call: Call = { req, ctx, route, scope };
  if (route.id === undefined) {
    if (req.method === 'GET') return list(call);
    if (req.method === 'POST') return create(call);
    return emptyReply(405, { Allow: 'GET, HEAD, POST, OPTIONS' });
  }
  if (!['GET', 'PUT', 'PATCH', 'DELETE'].includes(req.method)) return emptyReply(405, { Allow: 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS' });
  // Spring Data REST answers a missing item with an empty 404.
  const row = ctx.store.find(route.collection, route.id, scope);
  if (!row) return emptyReply(404);
  if (req.method === 'GET') return hal(200, entity(call, row));
  if (req.method === 'DELETE') {
    ctx.store.remove(route.collection, row);
    return emptyReply(204);
  }
  return update(call, row, req.method === 'PUT');
};

/** `sort=name,asc&sort=age,desc`; a trailing asc/desc applies to every property before it. */
function sorters(query: URLSearchParams): Sorter[] {
  return query.getAll('sort').flatMap((param) => {
    const tokens = param.split(',').map((token) => token.trim()).filter((token) => token !== '');
    const last = tokens[tokens.length - 1]?.toLowerCase();
    const direction = last === 'desc' ? 'DESC' : 'ASC';
    const properties = last === 'asc' || last === 'desc' ? tokens.slice(0, -1) : tokens;
    return properties.map((property): Sorter => ({ property, direction }));
  });
}

function intParam(raw: string | undefined, fallback: number): number {
  const value = raw !== undefined && /^\s*-?\d+\s*$/.test(raw) ? Number.parseInt(raw, 10) : NaN;
  return Number.isNaN(value) ? fallback : value;
}

/** Always paged: page is 0-based, size defaults to 20. */
function list(call: Call): Reply {
  const { req, ctx, route, scope } = call;
  const rows = sortRows(ctx.store.rows(route.collection, scope), sorters(req.query));
  const number = Math.max(0, intParam(lastParam(req.query, 'page'), 0));
  let size = intParam(lastParam(req.query, 'size'), DEFAULT_SIZE);
  if (size < 1) size = DEFAULT_SIZE;
  size = Math.min(size, MAX_SIZE);
  const slice = rows.slice(number * size, (number + 1) * size);
  return hal(200, {
    _embedded: { [route.collection]: slice.map((row) => entity(call, row)) },
    page: { size, totalElements: rows.length, totalPages: Math.ceil(rows.length / size), number },
  });
}

/** The JSON body without id and _links, or Spring's 415/400. */
function readBody(call: Call): { data: Row } | Reply {
  const { req } = call;
  if (!isJsonMediaType(req.headers['content-type'])) return springError(req, 415, 'Unsupported Media Type');
  const parsed = parseJson(req.body);
  if (!parsed.ok) return springError(req, 400, 'Bad Request', `JSON parse error: ${parsed.error}`);
  if (!isObject(parsed.value)) return springError(req, 400, 'Bad Request', 'JSON parse error: expected an object');
  return { data: without(parsed.value, 'id', '_links') };
}

/** Bean validation through the repository event listener: 400 with one entry per field. */
function violations(call: Call, record: Row): Reply | undefined {
  const failing = call.ctx.store.requiredFields(call.route.collection).filter((field) => isBlank(record[field]));
  if (failing.length === 0) return undefined;
  const entityName = capitalize(singular(call.route.collection));
  return jsonReply(400, {
    errors: failing.map((property) => ({ entity: entityName, property, invalidValue: record[property] ?? null, message: 'must not be blank' })),
  });
}

function create(call: Call): Reply {
  const read = readBody(call);
  if ('status' in read) return read;
  const invalid = violations(call, read.data);
  if (invalid) return invalid;
  const row = call.ctx.store.insert(call.route.collection, read.data, call.scope);
  return hal(201, entity(call, row), { Location: selfHref(call, row.id) });
}

/** PUT replaces every property (missing ones become null); PATCH merges. */
function update(call: Call, row: Row, replace: boolean): Reply {
  const read = readBody(call);
  if ('status' in read) return read;
  const body = read.data;
  const next: Row = replace ? { ...Object.fromEntries(Object.keys(without(row, 'id')).map((key) => [key, null])), ...body } : { ...row, ...body };
  if (replace && call.scope) next[call.scope.field] = call.scope.value;
  const invalid = violations(call, next);
  if (invalid) return invalid;
  if (replace) call.ctx.store.replace(row, next, call.scope);
  else call.ctx.store.merge(row, body);
  return hal(200, entity(call, row));
}
