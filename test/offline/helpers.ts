/** Shared pieces of the outbox suites: an attached Item model on a test server, a storage to reopen. */
import { RestProxy, type RestProxyConfig } from '../../src/index.js';
import { MemoryStorage, Outbox, type OutboxConfig } from '../../src/offline.js';
import { defineItem } from '../resilience/helpers.js';
import type { TestServer } from '../server/index.js';

export { proxyErrorOf, rejectionOf, requestLines, requestsOf, rowsOf, sleep } from '../resilience/helpers.js';

/** A proxy on `<server>/items` with idempotency keys, as the outbox needs, and no proxy retry. */
export function outboxProxy(server: TestServer, overrides: RestProxyConfig = {}): RestProxy {
  return new RestProxy({ url: `${server.url}/items`, idempotencyKey: true, timeout: 2_000, ...overrides });
}

/** The outboxes the tests opened, closed by closeAll(). */
export const opened: Outbox[] = [];

/** A fresh Item model attached to a new outbox over `storage` (a new one by default), opened. */
export async function attached(server: TestServer, options: Partial<OutboxConfig> & { proxy?: RestProxyConfig } = {}) {
  const Item = defineItem(outboxProxy(server, options.proxy));
  const storage = options.storage ?? new MemoryStorage();
  const outbox = new Outbox({ name: 'test', storage, models: [Item], ...options });
  opened.push(outbox);
  await outbox.open();
  return { Item, outbox, storage };
}

/** Close every outbox a test opened (their names are free again). */
export async function closeAll(): Promise<void> {
  for (const outbox of opened.splice(0)) await outbox.close();
}

/** A storage that outlives its outbox, to simulate a reload: close() keeps the entries. */
export class ReopenableStorage extends MemoryStorage {
  override close(): Promise<void> {
    return Promise.resolve();
  }
}
