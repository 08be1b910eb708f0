// Laravel apiResource controller with API Resources and a paginator (the shapes in API.md).
import { emptyReply, isJsonMediaType, isObject, jsonReply, mediaType, parseForm, parseJson } from '../http.js';
import { sortRows } from '../query.js';
import { parseRoute, scopeOf, type ResourceRoute } from '../routes.js';
import { isBlank, singular, type Scope } from '../store.js';
import type { Reply, Row } from '../types.js';
import { capitalize, humanize, lastParam, type ApiRequest, type Context, type Convention } from './context.js';

const DEFAULT_PER_PAGE = 15;

interface Call {
  req: ApiRequest;
  ctx: Context;
  route: ResourceRoute;
  scope: Scope | undefined;
}

const modelNotFound = (collection: string, id: string): Reply =>
  jsonReply(404, { message: `No query results for model [App\\Models\\${capitalize(singular(collection))}] ${id}` });

function methodNotAllowed(req: ApiRequest, route: ResourceRoute): Reply {
  const supported = route.id === undefined ? 'GET, HEAD, POST' : 'GET, HEAD, PUT, PATCH, DELETE';
  const path = req.path.replace(/^\/+|\/+$/g, '');
  return jsonReply(405, { message: `The ${req.method} method is not supported for route ${path}. Supported methods: ${supported}.` }, { Allow: supported });
}

export const laravel: Convention = (req, ctx) => {
  const route = parseRoute(req.path, ctx.basePath, ctx.store);
  if (route.kind !== 'resource') return jsonReply(404, { message: `The route ${req.path.replace(/^\/+/, '')} could not be found.` });
  const scope = scopeOf(route, ctx.store);
  if (scope === 'missing') return modelNotFound(route.parent?.collection ?? route.collection, route.parent?.id ?? '');
  const call: Call = { req, ctx, route, scope };
  if (route.id === undefined) {
    if (req.method === 'GET') return index(call);
    if (req.method === 'POST') return store(call);
    return methodNotAllowed(req, route);
  }
  if (!['GET', 'PUT', 'PATCH', 'DELETE'].includes(req.method)) return methodNotAllowed(req, route);
  const row = ctx.store.find(route.collection, route.id, scope);
  if (!row) return modelNotFound(route.collection, route.id);
  if (req.method === 'GET') return jsonReply(200, { data: row });
  if (req.method === 'DELETE') {
    ctx.store.remove(route.collection, row);
    return emptyReply(204);
  }
  return update(call, row);
};

/** A positive integer, else the fallback (Laravel's paginator does the same). */
function positive(raw: string | undefined, fallback: number): number {
  const value = raw !== undefined && /^\s*\d+\s*$/.test(raw) ? Number.parseInt(raw, 10) : NaN;
  return value >= 1 ? value : fallback;
}

function index({ req, ctx, route, scope }: Call): Reply {
  const rows = sortRows(ctx.store.rows(route.collection, scope), [{ property: 'id', direction: 'ASC' }]);
  const currentPage = positive(lastParam(req.query, 'page'), 1);
  const perPage = positive(lastParam(req.query, 'per_page'), DEFAULT_PER_PAGE);
  const data = rows.slice((currentPage - 1) * perPage, currentPage * perPage);
  return jsonReply(200, { data, meta: { total: rows.length, current_page: currentPage, per_page: perPage } });
}

/** $request->all(): JSON when the type says so (a broken JSON body reads as empty), or form data. */
function input(req: ApiRequest): Row {
  if (isJsonMediaType(req.headers['content-type'])) {
    const parsed = parseJson(req.body);
    return parsed.ok && isObject(parsed.value) ? parsed.value : {};
  }
  return mediaType(req.headers['content-type']) === 'application/x-www-form-urlencoded' ? parseForm(req.body) : {};
}

/** 422 with Laravel's summary message: the first error plus "(and N more errors)". */
function validationFailed(fields: string[]): Reply {
  const errors = Object.fromEntries(fields.map((field) => [field, [`The ${humanize(field)} field is required.`]]));
  const first = `The ${humanize(fields[0] ?? '')} field is required.`;
  const more = fields.length - 1;
  const message = more > 0 ? `${first} (and ${more} more error${more > 1 ? 's' : ''})` : first;
  return jsonReply(422, { message, errors });
}

function store({ req, ctx, route, scope }: Call): Reply {
  const data = input(req);
  const failing = ctx.store.requiredFields(route.collection).filter((field) => isBlank(data[field]));
  if (failing.length > 0) return validationFailed(failing);
  return jsonReply(201, { data: ctx.store.insert(route.collection, data, scope) });
}

function update({ req, ctx, route }: Call, row: Row): Reply {
  const data = input(req);
  const failing = ctx.store.requiredFields(route.collection).filter((field) => isBlank({ ...row, ...data }[field]));
  if (failing.length > 0) return validationFailed(failing);
  return jsonReply(200, { data: ctx.store.merge(row, data) });
}
