/**
 * The wording of every ProxyError, in one place. A message says what was asked (the verb and the
 * url, or the action) and what went wrong, then what the user can do when there is something to
 * do. `label` is `PUT /users/2` (the url without its cache buster).
 */
import type { Operation } from '../operation/Operation.js';
import { describeValue } from '../util/options.js';
import { dev } from '../util/dev.js';

/** At most a few hundred characters of what a server sent (the whole is on error.body). */
function quote(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max).replace(/[\uD800-\uDBFF]$/, '')}…` : text;
}

/** ` (name: is required; email: is invalid)`, or '' without field errors. */
function fieldSummary(fieldErrors: Record<string, string[]> | undefined): string {
  return fieldErrors === undefined ? '' : ` (${quote(Object.entries(fieldErrors).map(([field, messages]) => `${field}: ${messages.join(', ')}`).join('; '))})`;
}

/** What a write that got no usable answer leaves: nothing changed here. */
const KEPT = 'nothing was changed here: the records are as they were';

export function noFetch(label: string): string {
  return `${label} failed: there is no fetch here${dev("; pass one as the proxy's fetch option")}`;
}

/** No answer in time; or a hook that did not settle (nothing was sent while onRequest ran). */
export function timedOut(label: string, timeout: number, applied: boolean, hook?: 'onRequest' | 'onResponse'): string {
  const what = hook === undefined ? 'no answer' : `the ${hook} hook did not settle`;
  return `${label} failed: ${what} within ${timeout} ms (timeout)${applied ? dev(`; the server may still have applied it, but ${KEPT}`, '; may have been applied') : hook === 'onRequest' ? '; nothing was sent' : ''}`;
}

export function networkFailed(label: string, reason: string, write: boolean): string {
  return `${label} failed: network error (${reason})${dev(`; the server is down or unreachable${write ? `. ${KEPT[0]?.toUpperCase()}${KEPT.slice(1)}` : ''}`)}`;
}

/** A caller's abort: before the request was sent, waiting to retry, or in flight (when a write may have been applied). */
export function aborted(label: string, when: 'in flight' | 'waiting' | 'before', applied = false): string {
  if (when === 'waiting') return `${label} was aborted while waiting to retry`;
  if (when === 'before') return `${label} was aborted before it was sent`;
  return `${label} was aborted; ${applied ? dev(`the server may still have applied it, but ${KEPT}`, 'may have been applied') : 'nothing was changed'}`;
}

/** An answer beyond `maxResponseBytes`: its body is let go, and the request is not retried. */
export function tooLarge(label: string, status: number, max: number, how: string): string {
  return `${label} answered ${status} with more than maxResponseBytes (${max} bytes): ${how}${dev('; raise maxResponseBytes if such answers are expected')}`;
}

/** A try that failed before it was sent (or was refused), after an earlier one that may have been applied. */
export function earlierApplied(message: string): string {
  return `${message} (an earlier try may have been applied)`;
}

export function afterTries(message: string, tries: number): string {
  return `${message} (after ${tries} tries)`;
}

export function relativeUrl(label: string, path: string): string {
  return `${label} failed: the url is relative${dev(` and there is no page location to resolve it against (this is not a browser page); use an absolute url such as 'http://localhost:3000${path}'`)}`;
}

/** Configuration that fetch would refuse whatever the server: it is never sent, nor retried. */
export function cannotSend(label: string, why: string): string {
  return `${label} cannot be sent: ${why}`;
}

export const CANNOT_SEND = {
  credentials: `the url has a user name or password in it${dev(', which fetch refuses; use the username and password options (or an Authorization header)')}`,
  scheme: (scheme: string) => `fetch sends http: and https: urls only, got ${JSON.stringify(scheme)}`,
  url: (url: string) => `${JSON.stringify(url)} is not a valid url`,
  verb: (method: string) => `fetch refuses the verb ${method}`,
  body: (method: string, action: string) => `a ${method} request cannot carry a body${dev(`; set actionMethods.${action} to POST, PUT or PATCH`)}`,
  etag: (etag: string) =>
    `the record's ETag ${etag} ${dev(
      `is ${etag.startsWith('W/') ? 'weak, and If-Match compares strong ETags only (RFC 9110), so the server would refuse every write as a conflict' : 'not one entity-tag (RFC 9110: one quoted value, such as "v1"), so it cannot be sent as If-Match'}; make the server send strong ETags for this resource, or set etag: false`,
      'cannot be sent as If-Match',
    )}`,
};

/**
 * A write answered with a redirect. Writes are sent with `redirect: 'manual'`, so nothing was
 * sent to the new url and nothing was applied. `location` is empty where the platform hides it
 * (a browser's opaque redirect). `suggestion`: what to change, '' for the general advice.
 */
export function redirectedWrite(label: string, status: number, location: string, suggestion: string): string {
  const to = location === '' ? '' : ` to ${location}`;
  const code = status === 0 ? 'a redirect' : `${status}, a redirect${to}`;
  return `${label} was answered ${code}${dev(
    `; writes never follow redirects, so it was not sent there and nothing was applied (the record keeps its changes). To fix it, ${suggestion || (location === '' ? 'point the proxy at the final url (the browser hides where the redirect leads: see the network panel)' : `point the proxy at the final url`)}`,
  )}`;
}

export function htmlAnswer(label: string, status: number, title: string | undefined): string {
  return `${label} answered ${status} with an HTML page${title ? ` ("${quote(title)}")` : ''} instead of JSON${dev('; check that the url points at the API and not at a web page or a login screen')}`;
}

export function invalidJson(label: string, status: number, reason: string, text: string): string {
  return `${label} answered ${status} but the body is not valid JSON${dev(/end of (JSON )?input|Unterminated/i.test(reason) ? ' (the body looks cut short)' : '')}: ${reason}; it starts with ${JSON.stringify(text.slice(0, 60))}`;
}

export function badShape(label: string, status: number, problem: string): string {
  return `${label} answered ${status} but ${quote(problem, 500)}`;
}

/** A body JSON cannot hold: `field` is where it is, when one field alone is (`notes`, `notes of record 2`). */
export function notJson(field: string | undefined, error: unknown): string {
  const reason = error instanceof RangeError ? 'it is nested too deeply' : error instanceof Error ? error.message.split('\n')[0] : String(error);
  return `${field === undefined ? 'the body' : `the field ${field}`} cannot be written as JSON: ${reason}`;
}

export function unsafeId(id: number): string {
  return `the answer has the id ${id}${dev(' (as JSON.parse read it), beyond the integers JavaScript numbers hold exactly (2^53)', ', beyond 2^53')}${dev(': JSON.parse rounds such an id, so the record would be written to another row; have the server send these ids as strings')}`;
}

export function serverSaidNo(label: string, message: string | undefined, fieldErrors?: Record<string, string[]>): string {
  return `${label} failed: the server answered success: false${message ? `: ${quote(message)}` : ''}${fieldSummary(fieldErrors)}`;
}

export function writeFailed(label: string, problem: string): string {
  return `${label} failed: ${problem}`;
}

export function missingIds(missing: readonly number[], total: number): string {
  return total === 1
    ? `the server answered without an id for the new record${dev(' (no id in the body, and no Location header with one), so it could never be updated; the record stays new, and its next save sends the same idempotency key')}`
    : `the server answered without an id for ${missing.length} of the ${total} new records (${missing.map((i) => `#${i + 1}`).join(', ')})${dev('; those stay new, the others were saved')}`;
}

/** `PUT /users/2 failed: 422 Unprocessable Entity: message (name: is required)` and a hint. */
export function httpFailed(label: string, status: number, statusText: string, detail: string | undefined, fieldErrors: Record<string, string[]> | undefined, hint: string): string {
  let summary = `${label} failed: ${status}${statusText ? ` ${statusText}` : ''}`;
  if (detail !== undefined) summary += `: ${quote(detail)}`;
  return summary + fieldSummary(fieldErrors) + hint;
}

export const HINTS = {
  conflict: dev("; the record changed on the server meanwhile: error.current holds the server's version when it sent one, and the local edits are kept"),
  validation: dev('; the record keeps its edits and the messages are on record.errors'),
  401: dev('; the server wants credentials: set the headers option (Authorization) or username and password'),
  403: dev('; the credentials are not allowed to do this'),
  404: (read: boolean) => dev(read ? '; check the url and the id' : '; the record may have been deleted on the server, or the url is wrong'),
  405: (method: string) => dev(`; the server does not allow ${method} here: check actionMethods and the url`),
  415: dev('; the server does not accept this Content-Type'),
};

/** A 400 to a body wrapped in a root key: what it was wrapped in (kept in production: it is what was sent). */
export function wrappedIn(root: string): string {
  return `; the body was sent wrapped in ${JSON.stringify(root)}${dev(" (the writer's rootProperty): if the server wants another root key, set the model's entityName or the writer's rootProperty")}`;
}

export function noUrl(action: string): string {
  return `${action} failed: no url is configured${dev(`; give the proxy a url (e.g. { url: '/users' }) or an api entry for "${action}"`)}`;
}

export function missingTemplateValue(action: string, url: string, name: string, fromRecord: boolean): string {
  return `${action} failed: the url ${url} needs a value for {${name}}${dev(`; pass it in the params ({ params: { ${name}: ... } })${fromRecord ? ' or set it on the record' : ''}`)}`;
}

/** An id or url template value that cannot be one path segment. */
export function badSegment(action: string, what: string, value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) {
    return `${action} failed: the ${what} ${value} cannot be put in a url${dev(': it is beyond the integers JavaScript numbers hold exactly (2^53)', ': beyond 2^53')}${dev(", so it may not be the server's id; have the server send such ids as strings")}`;
  }
  if (typeof value === 'string') {
    return `${action} failed: the ${what} ${JSON.stringify(value)} cannot be put in a url${dev(': as a path segment it reads as "." or "..", which would step out of the collection')}`;
  }
  return `${action} failed: the ${what} (${describeValue(value)}) cannot be put in a url${dev(': it must be a string or a finite number')}`;
}

export function notUnicode(action: string, id: unknown): string {
  return `${action} failed: the id ${JSON.stringify(String(id))} cannot be put in a url${dev(' (it is not valid Unicode)')}`;
}

export function noId(action: string): string {
  return `${action} failed: the record has no id${dev(': check idProperty or the field mapping (it is not new, so it would otherwise go to the collection url)')}`;
}

export function localOnly(kind: 'sorter' | 'filter', property: string): string {
  return kind === 'sorter'
    ? `read failed: the sorter on "${property}" has a sorterFn${dev(', which runs locally only and cannot be sent to the server; sort locally (remoteSort: false) or drop the function')}`
    : `read failed: the filter on "${property}" has a filterFn${dev(', which runs locally only and cannot be sent to the server; filter locally (remoteFilter: false) or use property/operator/value')}`;
}

export function cannotSendOperation(proxy: string, action: string): string {
  return `${proxy} cannot send the ${action} operation${dev(': use a RestProxy, AjaxProxy or MemoryProxy')}`;
}

/** A create of records of which some must be sent again in the request they were first sent in, with other records. */
export const MIXED_CREATE = `create failed: a record whose create may have been applied ${dev('is sent again only with the records it was sent with', 'cannot be sent with other records')}`;

export function failedWith(action: string, message: string): string {
  return `${action} failed: ${message}`;
}

export function noRecordRead(operation: Operation): string {
  const request = operation.request;
  const what = request ? `${request.method} ${request.url ?? ''}` : `read of id ${JSON.stringify(operation.id)}`;
  return `${what} answered no record for id ${JSON.stringify(operation.id)}`;
}

export const LOAD = {
  superseded: `the load was superseded${dev(' by a newer load (or aborted); nothing changed')}`,
  cancelled: 'the load was cancelled by a beforeload listener',
};
