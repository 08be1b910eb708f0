/**
 * Pure url helpers. A url is handled as three parts, path, query and fragment, so that ids,
 * formats and params always land in the path or the query where they belong, never inside a
 * base url's query string or fragment.
 */
export interface UrlParts {
  /** Everything before `?` or `#`: scheme, host and path. */
  path: string;
  /** The query without its `?` ('' when none). */
  query: string;
  /** The fragment with its `#` ('' when none). */
  hash: string;
}

export function splitUrl(url: string): UrlParts {
  // Always matches: the path up to the first `?` or `#`, the query up to the first `#`, the rest.
  const [, path = '', query = '', hash = ''] = /^([^?#]*)(?:\?([^#]*))?([^]*)$/.exec(url) ?? [];
  return { path, query, hash };
}

export function joinUrl({ path, query, hash }: UrlParts): string {
  return query === '' ? path + hash : `${path}?${query}${hash}`;
}

/** Add a path segment, with exactly one `/` before it. */
export function appendSegment(path: string, segment: string): string {
  return path.endsWith('/') ? path + segment : `${path}/${segment}`;
}

/** End the path with `.<format>`: no second `.`, and never `/.json` for a trailing slash. */
export function appendFormat(path: string, format: string): string {
  let base = path;
  while (base.endsWith('/') && !base.endsWith('//') && base.length > 1) base = base.slice(0, -1);
  return base.endsWith('.') ? base + format : `${base}.${format}`;
}

/** End the path with one `/`. */
export function appendSlash(path: string): string {
  return path.endsWith('/') ? path : `${path}/`;
}

function encodeValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * Encode params as a query string. Arrays repeat the key (`id=1&id=3`), Dates are ISO 8601,
 * objects are JSON, `undefined` and `null` are left out.
 */
export function encodeQuery(params: Readonly<Record<string, unknown>>): string {
  const parts: string[] = [];
  for (const key of Object.keys(params)) {
    const value = params[key];
    const encodedKey = encodeURIComponent(key);
    for (const item of Array.isArray(value) ? value : [value]) {
      const encoded = encodeValue(item);
      if (encoded !== undefined) parts.push(`${encodedKey}=${encodeURIComponent(encoded)}`);
    }
  }
  return parts.join('&');
}

/** Add a query string to a url, before its fragment. */
export function appendQuery(url: string, query: string): string {
  if (query === '') return url;
  const parts = splitUrl(url);
  return joinUrl({ ...parts, query: parts.query === '' ? query : `${parts.query}&${query}` });
}

/** Remove one param from a query string (used to keep the cache buster out of messages). */
export function removeQueryParam(url: string, name: string): string {
  const parts = splitUrl(url);
  if (parts.query === '') return url;
  const prefix = `${encodeURIComponent(name)}=`;
  const kept = parts.query.split('&').filter((pair) => !pair.startsWith(prefix));
  return joinUrl({ ...parts, query: kept.join('&') });
}

const TEMPLATE = /\{([A-Za-z_$][\w$.-]*)\}/g;

/** The names of the `{name}` placeholders of a url template. */
export function templateNames(url: string): string[] {
  if (!url.includes('{')) return []; // the usual url: no regex to run
  return Array.from(url.matchAll(TEMPLATE), (match) => match[1] ?? '');
}

/** The url with each `{name}` placeholder replaced by `value(name)` (the usual url, without one: as it is). */
export function fillTemplate(url: string, value: (name: string) => string): string {
  return url.includes('{') ? url.replace(TEMPLATE, (_, name: string) => value(name)) : url;
}

/**
 * Whether a value read as one path segment is `.` or `..`: the WHATWG URL parser (and so fetch)
 * takes `%2e` for a dot too, and a server may decode twice, so escapes are undone first.
 */
export function isDotSegment(text: string): boolean {
  let current = text;
  for (let i = 0; i < 3 && current.includes('%'); i++) {
    try {
      current = decodeURIComponent(current);
    } catch {
      break;
    }
  }
  return current === '.' || current === '..';
}

/**
 * A value as one path segment: a string or a finite number, never a dot segment; undefined when
 * it cannot be one. Throws URIError for a string that is not valid Unicode.
 */
export function pathSegment(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(Math.trunc(value)) ? String(value) : undefined; // NaN, Infinity: not safe
  if (typeof value !== 'string' || isDotSegment(value)) return undefined;
  return encodeURIComponent(value);
}

/** Whether a url is absolute (has a scheme), so that fetch can use it without a base. */
export function isAbsoluteUrl(url: string): boolean {
  return /^[a-zA-Z][a-zA-Z\d+.-]*:/.test(url);
}

/** The last segment of a url's path that is not a template: `/api/users.json` -> `users`. */
export function resourceName(url: string): string | undefined {
  const path = splitUrl(url).path.replace(/^[a-z][\w+.-]*:\/\/[^/]*/i, '');
  const segments = path.split('/').filter((segment) => segment !== '' && !segment.includes('{'));
  const last = segments.pop();
  return last === undefined ? undefined : last.replace(/\.\w+$/, '');
}
