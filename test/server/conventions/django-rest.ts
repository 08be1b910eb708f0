// Django REST framework 3.14 (ModelViewSet + DefaultRouter + PageNumberPagination), as
// shared/reference/django-rest-behaviour.md describes it.
import { emptyReply, htmlReply, isObject, jsonReply, mediaType, parseForm, parseJson } from '../http.js';
import { sortRows, type Sorter } from '../query.js';
import { parseRoute, scopeOf, type ResourceRoute } from '../routes.js';
import { capitalize, lastParam, origin, type ApiRequest, type Context, type Convention } from './context.js';
import { singular, type Scope, type Store } from '../store.js';
import type { Reply, Row } from '../types.js';

const LIST_ALLOW = 'GET, POST, HEAD, OPTIONS';
const ITEM_ALLOW = 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS';
const SECURITY = { Vary: 'Accept', 'X-Frame-Options': 'DENY', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'same-origin' };
const RESERVED = new Set(['page', 'page_size', 'ordering', 'search', 'format']);
const DEFAULT_PAGE_SIZE = 25;
const MAX_PAGE_SIZE = 1000;
const TRUE_VALUES = new Set(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1']);
const FALSE_VALUES = new Set(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0']);

interface Call {
  req: ApiRequest;
  ctx: Context;
  route: ResourceRoute;
  scope: Scope | undefined;
  allow: string;
}

/** Every DRF answer carries Allow, Vary and Django's security headers; JSON is compact, no charset. */
const drf = (call: Pick<Call, 'allow'>, status: number, value: unknown): Reply => jsonReply(status, value, { Allow: call.allow, ...SECURITY });
const notFound = (call: Pick<Call, 'allow'>, detail = 'Not found.'): Reply => drf(call, 404, { detail });
const notAllowed = (call: Call): Reply => drf(call, 405, { detail: `Method "${call.req.method}" not allowed.` });

export const djangoRest: Convention = (req, ctx) => {
  const route = parseRoute(req.path, ctx.basePath, ctx.store);
  // Django's own 404 (not DRF's) is an HTML page.
  if (route.kind === 'unknown') return htmlReply(404);
  // CommonMiddleware APPEND_SLASH: any method, query kept, relative Location, empty text/html body.
  if (!req.path.endsWith('/') && !(route.kind === 'resource' && route.suffix)) {
    const queryStart = req.url.indexOf('?');
    const search = queryStart >= 0 ? req.url.slice(queryStart) : '';
    return emptyReply(301, { 'Content-Type': 'text/html; charset=utf-8', Location: `${req.path}/${search}` });
  }
  if (route.kind === 'root') {
    const links = Object.keys(ctx.store.db).map((name) => [name, `${origin(req, ctx)}${req.path}${name}/`]);
    return drf({ allow: 'GET, HEAD, OPTIONS' }, 200, Object.fromEntries(links));
  }
  const scope = scopeOf(route, ctx.store);
  const onItem = route.id !== undefined;
  const call: Call = { req, ctx, route, scope: scope === 'missing' ? undefined : scope, allow: onItem ? ITEM_ALLOW : LIST_ALLOW };
  if (scope === 'missing') return notFound(call);
  if (req.method === 'OPTIONS') return options(call);
  if (!onItem) {
    if (req.method === 'GET') return list(call);
    if (req.method === 'POST') return create(call);
    return notAllowed(call);
  }
  const row = ctx.store.find(route.collection, route.id ?? '', call.scope);
  switch (req.method) {
    case 'GET':
      return row ? drf(call, 200, row) : notFound(call);
    case 'PUT':
    case 'PATCH':
      return row ? update(call, row, req.method === 'PATCH') : notFound(call);
    case 'DELETE':
      if (!row) return notFound(call);
      ctx.store.remove(route.collection, row);
      return emptyReply(204, { Allow: call.allow, ...SECURITY, 'Content-Length': '0' });
    default:
      return notAllowed(call);
  }
};

function options(call: Call): Reply {
  const name = capitalize(singular(call.route.collection));
  return drf(call, 200, {
    name: `${name} ${call.route.id === undefined ? 'List' : 'Instance'}`,
    description: '',
    renders: ['application/json', 'text/html'],
    parses: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
  });
}

// ---- list: filters, search, ordering, paging ----------------------------------------------

function list(call: Call): Reply {
  const { req, ctx, route, scope } = call;
  const { store } = ctx;
  const filtered = filterRows(store, route.collection, store.rows(route.collection, scope), req.query);
  if ('status' in filtered) return drf(call, 400, filtered.errors);
  const rows = sortRows(sortRows(search(filtered.rows, lastParam(req.query, 'search')), [{ property: 'id', direction: 'ASC' }]), ordering(store, route.collection, req.query));

  const size = pageSize(lastParam(req.query, 'page_size'));
  const pages = rows.length === 0 ? 1 : Math.ceil(rows.length / size);
  const rawPage = lastParam(req.query, 'page') ?? '1';
  const number = rawPage === 'last' ? pages : /^\s*[+-]?\d+\s*$/.test(rawPage) ? Number.parseInt(rawPage, 10) : NaN;
  if (!(number >= 1 && number <= pages)) return notFound(call, 'Invalid page.');
  return drf(call, 200, {
    count: rows.length,
    next: number < pages ? pageLink(req, ctx, number + 1) : null,
    previous: number > 1 ? pageLink(req, ctx, number - 1) : null,
    results: rows.slice((number - 1) * size, number * size),
  });
}

/** page_size: a positive integer, clamped to 1000; anything else means the default. */
function pageSize(raw: string | undefined): number {
  if (raw === undefined || !/^\s*\+?\d+\s*$/.test(raw)) return DEFAULT_PAGE_SIZE;
  const size = Number.parseInt(raw, 10);
  return size <= 0 ? DEFAULT_PAGE_SIZE : Math.min(size, MAX_PAGE_SIZE);
}

/** Absolute link with all params kept and sorted by name; page 1 omits `page` (DRF's replace/remove_query_param). */
function pageLink(req: ApiRequest, ctx: Context, page: number): string {
  const entries = [...req.query].filter(([key]) => key !== 'page');
  if (page > 1) entries.push(['page', String(page)]);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = new URLSearchParams(entries).toString();
  return `${origin(req, ctx)}${req.path}${query ? `?${query}` : ''}`;
}

/** django-filter equality filters on known fields (not id); a bad number is a 400 like a field error. */
function filterRows(store: Store, collection: string, rows: Row[], query: URLSearchParams): { rows: Row[] } | { status: 400; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  let result = rows;
  for (const field of new Set(query.keys())) {
    const value = lastParam(query, field) ?? '';
    if (RESERVED.has(field) || field === 'id' || value === '' || !store.hasField(collection, field)) continue;
    const type = store.fieldType(collection, field);
    if (type === 'number') {
      if (!/^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/.test(value)) {
        errors[field] = ['Enter a number.'];
        continue;
      }
      result = result.filter((row) => typeof row[field] === 'number' && row[field] === Number(value));
    } else if (type === 'boolean') {
      const wanted = ['true', 'True', '1'].includes(value) ? true : ['false', 'False', '0'].includes(value) ? false : undefined;
      if (wanted !== undefined) result = result.filter((row) => row[field] === wanted);
    } else {
      result = result.filter((row) => row[field] !== null && row[field] !== undefined && String(row[field]) === value);
    }
  }
  return Object.keys(errors).length > 0 ? { status: 400, errors } : { rows: result };
}

/** SearchFilter: terms split on spaces and commas, ANDed; each term icontains over the string fields. */
function search(rows: Row[], raw: string | undefined): Row[] {
  const terms = (raw ?? '').split(/[\s,]+/).filter((term) => term !== '').map((term) => term.toLowerCase());
  if (terms.length === 0) return rows;
  return rows.filter((row) => {
    const texts = Object.values(row).filter((value): value is string => typeof value === 'string').map((text) => text.toLowerCase());
    return terms.every((term) => texts.some((text) => text.includes(term)));
  });
}

/** OrderingFilter: `-age,name`; unknown fields are dropped; nothing left means the default (id). */
function ordering(store: Store, collection: string, query: URLSearchParams): Sorter[] {
  const fields = (lastParam(query, 'ordering') ?? '').split(',').map((field) => field.trim()).filter((field) => field !== '');
  return fields.flatMap((field): Sorter[] => {
    const property = field.replace(/^-/, '');
    if (property !== 'id' && !store.hasField(collection, property)) return [];
    return [{ property, direction: field.startsWith('-') ? 'DESC' : 'ASC' }];
  });
}

// ---- writes ---------------------------------------------------------------------------

/** request.data: JSON or form; an empty body is an empty dict; anything else is a 415. */
function readBody(call: Call): { value: unknown; form: boolean } | Reply {
  const { req } = call;
  if (req.body === '') return { value: {}, form: false };
  const contentType = req.headers['content-type'] ?? 'text/plain';
  const type = mediaType(contentType);
  if (type === 'application/x-www-form-urlencoded') return { value: parseForm(req.body), form: true };
  if (type !== 'application/json') return drf(call, 415, { detail: `Unsupported media type "${contentType}" in request.` });
  const parsed = parseJson(req.body);
  return parsed.ok ? { value: parsed.value, form: false } : drf(call, 400, { detail: `JSON parse error - ${parsed.error}` });
}

function pythonType(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (value === null) return 'NoneType';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return typeof value === 'boolean' ? 'bool' : 'str';
}

function create(call: Call): Reply {
  const { ctx, route, scope } = call;
  const body = readBody(call);
  if ('status' in body) return body;
  if (!isObject(body.value)) {
    return drf(call, 400, { non_field_errors: [`Invalid data. Expected a dictionary, but got ${pythonType(body.value)}.`] });
  }
  const { errors, clean } = validate(ctx.store, route.collection, body.value, 'create', body.form);
  if (Object.keys(errors).length > 0) return drf(call, 400, errors);
  if (ctx.store.hasField(route.collection, 'created')) clean.created = new Date().toISOString();
  // DRF sets no Location unless the serializer has a url field.
  return drf(call, 201, ctx.store.insert(route.collection, clean, scope));
}

/** PUT needs every required field but keeps omitted optional ones; PATCH validates what it gets. */
function update(call: Call, row: Row, partial: boolean): Reply {
  const { ctx, route } = call;
  const body = readBody(call);
  if ('status' in body) return body;
  if (!isObject(body.value)) {
    return drf(call, 400, { non_field_errors: [`Invalid data. Expected a dictionary, but got ${pythonType(body.value)}.`] });
  }
  const { errors, clean } = validate(ctx.store, route.collection, body.value, partial ? 'partial' : 'update', body.form);
  if (Object.keys(errors).length > 0) return drf(call, 400, errors);
  return drf(call, 200, ctx.store.merge(row, clean));
}

/** A ModelSerializer's checks: required/blank/null, number and boolean coercion, unknown keys dropped. */
function validate(store: Store, collection: string, input: Row, mode: 'create' | 'update' | 'partial', form: boolean): { errors: Record<string, string[]>; clean: Row } {
  const errors: Record<string, string[]> = {};
  const clean: Row = {};
  const required = new Set(store.requiredFields(collection));
  const columns = store.columns(collection);
  if (mode !== 'partial') for (const field of required) if (!(field in input)) errors[field] = ['This field is required.'];
  if (form && mode === 'create' && columns) {
    // An unchecked checkbox is simply absent from form data: DRF reads it as false.
    for (const field of columns) if (!(field in input) && store.fieldType(collection, field) === 'boolean') clean[field] = false;
  }
  for (const [key, value] of Object.entries(input)) {
    if (key === 'id' || key === 'created' || (columns && !columns.has(key))) continue;
    const type = store.fieldType(collection, key);
    if (value === null) {
      if (required.has(key)) errors[key] = ['This field may not be null.'];
      else clean[key] = null;
    } else if (type === 'number') {
      const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      if (Number.isNaN(number)) errors[key] = ['A valid integer is required.'];
      else clean[key] = number;
    } else if (type === 'boolean') {
      if (typeof value === 'boolean') clean[key] = value;
      else if (TRUE_VALUES.has(String(value))) clean[key] = true;
      else if (FALSE_VALUES.has(String(value))) clean[key] = false;
      else errors[key] = ['Must be a valid boolean.'];
    } else if (type === 'string' || typeof value === 'string') {
      const text = typeof value === 'string' ? value.trim() : String(value); // CharField trims whitespace
      if (text === '' && required.has(key)) errors[key] = ['This field may not be blank.'];
      else clean[key] = text;
    } else {
      clean[key] = value;
    }
  }
  return { errors, clean };
}
