// Path parsing shared by all conventions: /:collection[/:id], nested /:parent/:parentId/:collection[/:id].
import { singular, type Scope, type Store } from './store.js';

export interface ResourceRoute {
  kind: 'resource';
  collection: string;
  /** decoded item id (undefined on the collection) */
  id?: string;
  parent?: { collection: string; id: string };
  /** format suffix without the dot ('json'), if any */
  suffix?: string;
  trailingSlash: boolean;
  /** the collection's path as requested (prefix kept, no suffix, no trailing slash), still encoded */
  collectionPath: string;
  /** the stripped base path ('' or e.g. '/api') */
  prefix: string;
}

export type Route = ResourceRoute | { kind: 'root'; trailingSlash: boolean } | { kind: 'unknown' };

const SUFFIX = /\.(json)$/;

export function parseRoute(rawPath: string, basePath: string, store: Store): Route {
  let prefix = '';
  let path = rawPath;
  const base = basePath.replace(/\/+$/, '');
  if (base && (path === base || path.startsWith(`${base}/`))) {
    prefix = base;
    path = path.slice(base.length);
  } else if (!store.db.api && (path === '/api' || path.startsWith('/api/'))) {
    // Many clients are configured with an '/api' prefix; tolerate it unless 'api' is a collection.
    prefix = '/api';
    path = path.slice(4);
  }
  const trailingSlash = path.length > 1 && path.endsWith('/');
  let raw = path.split('/').filter((part) => part !== '');
  if (raw.length === 0) return { kind: 'root', trailingSlash: path.endsWith('/') };
  let suffix: string | undefined;
  const last = raw[raw.length - 1] ?? '';
  const match = SUFFIX.exec(last);
  if (match && !trailingSlash) {
    suffix = match[1];
    raw = [...raw.slice(0, -1), last.slice(0, -match[0].length)];
  }
  let parts: string[];
  try {
    parts = raw.map((part) => decodeURIComponent(part));
  } catch {
    return { kind: 'unknown' };
  }
  if (parts.some((part) => part === '') || parts.length > 4) return { kind: 'unknown' };
  const nested = parts.length >= 3;
  const collectionIndex = nested ? 2 : 0;
  const collection = parts[collectionIndex] ?? '';
  const route: ResourceRoute = {
    kind: 'resource',
    collection,
    trailingSlash,
    collectionPath: `${prefix}/${raw.slice(0, collectionIndex + 1).join('/')}`,
    prefix,
  };
  if (suffix) route.suffix = suffix;
  const id = parts[collectionIndex + 1];
  if (id !== undefined) route.id = id;
  if (nested) route.parent = { collection: parts[0] ?? '', id: parts[1] ?? '' };
  return route;
}

/** The scope of a nested route; 'missing' when the parent row does not exist. */
export function scopeOf(route: ResourceRoute, store: Store): Scope | 'missing' | undefined {
  if (!route.parent) return undefined;
  const parent = store.find(route.parent.collection, route.parent.id);
  if (!parent) return 'missing';
  return { field: `${singular(route.parent.collection)}Id`, value: parent.id };
}

/** Absolute URL of one item: <base><collection path>/<encoded id>. */
export function itemUrl(base: string, route: ResourceRoute, id: unknown): string {
  return `${base}${route.collectionPath}/${encodeURIComponent(String(id))}`;
}
