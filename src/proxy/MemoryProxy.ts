import { ProxyError } from '../errors/ProxyError.js';
import { aborted, writeFailed } from '../errors/messages.js';
import { commitWrite, idKey } from '../operation/commit.js';
import type { Operation } from '../operation/Operation.js';
import { ResultSet } from '../operation/ResultSet.js';
import { isValidId } from '../operation/types.js';
import { filterItems } from '../util/filtering.js';
import { defineOptions, isPlainObject, option, type OptionSchema, type Schema } from '../util/options.js';
import { put, readPath } from '../util/path.js';
import { sortItems } from '../util/sorting.js';
import { proxySchema, type ProxyConfig } from './options/proxy.js';
import { Proxy } from './Proxy.js';
import { dev } from '../util/dev.js';

export interface MemoryProxyConfig extends ProxyConfig {
  /** The records, as plain data. Default `[]`. @example new MemoryProxy({ data: [{ id: 1, name: 'Ed' }] }) */
  data?: Record<string, unknown>[];
}

// The option properties come from MemoryProxyConfig (declared once there, with their documentation).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface MemoryProxy {
  /** {@inheritDoc MemoryProxyConfig.data} */
  data: Record<string, unknown>[];
}

const memorySchema = {
  ...proxySchema,
  data: option(
    { expect: 'an array of objects', test: (v) => Array.isArray(v) && v.every(isPlainObject) },
    () => [],
    (value) => (Array.isArray(value) ? value.map((item) => (isPlainObject(item) ? { ...item } : {})) : []),
  ),
} satisfies Schema<MemoryProxyConfig>;

/**
 * Keeps its records in memory and answers all four actions like a server would: paging,
 * sorting and filtering are done locally, and a created record gets the next numeric id.
 * For tests, examples and offline use.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class MemoryProxy extends Proxy {
  static override className = 'MemoryProxy';
  static override optionSchema: OptionSchema = memorySchema;

  constructor(config: MemoryProxyConfig = {}) {
    super(config);
  }

  protected override async doRequest(operation: Operation): Promise<void> {
    await Promise.resolve(); // answer asynchronously, like a server
    // Aborted while it waited to answer: nothing was applied.
    if ((operation.link ?? operation.signal)?.aborted) throw new ProxyError('abort', aborted(operation.action, 'before'), { mayHaveBeenApplied: false });
    const model = this.model ?? operation.records[0]?.getModelClass();
    const key = model ? idKey(model) : 'id';
    // The index of the item with this id: a 404 when there is none, unless `optional` (-1).
    const indexOfId = (id: unknown, optional?: true): number => {
      const index = this.data.findIndex((item) => item[key] === id || (isValidId(id) && String(item[key]) === String(id)));
      if (index === -1 && !optional) {
        throw new ProxyError('http', `${operation.action} of id ${JSON.stringify(id)} failed: 404 Not Found${dev(' (no such record in the MemoryProxy)')}`, { operation, status: 404, statusText: 'Not Found' });
      }
      return index;
    };

    if (operation.action === 'read') {
      const byId = operation.id !== undefined;
      let items = byId ? [this.data[indexOfId(operation.id)] ?? {}] : sortItems(filterItems(this.data, operation.filters, readPath), operation.sorters, readPath);
      const total = items.length;
      const limit = operation.limit || undefined;
      const start = operation.start ?? (operation.page !== undefined && limit !== undefined ? (operation.page - 1) * limit : 0);
      if (!byId) items = items.slice(start, limit && start + limit);
      const copies = items.map((item) => structuredClone(item));
      const records: unknown[] = model ? copies.map((item) => model.fromServer(item)) : copies;
      operation.setSuccessful(new ResultSet({ records, total }));
      return;
    }

    const answers: Record<string, unknown>[] = [];
    for (const record of operation.records) {
      if (operation.action === 'destroy') {
        const index = indexOfId(record.getId(), true);
        if (index !== -1) this.data.splice(index, 1);
        continue;
      }
      const data: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(record.getData())) put(data, name, value instanceof Date ? value.toISOString() : value);
      if (operation.action === 'create') {
        const id = this.data.reduce((max, item) => (typeof item[key] === 'number' ? Math.max(max, item[key]) : max), 0) + 1;
        data[key] = id;
        this.data.push(data);
      } else {
        this.data[indexOfId(record.getId())] = data;
      }
      answers.push({ ...data });
    }
    commitWrite(operation, answers, () => undefined, this.writer.clientIdProperty, (kind, problem) => new ProxyError(kind, writeFailed(operation.action, problem), { operation, mayHaveBeenApplied: true }));
    operation.setSuccessful(new ResultSet({ records: [...operation.records] }));
  }
}

defineOptions(MemoryProxy.prototype, 'MemoryProxy', memorySchema);
