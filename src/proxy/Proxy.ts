import { ProxyError, isProxyError } from '../errors/ProxyError.js';
import { Batch, type BatchConfig } from '../operation/Batch.js';
import { Operation } from '../operation/Operation.js';
import { ACTIONS, type Action, type ModelClassLike, type RecordLike } from '../operation/types.js';
import { JsonReader, toReader, type JsonReaderConfig } from '../reader/JsonReader.js';
import { Observable } from '../util/events.js';
import { applyOptions, defineOptions, is, isPlainObject, option, type OptionSchema } from '../util/options.js';
import { JsonWriter, toWriter, type JsonWriterConfig } from '../writer/JsonWriter.js';

/** The options of every proxy; each is afterwards a property of the same name. */
export interface ProxyConfig {
  /** The Model class records are made of. Default none (reads then give plain objects). */
  model?: ModelClassLike;
  /** A reader or reader config. Default `new JsonReader()`. */
  reader?: JsonReader | JsonReaderConfig;
  /** A writer or writer config. Default `new JsonWriter()`. */
  writer?: JsonWriter | JsonWriterConfig;
  /**
   * Sync sends one request per action type (all its records together) instead of one per
   * record. Default false. @example new RestProxy({ url: '/users', batchActions: true })
   */
  batchActions?: boolean;
  /** The order of action types within a batch. Default `'create,update,destroy'`. */
  batchOrder?: string;
}

/** The payload of the `exception` event, fired once for every failed operation. */
export interface ProxyExceptionEvent {
  proxy: Proxy;
  operation: Operation;
  error: ProxyError;
  /** The fetch Response, when there was one. */
  response: Response | undefined;
}

/** The payload of the `retry` event, fired before a failed request is tried again. */
export interface ProxyRetryEvent {
  proxy: Proxy;
  operation: Operation;
  /** The try that failed (1 for the first). */
  attempt: number;
  /** Milliseconds until the next try. */
  delay: number;
  /** Why: the status that was answered, or the kind of failure ('network', 'timeout'). */
  reason: number | 'network' | 'timeout';
}

export interface ProxyEvents {
  exception: ProxyExceptionEvent;
  retry: ProxyRetryEvent;
}

/** The records of a batch, per action. */
export interface BatchRecords {
  create?: RecordLike[];
  update?: RecordLike[];
  destroy?: RecordLike[];
}

export interface BatchOptions extends BatchConfig {
  /** Params for every operation of the batch. */
  params?: Record<string, unknown>;
  /** Cancels every operation of the batch that has not finished. */
  signal?: AbortSignal;
  /** Called as each operation finishes, successful or not (stores commit as they go). */
  onOperationComplete?: (operation: Operation) => void;
}

const WRITE_ACTIONS = ['create', 'update', 'destroy'] as const;

const isBatchOrder = {
  expect: 'a comma-separated list of "create", "update" and "destroy"',
  test: (v: unknown) =>
    typeof v === 'string' && v.split(',').every((part) => WRITE_ACTIONS.some((action) => action === part.trim())),
};

export const proxySchema: OptionSchema = {
  model: option({
    expect: 'a Model class',
    test: (v) => typeof v === 'function' && 'fromServer' in v && 'getFields' in v,
  }),
  reader: option({ expect: 'a JsonReader or a reader config', test: (v) => v instanceof JsonReader || isPlainObject(v) }, () => ({}), toReader),
  writer: option({ expect: 'a JsonWriter or a writer config', test: (v) => v instanceof JsonWriter || isPlainObject(v) }, () => ({}), toWriter),
  batchActions: option(is.boolean, () => false),
  batchOrder: option(isBatchOrder, () => 'create,update,destroy'),
};

/**
 * The base of all proxies: runs operations, batches them for a sync, and reports failures
 * through the `exception` event. Subclasses implement `doRequest`.
 */
export class Proxy extends Observable<ProxyEvents> {
  /** The name used in messages. */
  static className = 'Proxy';
  /** Every option of the class, with its check and default. @internal */
  static optionSchema: OptionSchema = proxySchema;

  /** {@inheritDoc ProxyConfig.model} */
  declare model: ModelClassLike | undefined;
  /** {@inheritDoc ProxyConfig.reader} */
  declare reader: JsonReader;
  /** {@inheritDoc ProxyConfig.writer} */
  declare writer: JsonWriter;
  /** {@inheritDoc ProxyConfig.batchActions} */
  declare batchActions: boolean;
  /** {@inheritDoc ProxyConfig.batchOrder} */
  declare batchOrder: string;

  constructor(config: ProxyConfig = {}) {
    super();
    applyOptions(this, new.target.className, new.target.optionSchema, config);
  }

  create(operation: Operation): Promise<Operation> {
    return this.execute(operation, 'create');
  }

  read(operation: Operation): Promise<Operation> {
    return this.execute(operation, 'read');
  }

  update(operation: Operation): Promise<Operation> {
    return this.execute(operation, 'update');
  }

  destroy(operation: Operation): Promise<Operation> {
    return this.execute(operation, 'destroy');
  }

  /**
   * Run the operations for `records` in `batchOrder`: one operation per action type with
   * `batchActions`, else one per record, `concurrency` at a time. Resolves with the Batch once
   * every operation has finished (or, with `pauseOnException`, after the first failure): look at
   * `batch.exceptions`; it does not reject.
   */
  async batch(records: BatchRecords, options: BatchOptions = {}): Promise<Batch> {
    if (typeof records !== 'object' || records === null || Array.isArray(records)) {
      throw new TypeError('batch: expected an object { create?, update?, destroy? } of record arrays');
    }
    for (const key of Object.keys(records)) {
      if (!WRITE_ACTIONS.some((action) => action === key)) {
        throw new TypeError(`batch: unknown action "${key}"; expected create, update or destroy`);
      }
    }
    const { params, signal, onOperationComplete, ...batchConfig } = options;
    const batch = new Batch(batchConfig);
    const groups: Operation[][] = [];
    for (const part of this.batchOrder.split(',')) {
      const action = part.trim();
      const list = action === 'create' ? records.create : action === 'update' ? records.update : records.destroy;
      if (!list || list.length === 0 || !isAction(action)) continue;
      const base = { action, ...(signal ? { signal } : {}) };
      groups.push(
        this.batchActions
          ? partitionByBatchKey(action, list).map((records) => new Operation({ ...base, params: { ...params }, records }))
          : list.map((record) => new Operation({ ...base, params: { ...params }, records: [record] })),
      );
    }
    await batch.run(groups, (operation) => {
      // A plain callback rather than an async one: no frame kept per operation while it runs.
      const done = this.execute(operation, operation.action);
      if (onOperationComplete === undefined) return done;
      return done.then(
        () => onOperationComplete(operation),
        (error: unknown) => {
          onOperationComplete(operation);
          throw error;
        },
      );
    });
    return batch;
  }

  /** Send the operation; implemented by subclasses. */
  protected doRequest(operation: Operation): Promise<void> {
    return Promise.reject(
      new ProxyError('config', `${this.constructor.name} cannot send the ${operation.action} operation: use a RestProxy, AjaxProxy or MemoryProxy`),
    );
  }

  /** Run one operation and settle it: resolves with it when it succeeded, rejects with its ProxyError. */
  protected async execute(operation: Operation, action: Action): Promise<Operation> {
    if (!(operation instanceof Operation)) {
      throw new TypeError(`${action}: expected an Operation, got ${typeof operation}`);
    }
    if (operation.action !== action) {
      throw new TypeError(`${action}: the operation's action is "${operation.action}"`);
    }
    operation.complete = false;
    operation.success = undefined;
    operation.error = undefined;
    try {
      if (operation.signal?.aborted) {
        throw new ProxyError('abort', `${action} was aborted before it was sent`, { cause: operation.signal.reason });
      }
      if (action === 'destroy' && operation.records.some((record) => record.phantom)) {
        // A record removed while its create was unconfirmed: destroyed once the create is.
        operation.records = operation.records.filter((record) => !record.phantom);
        if (operation.records.length === 0) {
          operation.setSuccessful(undefined);
          return operation;
        }
      }
      if (action !== 'read') operation.beginWrite();
      await this.doRequest(operation);
      if (!operation.complete) operation.setSuccessful(operation.resultSet);
      return operation;
    } catch (thrown) {
      const error = isProxyError(thrown)
        ? thrown
        : new ProxyError('config', `${action} failed: ${thrown instanceof Error ? thrown.message : String(thrown)}`, { cause: thrown });
      error.operation ??= operation;
      error.request ??= operation.request;
      if (action !== 'read') {
        const sent = operation.records.length === 1 ? operation.request?.jsonData : undefined;
        for (const record of operation.records) record.failWrite(error.mayHaveBeenApplied, sent);
      }
      operation.setException(error);
      this.fire('exception', { proxy: this, operation, error, response: error.response });
      throw error;
    }
  }

  /**
   * Apply a successful write's answer to its records: match the server's items to the records
   * (by the echoed client id, else by position), check that every created record got an id, and
   * only then commit them all. `assignedId` is the id of a `Location` header, for one record.
   */
  protected commitWrite(
    operation: Operation,
    items: readonly Record<string, unknown>[],
    assignedId: unknown,
    fail: (message: string) => ProxyError,
  ): void {
    const records = operation.records;
    if (operation.action === 'destroy') {
      for (const record of records) record.completeDestroy();
      return;
    }
    const matched = matchItems(records, items, this.writer.clientIdProperty);
    // A created record is committed only with the id the server gave it; one answered without
    // an id stays new (it could never be updated), but the others of a batch are committed, so
    // that the next sync does not create them twice.
    const missing: number[] = [];
    // The id key of the records' model class, looked up again only when the class changes.
    let model: ModelClassLike | undefined;
    let key = '';
    for (let i = 0; i < records.length; i++) {
      const record = records[i];
      if (record === undefined) continue;
      const item = matched[i];
      const fallback = records.length === 1 ? assignedId : undefined;
      if (operation.action === 'create') {
        const recordModel = record.getModelClass();
        if (recordModel !== model) {
          model = recordModel;
          key = idKey(recordModel);
        }
        const id = item === undefined ? undefined : item[key];
        if (!isValidIdValue(id) && !isValidIdValue(fallback)) {
          missing.push(i);
          continue;
        }
      }
      record.completeWrite(operation.snapshots[i], item, fallback, operation.written[i]);
    }
    if (missing.length > 0) {
      throw fail(
        records.length === 1
          ? 'the server answered without an id for the new record (no id in the body and no Location header), so it could never be updated; the record stays new'
          : `the server answered without an id for ${missing.length} of the ${records.length} new records (${missing.map((i) => `#${i + 1}`).join(', ')}); those stay new, the others were saved`,
      );
    }
  }
}

defineOptions(Proxy.prototype, 'Proxy', proxySchema);

function isAction(value: string): value is Action {
  return ACTIONS.some((action) => action === value);
}

/**
 * The records of a batched action, one group per batch key: new records first sent together are
 * sent together again (same Idempotency-Key), and records never sent go in a group of their own.
 */
function partitionByBatchKey(action: string, records: readonly RecordLike[]): RecordLike[][] {
  if (action !== 'create') return [[...records]];
  const groups = new Map<string | undefined, RecordLike[]>();
  for (const record of records) {
    const key = record.batchKey;
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  return [...groups.values()];
}

function isValidIdValue(id: unknown): boolean {
  return id !== undefined && id !== null && id !== '';
}

/** The key of the id in server data: the id field's mapping, or the id property. */
export function idKey(model: ModelClassLike): string {
  const field = model.getFields().find((candidate) => candidate.name === model.idProperty);
  return field?.mapping ?? model.idProperty;
}

function matchItems(
  records: readonly RecordLike[],
  items: readonly Record<string, unknown>[],
  writerClientIdProperty: string | undefined,
): (Record<string, unknown> | undefined)[] {
  const model = records[0]?.getModelClass();
  const clientIdProperty = model?.clientIdProperty ?? writerClientIdProperty;
  if (clientIdProperty !== undefined && items.some((item) => item[clientIdProperty] !== undefined)) {
    const byClientId = new Map<unknown, Record<string, unknown>>();
    for (const item of items) {
      const { [clientIdProperty]: clientId, ...rest } = item;
      byClientId.set(String(clientId), rest);
    }
    return records.map((record) => byClientId.get(record.clientId));
  }
  return records.map((_, index) => items[index]);
}
