import type { ProxyError } from '../errors/ProxyError.js';
import type { Link } from '../http/link.js';
import type { CreateRequest } from '../model/writeState.js';
import { newKey } from '../util/ids.js';
import { dev } from '../util/dev.js';
import { assignOptions, is, isPlainObject, option, type OptionSchema } from '../util/options.js';
import { SEND, WRITE_STATE } from './protocol.js';
import type { Request } from './Request.js';
import type { ResultSet } from './ResultSet.js';
import { ACTIONS, type Action, type Filter, type Grouper, type RecordLike, type Sorter, type SummaryRequest } from './types.js';

export interface OperationConfig<R extends RecordLike = RecordLike> {
  /** `'create' | 'read' | 'update' | 'destroy'`. Required. */
  action: Action;
  /** The records to write (create, update, destroy). */
  records?: R[];
  /** The id of a read by id. */
  id?: unknown;
  /** Params of this operation; they win over `extraParams` and lose to the generated ones. */
  params?: Record<string, unknown>;
  /** The page of a read (1-based; sent as `pageParam`). */
  page?: number;
  /** The index of the first record of a read (sent as `startParam`; 0 is sent). */
  start?: number;
  /** The page size of a read (sent as `limitParam`). */
  limit?: number;
  /** The sorters of a read. @example [{ property: 'name', direction: 'DESC' }] */
  sorters?: Sorter[];
  /** The filters of a read. @example [{ property: 'age', operator: '>=', value: 18 }] */
  filters?: Filter[];
  /** The grouper of a read (sent as `groupParam`). @example { property: 'dept' } */
  grouper?: Grouper;
  /** The server summaries a read asks for (sent as `summaryParam`). @example [{ property: 'amount', summary: 'sum' }] */
  summary?: SummaryRequest[];
  /** Cancels the operation (kind 'abort'); records are left as they were. */
  signal?: AbortSignal;
  /** A url for this operation alone (wins over `api` and `url`). */
  url?: string;
  /** Headers for this operation alone, added to the proxy's. */
  headers?: Record<string, string>;
}

const isRecordArray = {
  expect: 'an array of records',
  test: (v: unknown) => Array.isArray(v) && v.every((r) => typeof r === 'object' && r !== null && SEND in r),
};
const isArrayOfObjects = {
  expect: 'an array of objects with a property',
  test: (v: unknown) => Array.isArray(v) && v.every((item) => typeof item === 'object' && item !== null && 'property' in item),
};

const schema: OptionSchema = {
  action: option({ expect: `one of ${ACTIONS.map((a) => `"${a}"`).join(', ')}`, test: (v) => ACTIONS.some((a) => a === v) }),
  records: option(isRecordArray, () => []),
  id: option({ expect: 'anything', test: () => true }),
  params: option(is.plainObject, () => ({})),
  page: option(is.nonNegativeInteger),
  start: option(is.nonNegativeInteger),
  limit: option(is.nonNegativeInteger),
  sorters: option(isArrayOfObjects, () => []),
  filters: option(isArrayOfObjects, () => []),
  grouper: option({ expect: 'an object with a property', test: (v) => isPlainObject(v) && 'property' in v }),
  summary: option(isArrayOfObjects),
  signal: option({ expect: 'an AbortSignal', test: (v) => v instanceof AbortSignal }),
  url: option(is.string),
  headers: option(is.plainObject, () => ({})),
};

/**
 * One action on the server: a create, read, update or destroy of some records (or a read by
 * id, or of a collection). Proxies execute it and fill in the outcome.
 */
export class Operation<R extends RecordLike = RecordLike> {
  /** {@inheritDoc OperationConfig.action} */
  declare action: Action;
  /** {@inheritDoc OperationConfig.records} */
  declare records: R[];
  /** {@inheritDoc OperationConfig.id} */
  declare id: unknown;
  /** {@inheritDoc OperationConfig.params} */
  declare params: Record<string, unknown>;
  /** {@inheritDoc OperationConfig.page} */
  declare page: number | undefined;
  /** {@inheritDoc OperationConfig.start} */
  declare start: number | undefined;
  /** {@inheritDoc OperationConfig.limit} */
  declare limit: number | undefined;
  /** {@inheritDoc OperationConfig.sorters} */
  declare sorters: Sorter[];
  /** {@inheritDoc OperationConfig.filters} */
  declare filters: Filter[];
  /** {@inheritDoc OperationConfig.grouper} */
  declare grouper: Grouper | undefined;
  /** {@inheritDoc OperationConfig.summary} */
  declare summary: SummaryRequest[] | undefined;
  #signal: AbortSignal | undefined;
  /** {@inheritDoc OperationConfig.signal} */
  get signal(): AbortSignal | undefined {
    return this.#signal ?? this.link?.signal();
  }
  set signal(value: AbortSignal | undefined) {
    this.#signal = value;
  }
  /** {@inheritDoc OperationConfig.url} */
  declare url: string | undefined;
  /** {@inheritDoc OperationConfig.headers} */
  declare headers: Record<string, string>;

  /** True once the operation succeeded, false once it failed, undefined before. */
  success: boolean | undefined;
  /** True once the operation has finished, either way. */
  complete = false;
  error: ProxyError | undefined;
  resultSet: ResultSet | undefined;
  response: Response | undefined;
  request: Request | undefined;
  /**
   * What each record looked like when it was sent, by its position in `records`. Arrays rather
   * than Maps keyed by record: a sync of 1,000 makes 1,000 of these.
   */
  snapshots: unknown[] = [];
  /** What the writer wrote for each record (before transformRecord), by its position in `records`. */
  written: (Record<string, unknown> | undefined)[] = [];
  /** @internal The create request this operation sends (see model/writeState.ts). */
  sentAs: CreateRequest | undefined;
  /** @internal Sent once, never retried by the proxy (an outbox backs off itself). */
  declare once?: boolean;
  /** @internal A read's validator: sent as If-None-Match when the read asks for this url (cache buster aside; none: a read by id). */
  declare validator?: { url?: string | undefined; etag: string } | undefined;
  /** @internal The url (cache buster aside) and ETag of a read's answer, to send as its validator next time. */
  declare validated?: { url: string; etag: string } | undefined;
  /** @internal What aborts the operation when no `signal` is given (a store's load): its AbortSignal is made only if `signal` is read (AjaxProxy follows the link itself). */
  declare link?: Link | undefined;
  /** @internal The read was answered 304 Not Modified: nothing changed. */
  declare notModified?: boolean;

  constructor(config: OperationConfig<R>) {
    if (!isPlainObject(config) || config.action === undefined) {
      throw new TypeError(`Operation: the config must be an object with an action${dev(' ("create", "read", "update" or "destroy")')}`);
    }
    assignOptions(this, 'Operation', schema, config);
  }

  /** Whether the operation is about exactly one record (or, for a read, one id). */
  get isSingle(): boolean {
    return this.records.length === 1;
  }

  wasSuccessful(): boolean {
    return this.complete && this.success === true;
  }

  hasException(): boolean {
    return this.complete && this.success === false;
  }

  /**
   * The write is about to be sent: every record takes note (what it looks like now). A create is
   * sent as `sentAs` when it re-sends a request, else as a new request: a record sent alone keeps
   * the key of its earlier request that failed (nothing was applied), others get a new key.
   */
  begin(): void {
    const records = this.records;
    const action = this.action;
    const state = records.length === 1 ? records[0]?.[WRITE_STATE] : undefined;
    const key = state?.status === 'new' ? state.key : undefined;
    const request = action === 'create' ? (this.sentAs ??= { key: key ?? newKey(), records: [...records] }) : undefined;
    this.snapshots = records.map((record) => record[SEND](action, request));
    this.written = [];
  }

  setSuccessful(resultSet: ResultSet | undefined): void {
    this.resultSet = resultSet;
    this.success = true;
    this.error = undefined;
    this.complete = true;
  }

  setException(error: ProxyError): void {
    error.operation ??= this;
    this.error = error;
    this.success = false;
    this.complete = true;
  }
}

