/**
 * What the persistence layer needs to know of records and their model classes. The Model
 * implements these interfaces; proxies, readers and writers depend only on them, so data flows
 * one way and no lower layer imports a higher one.
 */
import type { FieldErrors } from '../errors/ProxyError.js';
import type { CreateRequest, WriteState } from '../model/writeState.js';
import type { CARRY, ERASE, FAIL, SEND, STORED, SUCCEED, WRITE_STATE } from './protocol.js';
import type { Request } from './Request.js';

export type Action = 'create' | 'read' | 'update' | 'destroy';
export const ACTIONS: readonly Action[] = ['create', 'read', 'update', 'destroy'];

export type Direction = 'ASC' | 'DESC';

/**
 * Sort by a property. `sorterFn` sorts locally only and cannot be sent to a server. Sorted locally
 * (a store, a MemoryProxy) without one: Dates by time, numbers and booleans by value, strings by
 * code point (objects as their JSON); values of two kinds by kind (booleans, then numbers and
 * Dates, then strings); empty values (`undefined`, `null`, `NaN`, an invalid Date) last, first
 * with `'DESC'`.
 */
export interface Sorter {
  property: string;
  direction?: Direction;
  sorterFn?: (a: unknown, b: unknown) => number;
}

export type FilterOperator = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'like' | 'in' | 'notin' | 'search';

/**
 * Filter on a property. Without `operator` it is equality. `like` is a case-insensitive
 * substring match; `in` takes an array. `filterFn` filters locally only.
 */
export interface Filter {
  property: string;
  value?: unknown;
  operator?: FilterOperator;
  filterFn?: (value: unknown, record: unknown) => boolean;
}

export interface Grouper {
  property: string;
  direction?: Direction;
}

/** A server summary a load asks for: `{ property: 'amount', summary: 'sum' }` (a store's `remoteSummary`). */
export interface SummaryRequest {
  property: string;
  summary: 'sum' | 'average' | 'min' | 'max' | 'count';
}

export type FieldType = 'auto' | 'string' | 'int' | 'number' | 'boolean' | 'date';

/** A field of a model class as the reader and writer see it. */
export interface FieldInfo {
  readonly name: string;
  readonly type: FieldType;
  /** The name (or dotted path) of the value in server data, when it differs from `name`. */
  readonly mapping: string | undefined;
  /** False: the field is never written to the server. */
  readonly persist: boolean;
  readonly serialize: ((value: unknown, record: RecordLike) => unknown) | undefined;
}

/** A model class as the reader and writer see it. */
export interface ModelClassLike {
  /** The model's name for messages and client ids: its `entityName`, else one derived from its url. */
  getEntityName(): string;
  /** The name the model was given (`static entityName`), '' when none: presets that need one (Rails' `{ user: ... }`) use it first. */
  readonly entityName?: string;
  readonly idProperty: string;
  readonly clientIdProperty: string | undefined;
  /** The declared fields; empty for a model that declares none (every key is then written). */
  getFields(): readonly FieldInfo[];
  /** Make a record from one item of a read's answer. */
  fromServer(data: Record<string, unknown>): RecordLike;
}

/**
 * A record as the persistence layer sees it (the Model implements it): its public face, plus the
 * write protocol keyed by symbols the package does not export (see protocol.ts).
 */
export interface RecordLike {
  readonly phantom: boolean;
  readonly dirty: boolean;
  /** Unique per record; sent as `clientIdProperty` so a server can echo it. */
  readonly clientId: string;
  getId(): unknown;
  /** The current (converted) value of a field. */
  get(name: string): unknown;
  /** All current values, converted, keyed by field name. */
  getData(): Record<string, unknown>;
  isModified(name: string): boolean;
  getModelClass(): ModelClassLike;
  /** The ETag of the record's last response, kept for `If-Match`. */
  etag: string | undefined;
  /** @internal */
  readonly [WRITE_STATE]: WriteState;
  /** @internal */
  [SEND](action: Action, request?: CreateRequest): unknown;
  /** @internal */
  [SUCCEED](snapshot: unknown, item: Record<string, unknown> | undefined, assignedId: unknown, written?: Record<string, unknown>): void;
  /** @internal */
  [FAIL](applied: 'no' | 'maybe', body?: unknown, errors?: FieldErrors, snapshot?: unknown, destroy?: boolean): void;
  /** @internal */
  [ERASE](): void;
  /** @internal */
  [STORED](name: string): unknown;
  /** @internal */
  [CARRY]?(data: Record<string, unknown>, request: Request, writer: RecordWriter): Record<string, unknown> | undefined;
}

/** What a record's write asks of the writer for the records it carries (nested write): their data. */
export interface RecordWriter {
  getRecordData(record: RecordLike, request: Request): Record<string, unknown>;
}

/** Anything but undefined, null and '' is a valid id (so 0 is one). */
export function isValidId(id: unknown): boolean {
  return id !== undefined && id !== null && id !== '' && !(typeof id === 'number' && Number.isNaN(id));
}

/** A numeric id that JSON.parse may have rounded: beyond the integers a double holds exactly (2^53). */
export function isUnsafeId(id: unknown): id is number {
  return typeof id === 'number' && Number.isInteger(id) && !Number.isSafeInteger(id);
}
