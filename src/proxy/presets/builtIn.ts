/**
 * The conventions of popular servers, each from the framework's own documentation and from
 * requests observed against it. Plain option values plus a few small encoders.
 */
import type { Request } from '../../operation/Request.js';
import type { Filter, ModelClassLike, Sorter } from '../../operation/types.js';
import { ReadShapeError, type ReadContext } from '../../reader/JsonReader.js';
import { isPlainObject } from '../../util/options.js';
import { readPath, typeName } from '../../util/path.js';
import { resourceName } from '../../util/url.js';
import type { Params } from '../options/server.js';
import { singularize, snakeCase } from './inflect.js';
import type { Preset } from './registry.js';

function lower(sorter: Sorter): string {
  return (sorter.direction ?? 'ASC').toLowerCase();
}

/** `-name,age`: the sort style of Django (`ordering`), JSON:API and Spatie's Laravel query builder (`sort`). */
function minusSort(param: string): (sorters: Sorter[]) => Params {
  return (sorters) => ({ [param]: sorters.map((s) => `${s.direction === 'DESC' ? '-' : ''}${s.property}`).join(',') });
}

function operatorOf(filter: Filter): string {
  return filter.operator ?? '=';
}

function unsupported(server: string, filter: Filter, supported: string): never {
  throw new TypeError(`${server} has no "${operatorOf(filter)}" filter (on "${filter.property}"); it supports ${supported}`);
}

/**
 * The values of an `in` filter. An empty list matches nothing, but no server below can be asked
 * for "nothing" (the param would simply be left out and every record would come back), so it is
 * refused instead of silently widening the result.
 */
function inValues(server: string, filter: Filter): unknown[] {
  const values = Array.isArray(filter.value) ? filter.value : [filter.value];
  if (values.length === 0) {
    throw new TypeError(`${server}: the "${operatorOf(filter)}" filter on "${filter.property}" has no values; an empty list would match nothing, but the server would get no filter at all and answer every record`);
  }
  return values;
}

/**
 * A value sent in a comma-separated list: the server splits on every comma, so a value holding
 * one would silently become two values (and match the wrong records). Refused instead.
 */
function commaSafe(server: string, filter: Filter, value: unknown): unknown {
  const text = String(value);
  if (text.includes(',')) {
    throw new TypeError(`${server}: the "${operatorOf(filter)}" filter on "${filter.property}" has a value with a comma (${JSON.stringify(text)}); the server splits filter values on commas, so it would look for ${text.split(',').map((part) => JSON.stringify(part)).join(' or ')} instead`);
  }
  return value;
}

/** The values of an `in` filter as one comma-separated param value (`a,b`). */
function commaList(server: string, filter: Filter): string {
  return inValues(server, filter).map((value) => commaSafe(server, filter, value)).join(',');
}

/** The key of the id in server data: the id field's mapping, or the id property. */
function idKeyOf(model: ModelClassLike | undefined): string {
  if (model === undefined) return 'id';
  const field = model.getFields().find((candidate) => candidate.name === model.idProperty);
  return field?.mapping ?? model.idProperty;
}

/** Escape a value for json-server's `_like`, which is a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The root key a Rails controller expects for the records of a request (`params.require(:user)`):
 * the model's `entityName` when it has one, else the singular of the collection's last url segment
 * (`/api/users` -> `user`). Never the class name, which minifiers rename.
 */
export function railsRootKey(request: Request): string | undefined {
  const named = request.operation.records[0]?.getModelClass().entityName;
  if (named !== undefined && named !== '') return snakeCase(named);
  const resource = resourceName(request.sourceUrl ?? '');
  return resource === undefined ? undefined : singularize(snakeCase(resource));
}

/**
 * An answer wrapped as `{ user: {...} }` (Rails with include_root_in_json): one key, holding an
 * object, that is not a field of the model. Read without knowing the key's name.
 */
function unwrapRoot(item: Record<string, unknown>, model: ModelClassLike | undefined): Record<string, unknown> {
  const keys = Object.keys(item);
  const key = keys.length === 1 ? keys[0] : undefined;
  if (key === undefined || model?.getFields().some((field) => field.name === key)) return item;
  const inner = item[key];
  return isPlainObject(inner) ? inner : item;
}

/**
 * The records of an answer, picked by `pick` (undefined: not where they belong). An object body
 * holds one record, except for a store load, which must get a list: there an object without the
 * list (an error body served with 200, a page without its records) is refused, never read as one
 * record made of the envelope. `expected` says what the server should have sent.
 */
function recordsAt(expected: string, key: string, pick: (data: Record<string, unknown>, collection: boolean) => unknown) {
  return (data: unknown, context: ReadContext): unknown => {
    if (!isPlainObject(data)) return data;
    const collection = context.collection === true;
    const root = pick(data, collection);
    let got: string | undefined;
    if (root === undefined) {
      if (!collection) return data;
      const keys = Object.keys(data);
      const list = keys.find((name) => Array.isArray(data[name]));
      got = `an object with: ${keys.slice(0, 8).join(', ')}${list === undefined ? '' : `; set the reader's rootProperty to '${list}'`}`;
    } else if (context.action === 'read' && !Array.isArray(root) && !isPlainObject(root)) {
      got = `"${key}" is ${typeName(root)}`;
    }
    if (got !== undefined) throw new ReadShapeError(`expected ${expected}, but got ${got}`);
    return root;
  };
}

/** A framework that answers a list as a bare array: a store load given an object is refused. */
const listOnly = recordsAt('a list of records', '', () => undefined);

/**
 * A HAL collection's records: the first array under `_embedded` (Spring Data REST). Spring
 * leaves `_embedded` out of an empty collection, paged (`page`) or not (only `_links`): no
 * records, rather than one made of the links. One entity (a read by id, a write) is the body.
 */
const halRoot = recordsAt('a list of records or a HAL collection { _embedded: { users: [...] } }', '_embedded', (data, collection) => {
  if (!collection) return data;
  if (isPlainObject(data._embedded)) return Object.values(data._embedded).find(Array.isArray) ?? [];
  const keys = Object.keys(data);
  return keys.length > 0 && keys.every((key) => key === '_links' || key === 'page') ? [] : undefined;
});

/** A numeric id stays a number; others stay strings. */
function idFromText(text: string): string | number {
  return /^(0|[1-9]\d{0,14})$/.test(text) ? Number(text) : text;
}

/**
 * The id of a HAL record is the last segment of `_links.self.href`, unless the record has an id
 * of its own. A segment that cannot be decoded fails the read: the record would have no id.
 */
function halRecord(item: Record<string, unknown>, model: ModelClassLike | undefined): Record<string, unknown> {
  const { _links: links, ...data } = item;
  const idProperty = idKeyOf(model);
  const href = isPlainObject(links) && isPlainObject(links.self) ? links.self.href : undefined;
  if (data[idProperty] === undefined && typeof href === 'string') {
    const segment = href.replace(/\{[^}]*\}$/, '').replace(/\/+$/, '').split('/').pop() ?? '';
    try {
      if (segment !== '') data[idProperty] = idFromText(decodeURIComponent(segment));
    } catch {
      throw new ReadShapeError(`the _links.self.href ${JSON.stringify(href)} of a record of the answer cannot be decoded (it is not valid percent-encoded UTF-8), so the record has no id`);
    }
  }
  return data;
}

/** A JSON:API resource object `{ type, id, attributes }` as plain record data. */
function jsonApiRecord(item: Record<string, unknown>, model: ModelClassLike | undefined): Record<string, unknown> {
  if (typeof item.type !== 'string') throw new ReadShapeError(`a record of the answer is not a JSON:API resource object (it has no type; it has: ${Object.keys(item).slice(0, 8).join(', ')})`);
  const attributes = isPlainObject(item.attributes) ? item.attributes : {};
  const idProperty = idKeyOf(model);
  return item.id === undefined ? { ...attributes } : { ...attributes, [idProperty]: item.id };
}

/**
 * What every built-in preset shares: paging by page number (no start param) and no batch
 * endpoint.
 */
function builtIn(conventions: Preset): Preset {
  return { startParam: null, ...conventions, supportsBatch: false };
}

/**
 * json-server's param for each operator: `name` + the suffix. `in` repeats the param, and
 * `notin` repeats `_ne`, which json-server ANDs: not any of them.
 */
const JSON_SERVER_SUFFIXES = new Map([['=', ''], ['in', ''], ['!=', '_ne'], ['notin', '_ne'], ['>=', '_gte'], ['<=', '_lte'], ['like', '_like']]);

const jsonServer = builtIn({
  pageParam: '_page',
  limitParam: '_limit',
  noCache: false,
  // Several sorters go comma-joined in one param: a repeated _sort is a 500 there.
  serializeSorters: (sorters) => ({ _sort: sorters.map((s) => s.property).join(','), _order: sorters.map(lower).join(',') }),
  serializeFilters: (filters) => {
    const params: Params = {};
    const add = (key: string, value: unknown): void => {
      const existing = params[key];
      params[key] = existing === undefined ? value : ([] as unknown[]).concat(existing, value);
    };
    for (const filter of filters) {
      const operator = operatorOf(filter);
      const suffix = JSON_SERVER_SUFFIXES.get(operator);
      if (operator === 'search') add('q', filter.value);
      else if (suffix === undefined) unsupported('json-server', filter, '=, in, !=, notin, >=, <=, like and search');
      else if (operator === 'in' || operator === 'notin') add(filter.property + suffix, inValues('json-server', filter));
      else add(filter.property + suffix, operator === 'like' ? escapeRegExp(String(filter.value)) : filter.value);
    }
    return params;
  },
  reader: { rootProperty: listOnly, totalHeader: 'X-Total-Count' },
});

const DJANGO_LOOKUPS: Partial<Record<string, string>> = { '>': 'gt', '>=': 'gte', '<': 'lt', '<=': 'lte', like: 'icontains', in: 'in' };

const djangoRest = builtIn({
  trailingSlash: true,
  pageParam: 'page',
  limitParam: 'page_size',
  noCache: false,
  serializeSorters: minusSort('ordering'),
  serializeFilters: (filters) => {
    const params: Params = {};
    for (const filter of filters) {
      const operator = operatorOf(filter);
      if (operator === 'search') params.search = filter.value;
      else if (operator === '=') params[filter.property] = filter.value;
      else {
        const lookup = DJANGO_LOOKUPS[operator];
        if (lookup === undefined) unsupported('django-filter', filter, '=, >, >=, <, <=, like (icontains), in and search');
        params[`${filter.property}__${lookup}`] = operator === 'in' ? commaList('django-filter', filter) : filter.value;
      }
    }
    return params;
  },
  reader: {
    rootProperty: recordsAt('a list of records or a page { count, results: [...] }', 'results', (data) => data.results),
    totalProperty: 'count',
  },
});

/**
 * Equality filters as `field=value`, the style of Rails scopes and Spring's Querydsl binding.
 * With `repeatForIn`, an `in` filter repeats the param (`name=Ed&name=Bob`), which Spring's
 * Querydsl binding reads as "any of" (Rails would keep only the last value).
 */
function equalityFilters(server: string, repeatForIn: boolean): (filters: Filter[]) => Params {
  return (filters) => {
    const params: Params = {};
    for (const filter of filters) {
      const operator = operatorOf(filter);
      if (operator === '=') params[filter.property] = filter.value;
      else if (operator === 'in' && repeatForIn) params[filter.property] = inValues(server, filter);
      else unsupported(server, filter, repeatForIn ? 'equality filters (field=value) and in (field=a&field=b)' : 'equality filters (field=value) only');
    }
    return params;
  };
}

const rails = builtIn({
  pageParam: 'page',
  limitParam: 'per_page',
  serializeSorters: minusSort('sort'),
  serializeFilters: equalityFilters('rails', false),
  reader: {
    rootProperty: listOnly,
    totalHeader: 'X-Total-Count',
    // With include_root_in_json, each record comes as { user: {...} }.
    transformRecord: unwrapRoot,
  },
  writer: { rootProperty: railsRootKey },
});

/**
 * `filter[name]=Ed`, the style of Spatie's Laravel query builder and of most JSON:API servers;
 * `in` sends the values comma-separated (`filter[name]=Ed,Bob`). With `like` (Spatie, whose
 * `allowedFilters('name')` is a partial, case-insensitive match by default), `filter[name]=ed`
 * also stands for a like filter: whether it matches exactly or partially is the server's choice.
 * `inOperator`: `in` goes as `filter[name][in]=Ed,Bob`, for servers with filter operators.
 */
function bracketFilters(server: string, allowLike: boolean, inOperator = false): (filters: Filter[]) => Params {
  const inStyle = inOperator ? 'filter[field][in]=a,b' : 'filter[field]=a,b';
  const supported = `equality filters (filter[field]=value)${allowLike ? ', like' : ''} and in (${inStyle})`;
  return (filters) => {
    const params: Params = {};
    for (const filter of filters) {
      const operator = operatorOf(filter);
      const key = `filter[${filter.property}]`;
      if (operator === 'in') params[inOperator ? `${key}[in]` : key] = commaList(server, filter);
      else if (operator === '=' || (operator === 'like' && allowLike)) params[key] = commaSafe(server, filter, filter.value);
      else unsupported(server, filter, supported);
    }
    return params;
  };
}

const laravel = builtIn({
  pageParam: 'page',
  limitParam: 'per_page',
  serializeSorters: minusSort('sort'),
  serializeFilters: bracketFilters('laravel', true),
  reader: {
    rootProperty: recordsAt('a list of records or { data: [...] } (a resource collection or a paginator)', 'data', (data) => data.data),
    totalProperty: (data) => (isPlainObject(data) ? (isPlainObject(data.meta) ? data.meta.total : data.total) : undefined),
  },
});

const springDataRest = builtIn({
  pageParam: 'page',
  firstPage: 0,
  limitParam: 'size',
  serializeSorters: (sorters) => ({ sort: sorters.map((s) => `${s.property},${lower(s)}`) }),
  serializeFilters: equalityFilters('spring-data-rest', true),
  reader: { rootProperty: halRoot, totalProperty: 'page.totalElements', transformRecord: halRecord },
});

/** The JSON:API `type` of a request's records: the last segment of the collection url. */
function jsonApiType(url: string | undefined): string {
  return resourceName(url ?? '') ?? 'resources';
}

/** Where JSON:API servers put the total: `meta.total` and the other common places. */
const JSON_API_TOTALS = ['meta.total', 'meta.totalItems', 'meta.page.total', 'meta.count', 'meta.total-count', 'meta.record-count', 'meta.totalCount', 'meta.page.totalItems'];

function jsonApiTotal(data: unknown): unknown {
  for (const path of JSON_API_TOTALS) {
    const value = readPath(data, path);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Options of the json-api preset, for a server that differs from the most common conventions. */
export interface JsonApiOptions {
  /**
   * How an `in` filter is sent: `'list'` (default) `filter[name]=a,b`, or `'operator'`
   * `filter[name][in]=a,b`, the style of servers with filter operators.
   */
  inFilter?: 'list' | 'operator';
}

/**
 * The JSON:API conventions. It sends no parameter outside JSON:API's families (page, sort,
 * filter): no cache buster, no start, group or id param (a JSON:API server must refuse a name it
 * does not know). @example registerPreset('drupal', jsonApiPreset({ inFilter: 'operator' }))
 */
export function jsonApiPreset(options: JsonApiOptions = {}): Preset {
  return builtIn({
    pageParam: 'page[number]',
    limitParam: 'page[size]',
    noCache: false,
    groupParam: null,
    idParam: null,
    actionMethods: { update: 'PATCH' },
    headers: { Accept: 'application/vnd.api+json' },
    serializeSorters: minusSort('sort'),
    serializeFilters: bracketFilters('json-api', false, options.inFilter === 'operator'),
    reader: { rootProperty: 'data', totalProperty: jsonApiTotal, transformRecord: jsonApiRecord },
    writer: {
      contentType: 'application/vnd.api+json',
      rootProperty: 'data',
      allowSingle: true,
      transformRecord: (data, record, request) => {
        const { [idKeyOf(record.getModelClass())]: _id, ...attributes } = data;
        const type = jsonApiType(request.sourceUrl);
        return record.phantom ? { type, attributes } : { type, id: String(record.getId()), attributes };
      },
    },
  });
}

const jsonApi = jsonApiPreset();

export const builtInPresets: Record<string, Preset> = {
  'json-server': jsonServer,
  'django-rest': djangoRest,
  rails,
  laravel,
  'spring-data-rest': springDataRest,
  'json-api': jsonApi,
};
