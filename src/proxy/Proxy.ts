import { ProxyError } from '../errors/ProxyError.js';
import { aborted, cannotSendOperation, failedWith, MIXED_CREATE, noId } from '../errors/messages.js';
import { Batch, type BatchConfig } from '../operation/Batch.js';
import { Operation } from '../operation/Operation.js';
import { FAIL, WRITE_STATE } from '../operation/protocol.js';
import { isValidId, type Action, type RecordLike } from '../operation/types.js';
import { mayBeGone, requestOf, type CreateRequest } from '../model/writeState.js';
import { Observable } from '../util/events.js';
import { applyOptions, defineOptions, type OptionSchema, type Stored } from '../util/options.js';
import type { JsonReader } from '../reader/JsonReader.js';
import type { JsonWriter } from '../writer/JsonWriter.js';
import { proxySchema, WRITE_ACTIONS, type ProxyConfig } from './options/proxy.js';
import { dev } from '../util/dev.js';

export type { ProxyConfig };

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

// The option properties come from ProxyConfig (declared once there, with their documentation).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface Proxy extends Omit<Stored<ProxyConfig, 'reader' | 'writer' | 'batchActions' | 'batchOrder'>, 'reader' | 'writer'> {
  /** The reader (made from the `reader` config when one was given). */
  reader: JsonReader;
  /** The writer (made from the `writer` config when one was given). */
  writer: JsonWriter;
}

/**
 * The base of all proxies: runs operations, batches them for a sync, and reports failures
 * through the `exception` event. Subclasses implement `doRequest`.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Proxy extends Observable<ProxyEvents> {
  /** The name used in messages. */
  static className = 'Proxy';
  /** Every option of the class, with its check and default. @internal */
  static optionSchema: OptionSchema = proxySchema;

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
      throw new TypeError(`batch: expected an object${dev(' { create?, update?, destroy? }')} of record arrays`);
    }
    for (const key of Object.keys(records)) {
      if (!WRITE_ACTIONS.some((action) => action === key)) throw new TypeError(`batch: unknown action "${key}"${dev('; expected create, update or destroy')}`);
    }
    const { params, signal, onOperationComplete, ...batchConfig } = options;
    const batch = new Batch(batchConfig);
    const groups: Operation[][] = [];
    for (const part of this.batchOrder.split(',')) {
      const action = part.trim();
      if (action !== 'create' && action !== 'update' && action !== 'destroy') continue;
      const list = records[action];
      if (!list || list.length === 0) continue;
      groups.push(this.batchGroups(action, list).map((members) => new Operation({ action, params: { ...params }, records: members, signal })));
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

  /**
   * The records of an action, one group per request: all together with `batchActions`, else one
   * by one. A create whose outcome is unknown is sent again as its request, whatever the options:
   * the same records in the same order.
   */
  protected batchGroups(action: Action, records: readonly RecordLike[]): RecordLike[][] {
    const groups: RecordLike[][] = [];
    let fresh = records;
    if (action === 'create' && this.resendsCreates()) {
      let resent: Set<CreateRequest> | undefined;
      fresh = records.filter((record) => {
        const request = requestOf(record[WRITE_STATE]);
        if (request === undefined) return true;
        if (!(resent ??= new Set()).has(request)) groups.push([...request.records]);
        resent.add(request);
        return false;
      });
    }
    if (this.batchActions) {
      const together = fresh.filter((record) => !this.goesAlone(action, record));
      if (together.length > 0) groups.push(together);
      fresh = fresh.filter((record) => this.goesAlone(action, record));
    }
    for (const record of fresh) groups.push([record]);
    return groups;
  }

  /** Whether a record goes in a request of its own even with `batchActions`: one whose destroy may have been applied (only a DELETE of one record answered 404 says it is gone). */
  protected goesAlone(action: Action, record: RecordLike): boolean {
    return action === 'destroy' && mayBeGone(record[WRITE_STATE]);
  }

  /** Whether a create whose outcome is unknown is sent again as its request (records, body and key): with idempotency keys. */
  protected resendsCreates(): boolean {
    return false;
  }

  /** Send the operation; implemented by subclasses. */
  protected doRequest(operation: Operation): Promise<void> {
    return Promise.reject(new ProxyError('config', cannotSendOperation(classNameOf(this), operation.action)));
  }

  /** Run one operation and settle it: resolves with it when it succeeded, rejects with its ProxyError. */
  protected async execute(operation: Operation, action: Action): Promise<Operation> {
    if (!(operation instanceof Operation)) throw new TypeError(`${action}: expected an Operation, got ${typeof operation}`);
    if (operation.action !== action) throw new TypeError(`${action}: the operation's action is "${operation.action}"`);
    operation.complete = false;
    operation.success = undefined;
    operation.error = undefined;
    operation.sentAs = undefined;
    let begun = false;
    try {
      const signal = operation.link ?? operation.signal;
      if (signal?.aborted) throw new ProxyError('abort', aborted(action, 'before'), { cause: signal.reason, mayHaveBeenApplied: false });
      if (action === 'create' && this.resendsCreates() && (await resend(operation))) {
        // Sent again meanwhile, by another save or sync: confirmed.
        operation.setSuccessful(undefined);
        return operation;
      }
      if (action === 'destroy' && operation.records.some((record) => record.phantom)) {
        // A record removed while its create was unconfirmed: destroyed once the create is.
        operation.records = operation.records.filter((record) => !record.phantom);
        if (operation.records.length === 0) {
          operation.setSuccessful(undefined);
          return operation;
        }
      }
      if ((action === 'update' || action === 'destroy') && operation.records.some((record) => !isValidId(record.getId()))) {
        throw new ProxyError('config', noId(action));
      }
      if (action !== 'read') {
        operation.begin();
        begun = true;
      }
      await this.doRequest(operation);
      if (!operation.complete) operation.setSuccessful(operation.resultSet);
      return operation;
    } catch (thrown) {
      const error =
        thrown instanceof ProxyError ? thrown : new ProxyError('config', failedWith(action, thrown instanceof Error ? thrown.message : String(thrown)), { cause: thrown });
      // setException names the operation on the error.
      error.request ??= operation.request;
      if (begun) failRecords(operation, error);
      operation.setException(error);
      this.fire('exception', { proxy: this, operation, error, response: error.response });
      throw error;
    } finally {
      const request = operation.sentAs;
      const sending = request === undefined ? undefined : inFlight.get(request);
      if (request !== undefined && sending?.operation === operation) {
        inFlight.delete(request);
        sending.end();
      }
    }
  }
}

/** Create requests being sent again, each with the operation that sends it: another send of one waits for its end. */
const inFlight = new WeakMap<CreateRequest, { operation: Operation; ended: Promise<void>; end: () => void }>();

/**
 * Make a create the request it must be sent as: a record whose create may have been applied is
 * sent again in its request, with the same records (a save of one of them sends them all), once
 * no other send of that request is in flight. True when one confirmed them meanwhile.
 */
async function resend(operation: Operation): Promise<boolean> {
  for (let waited = false; ; waited = true) {
    const request = requestOfAll(operation.records);
    operation.sentAs = request;
    if (request === undefined) return waited && operation.records.every((record) => !record.phantom);
    const busy = inFlight.get(request);
    if (busy === undefined) {
      // Checked and taken in one step: no other send of the request can start in between.
      operation.records = [...request.records];
      let end = (): void => undefined;
      const ended = new Promise<void>((resolve) => (end = resolve));
      inFlight.set(request, { operation, ended, end });
      return false;
    }
    await busy.ended;
  }
}

/** The request these records were sent in, when one of them waits for its create to be confirmed; refuses other records beside them. */
function requestOfAll(records: readonly RecordLike[]): CreateRequest | undefined {
  let request: CreateRequest | undefined;
  for (const record of records) request ??= requestOf(record[WRITE_STATE]);
  if (request === undefined) return undefined;
  const members = new Set(request.records);
  if (records.some((record) => !members.has(record))) throw new ProxyError('config', MIXED_CREATE);
  return request;
}

defineOptions(Proxy.prototype, 'Proxy', proxySchema);

/** A proxy's class as messages name it: its own `className` literal, never constructor.name, which a minifier renames. */
export function classNameOf(proxy: Proxy): string {
  const name: unknown = Reflect.get(proxy.constructor, 'className');
  return typeof name === 'string' ? name : 'Proxy';
}

/** Tell the records of a failed write; those a partly answered create did commit keep their success. */
function failRecords(operation: Operation, error: ProxyError): void {
  const records = operation.records;
  const single = records.length === 1;
  const applied = error.mayHaveBeenApplied ? 'maybe' : 'no';
  const body = single ? operation.request?.jsonData : undefined;
  const fieldErrors = error.kind === 'validation' && single ? (error.fieldErrors ?? Object.create(null)) : undefined;
  records.forEach((record, i) => {
    if (operation.action === 'create' && record[WRITE_STATE].status === 'saved') return;
    record[FAIL](applied, body, fieldErrors, operation.snapshots[i], operation.action === 'destroy');
  });
}
