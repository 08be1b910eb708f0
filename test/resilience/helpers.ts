/**
 * Shared pieces of the resilience suites: a typed Item model bound to a test server, small
 * retry settings, and helpers to catch errors and read what the server received.
 */
import { Model, ProxyError, RestProxy, type RestProxyConfig } from '../../src/index.js';
import type { RecordedRequest, TestServer } from '../server/index.js';

export interface ItemData {
  id: number;
  /** A unique value the client puts on every record, to match rows without relying on ids. */
  uid: string;
  name: string;
  /** Counts the edits made to a record. */
  rev: number;
}

/** Retries that are quick enough for tests. */
export const FAST_RETRY: { limit: number; delay: number; backoffLimit: number } = { limit: 3, delay: 5, backoffLimit: 50 };

/**
 * A proxy on `<server>/items` with fast retries; `overrides` win. Its timeout is long enough never
 * to fire by itself on a loaded machine (other test files side by side; it was 2 s, and a GET that
 * took longer was retried once more than a test counted): a test about timeouts sets its own.
 */
export function itemProxy(server: TestServer, overrides: RestProxyConfig = {}): RestProxy {
  return new RestProxy({ url: `${server.url}/items`, retry: { ...FAST_RETRY }, timeout: 15_000, ...overrides });
}

/** A fresh Item model class whose static proxy is `proxy`. */
export function defineItem(proxy: RestProxy): typeof Item {
  return class extends Item {
    static override proxy = proxy;
  };
}

/** The shape of a model made by `defineItem` (used for types only). */
export class Item extends Model<ItemData> {
  static override fields = [{ name: 'id', type: 'int' }, { name: 'uid', type: 'string' }, { name: 'name', type: 'string' }, { name: 'rev', type: 'int' }];
}

/** The rejection of a promise that must reject (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  let outcome: { resolved: true } | { resolved: false; reason: unknown };
  try {
    await promise;
    outcome = { resolved: true };
  } catch (reason) {
    outcome = { resolved: false, reason };
  }
  if (outcome.resolved) throw new Error('expected the promise to reject, but it resolved');
  return outcome.reason;
}

/** The ProxyError a promise rejects with (fails the test for anything else). */
export async function proxyErrorOf(promise: Promise<unknown>): Promise<ProxyError> {
  const reason = await rejectionOf(promise);
  if (!(reason instanceof ProxyError)) throw new Error(`expected a ProxyError, got ${String(reason)}`);
  return reason;
}

/** `POST /items`, ... for every request the server received. */
export function requestLines(server: TestServer): string[] {
  return server.requests.map((request) => `${request.method} ${request.path}`);
}

/** The requests with this method (and path, when given). */
export function requestsOf(server: TestServer, method: string, path?: string): RecordedRequest[] {
  return server.requests.filter((request) => request.method === method && (path === undefined || request.path === path));
}

/** The rows of a collection on the server, by id. */
export function rowsOf(server: TestServer, collection = 'items'): Record<string, unknown>[] {
  return [...(server.db[collection] ?? [])].sort((a, b) => Number(a['id']) - Number(b['id']));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
