/**
 * Reading an answer into its operation, one concern per step: a redirected write, an error
 * status (and the answers that only say an earlier try was applied), the body, the reader, and
 * committing a write's records.
 */
import { ProxyError, type ProxyErrorDetails, type ProxyErrorKind } from '../errors/ProxyError.js';
import { badShape, HINTS, htmlAnswer, httpFailed, invalidJson, redirectedWrite, serverSaidNo, wrappedIn, writeFailed } from '../errors/messages.js';
import type { NormalizedRetry } from '../http/retry.js';
import type { Exchange } from '../http/types.js';
import { commitWrite } from '../operation/commit.js';
import type { Request } from '../operation/Request.js';
import { ResultSet } from '../operation/ResultSet.js';
import type { ModelClassLike } from '../operation/types.js';
import { ReadShapeError, type JsonReader } from '../reader/JsonReader.js';
import { isPlainObject } from '../util/options.js';
import type { JsonWriter } from '../writer/JsonWriter.js';
import { echoes } from './features/etag.js';
import { onlyRecord } from './features/feature.js';
import { dev } from '../util/dev.js';

/** What reading an answer needs of its proxy (an AjaxProxy). */
export interface AnswerContext {
  readonly reader: JsonReader;
  readonly writer: JsonWriter;
  readonly model?: ModelClassLike | undefined;
  readonly retry: NormalizedRetry;
  /** `PUT /users/2`, for messages. */
  describe(request: Request): string;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 408: 'Request Timeout', 409: 'Conflict', 410: 'Gone', 412: 'Precondition Failed',
  413: 'Payload Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 429: 'Too Many Requests',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

function htmlTitle(text: string): string | undefined {
  const match = /<title[^>]*>([^<]*)<\/title>/i.exec(text);
  return match?.[1]?.trim() || undefined;
}

/**
 * Take the answer into the operation, or throw the ProxyError that says why it cannot be.
 * `retryable`: whether the request was tried again after a 5xx of the proxy's `retry.statusCodes`.
 */
export function readAnswer(proxy: AnswerContext, request: Request, exchange: Exchange, retryable: boolean): void {
  const operation = request.operation;
  const { response, text } = exchange;
  operation.response = response;
  const write = request.method !== 'GET';
  if (write && (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400))) throw redirected(proxy, request, response);
  if (!response.ok) {
    const error = httpError(proxy, request, response, text, retryable);
    if (!answersEarlierTry(request, error)) throw error;
    // The earlier try was applied after all: the record is already gone, or already saved.
    commit(proxy, request, isPlainObject(error.body) ? [error.body] : [], undefined);
    takeEtag(request, response, undefined);
    operation.setSuccessful(new ResultSet({ records: [...operation.records] }));
    return;
  }
  const details = (): ProxyErrorDetails => ({ status: response.status, statusText: response.statusText, response, body: text, mayHaveBeenApplied: write });
  const body = text.trim() === '' || response.status === 204 || response.status === 205 ? undefined : parseBody(proxy, request, response, text, details);
  let resultSet: ResultSet;
  try {
    resultSet = proxy.reader.read(body, { action: operation.action, model: proxy.model ?? operation.records[0]?.getModelClass(), response, collection: operation.action === 'read' && operation.id === undefined });
  } catch (error) {
    if (!(error instanceof ReadShapeError)) throw error;
    throw new ProxyError('parse', badShape(proxy.describe(request), response.status, error.message), { ...details(), body, cause: error });
  }
  if (!resultSet.success) {
    // Field errors beside success: false (Ext's servers) are a validation failure, as a 422's are.
    const reader = proxy.reader;
    const { fieldErrors } = reader.readError(reader.transform && body !== undefined ? reader.transform(body) : body);
    throw new ProxyError(fieldErrors ? 'validation' : 'server', serverSaidNo(proxy.describe(request), resultSet.message, fieldErrors) + dev(fieldErrors ? HINTS.validation : ''), {
      ...details(), body, fieldErrors, mayHaveBeenApplied: false,
    });
  }
  takeEtag(request, response, resultSet);
  if (operation.action === 'read') {
    operation.setSuccessful(resultSet);
    return;
  }
  // A Location header gives the id of a created record whose answer has none (read only then).
  commit(proxy, request, resultSet.records.filter(isPlainObject), response);
  resultSet.records = [...operation.records];
  operation.setSuccessful(resultSet);
}

function commit(proxy: AnswerContext, request: Request, items: Record<string, unknown>[], response: Response | undefined): void {
  // Asked for by a create of one record only (commitWrite decides).
  const assignedId = (): unknown => response && locationId(response);
  commitWrite(request.operation, items, assignedId, proxy.writer.clientIdProperty, (kind, problem) =>
    new ProxyError(kind, writeFailed(proxy.describe(request), problem), { status: response?.status, statusText: response?.statusText, response, mayHaveBeenApplied: true }),
  );
}

/** The ETag of an answer about one record (a read by id, or a write of one record). */
function takeEtag(request: Request, response: Response, read: ResultSet | undefined): void {
  // OWS around a field value is not part of it (RFC 9110 section 5.5).
  const etag = response.headers.get('etag')?.trim();
  if (etag === undefined || etag === '*') return;
  const operation = request.operation;
  if (operation.action === 'read') {
    const first = onlyRecord(read?.records ?? []);
    if (operation.id !== undefined && typeof first === 'object' && first !== null && 'etag' in first) first.etag = etag;
    return;
  }
  const record = onlyRecord(operation.records);
  if (record !== undefined && operation.action !== 'destroy') record.etag = etag;
}

/** The id at the end of a `Location` header; undefined when there is none, or it cannot be decoded. */
function locationId(response: Response): unknown {
  const location = response.headers.get('location');
  if (location === null || location === '') return undefined;
  let segment: string | undefined;
  try {
    segment = decodeURIComponent(new URL(location, response.url || 'http://localhost/').pathname.replace(/\/+$/, '').split('/').pop() ?? '');
  } catch {
    return undefined;
  }
  const id = segment.replace(/\.[A-Za-z]+$/, '');
  if (id === '') return undefined;
  return /^(0|[1-9]\d*)$/.test(id) && Number.isSafeInteger(Number(id)) ? Number(id) : id;
}

/**
 * Whether an error answer only says that an earlier try of this write was applied: a 404 or 410
 * to a DELETE of one record (it is gone, as asked; to a batch it says only that one is missing,
 * and a server that deletes all or nothing deleted none), or a 412 to an update whose current version already
 * holds everything this update sent. The latter is taken as saved whoever wrote it: the server
 * holds what the user wanted.
 */
function answersEarlierTry(request: Request, error: ProxyError): boolean {
  if (request.operation.records.length !== 1) return false;
  if (request.action === 'destroy') return gone(error.status);
  if (request.action !== 'update' || error.status !== 412) return false;
  return echoes(request.jsonData, error.body);
}

const gone = (status: number | undefined): boolean => status === 404 || status === 410;

function parseBody(proxy: AnswerContext, request: Request, response: Response, text: string, details: () => ProxyErrorDetails): unknown {
  let failure: unknown;
  // What does not start as markup is parsed first: the content type is read only when that fails.
  if (!/^\s*</.test(text)) {
    try {
      return JSON.parse(text);
    } catch (error) {
      failure = error;
    }
  }
  if (failure === undefined || (response.headers.get('content-type') ?? '').includes('html')) {
    throw new ProxyError('parse', htmlAnswer(proxy.describe(request), response.status, htmlTitle(text)), details());
  }
  const reason = failure instanceof Error ? failure.message : String(failure);
  throw new ProxyError('parse', invalidJson(proxy.describe(request), response.status, reason, text), { ...details(), cause: failure });
}

/**
 * A redirected write: writes are sent with `redirect: 'manual'`, so this is the 3xx itself (in a
 * browser, an opaque redirect that hides its status and Location). Says which url to configure.
 */
function redirected(proxy: AnswerContext, request: Request, response: Response): ProxyError {
  const location = response.headers.get('location') ?? '';
  let target = '';
  try {
    target = location === '' ? '' : new URL(location, response.url || request.url || 'http://localhost/').href;
  } catch {
    target = location;
  }
  return new ProxyError('http', redirectedWrite(proxy.describe(request), response.status, target, dev((target === '' ? hiddenRedirectFix(request) : redirectFix(request, target)) ?? '')), {
    status: response.status, statusText: response.statusText, response,
  });
}

/** A browser hides where a redirect leads: a path without a trailing slash is the likely cause (Django, FastAPI). */
function hiddenRedirectFix(request: Request): string | undefined {
  const path = (request.url ?? '').split(/[?#]/)[0] ?? '';
  return path.endsWith('/') ? undefined : 'point the proxy at the final url (the browser hides where the redirect leads: see the network panel); a server that wants a trailing slash, as Django and FastAPI do, redirects like this: then set trailingSlash: true';
}

/** The url to configure instead: the collection url the redirect points at, or a trailing slash. */
function redirectFix(request: Request, target: string): string | undefined {
  let to: URL;
  let from: URL;
  try {
    to = new URL(target);
    from = new URL(request.url ?? '', to);
  } catch {
    return undefined;
  }
  if (to.pathname === `${from.pathname}/`) return `set trailingSlash: true (the server wants ${to.pathname})`;
  let base = '';
  try {
    base = new URL(request.sourceUrl ?? '', to).pathname;
  } catch {
    // no collection url to compare with
  }
  // The same tail after another collection url: /api/users/2 -> /v2/users/2 means the url /v2/users.
  const tail = base !== '' && from.pathname.startsWith(base) ? from.pathname.slice(base.length) : '';
  const path = tail !== '' && to.pathname.endsWith(tail) ? to.pathname.slice(0, -tail.length) : to.pathname;
  return `set the proxy's url to ${JSON.stringify(to.origin === from.origin ? path : to.origin + path)}`;
}

function httpError(proxy: AnswerContext, request: Request, response: Response, text: string, retryable: boolean): ProxyError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text || undefined; // not JSON: the text (an empty body: none)
  }
  const { message, fieldErrors } = proxy.reader.readError(body);
  const status = response.status;
  const statusText = response.statusText || STATUS_TEXT[status] || '';
  let kind: ProxyErrorKind = 'http';
  if (status === 409 || status === 412) kind = 'conflict';
  else if (status === 422 || (status === 400 && fieldErrors !== undefined)) kind = 'validation';
  const title = typeof body === 'string' ? htmlTitle(body) : undefined;
  const detail = message ?? (title !== undefined && title !== `${status} ${statusText}` ? title : undefined);
  const summary = httpFailed(proxy.describe(request), status, statusText, detail, fieldErrors, hint(proxy, request, status, kind, retryable));
  return new ProxyError(kind, summary, {
    status, statusText, response, body, fieldErrors: kind === 'validation' ? (fieldErrors ?? Object.create(null)) : fieldErrors,
    current: kind === 'conflict' && isPlainObject(body) ? body : undefined,
    // A batched DELETE answered so: some of its records may be gone (an earlier try, a server that deletes what it finds).
    mayHaveBeenApplied: (request.action === 'destroy' && gone(status)) || undefined,
  });
}

/** What an error answer's message adds: the explanation (development build only), the root key a 400 was sent in, the tries a 5xx took. */
function hint(proxy: AnswerContext, request: Request, status: number, kind: ProxyErrorKind, retryable: boolean): string {
  if (status >= 500) return retryable && proxy.retry.statusCodes.includes(status) ? ` (after ${proxy.retry.limit + 1} tries)` : '';
  const body = request.jsonData;
  const keys = status === 400 && kind === 'http' && isPlainObject(body) ? Object.keys(body) : [];
  // A write's body only: a read's (a subclass's buildRequest may give it one) is not the writer's.
  const root = keys.length === 1 && request.action !== 'read' && proxy.writer.rootProperty !== undefined ? keys[0] : undefined;
  return root === undefined ? dev(explanation(request, status, kind)) : wrappedIn(root);
}

function explanation(request: Request, status: number, kind: ProxyErrorKind): string {
  if (kind === 'conflict' || kind === 'validation') return HINTS[kind];
  if (status === 404) return HINTS[404](request.action === 'read');
  if (status === 405) return HINTS[405](request.method);
  return status === 401 || status === 403 || status === 415 ? HINTS[status] : '';
}
