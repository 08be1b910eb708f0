/**
 * What the persistence layer needs to know of records and their model classes. The Model
 * implements these interfaces; proxies, readers and writers depend only on them, so data flows
 * one way and no lower layer imports a higher one.
 */
import type { FieldErrors } from '../errors/ProxyError.js';

export type Action = 'create' | 'read' | 'update' | 'destroy';
export const ACTIONS: readonly Action[] = ['create', 'read', 'update', 'destroy'];

export type Direction = 'ASC' | 'DESC';

/** Sort by a property. `sorterFn` sorts locally only and cannot be sent to a server. */
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
  /** The model's name (`'User'`): used in messages and by presets (Rails' `{ user: ... }`). */
  getEntityName(): string;
  readonly idProperty: string;
  readonly clientIdProperty: string | undefined;
  /** The declared fields; empty for a model that declares none (every key is then written). */
  getFields(): readonly FieldInfo[];
  /** Make a record from one item of a read's answer. */
  fromServer(data: Record<string, unknown>): RecordLike;
}

/** A record as the persistence layer sees it (the Model implements it). */
export interface RecordLike {
  readonly phantom: boolean;
  readonly dirty: boolean;
  /** Unique per record; sent as `clientIdProperty` so a server can echo it. */
  readonly clientId: string;
  getId(): unknown;
  /** The current (converted) value of a field. */
  readField(name: string): unknown;
  /**
   * The value of a date field still held as the canonical ISO 8601 string it would be written as
   * (`YYYY-MM-DDTHH:mm:ss.sssZ`, not converted yet), else undefined: the writer sends it as it is.
   */
  storedIsoDate(name: string): string | undefined;
  /** All current values, converted, keyed by field name. */
  getData(): Record<string, unknown>;
  isModified(name: string): boolean;
  getModelClass(): ModelClassLike;
  /** The ETag of the record's last response, kept for `If-Match`. */
  etag: string | undefined;
  /** The key of the record's pending create; the same across every try until it succeeds. */
  readonly idempotencyKey: string;
  /** The key of the batched create this new record was first sent in (kept until it succeeds). */
  batchKey: string | undefined;
  /** True when the record's last write failed in a way that may have reached the server. */
  readonly outcomeUnknown: boolean;
  /** Snapshot what is about to be sent, so that edits made meanwhile can be told apart. */
  beginWrite(action: Action): unknown;
  /** The write succeeded: merge the server's data (and the id it assigned) and commit what was sent. */
  completeWrite(snapshot: unknown, serverData: Record<string, unknown> | undefined, assignedId: unknown, written?: Record<string, unknown>): void;
  /** The destroy succeeded. */
  completeDestroy(): void;
  /**
   * The write failed. `uncertain`: it may have reached the server (no answer, a 5xx), so a
   * later 404 to its DELETE or a replayed create answers for it; else it certainly was not
   * applied, and a new record's next create starts afresh (a new idempotency key).
   */
  failWrite(uncertain: boolean, sent?: unknown): void;
  /** The body of the last write that may have been applied without an answer (else undefined). */
  readonly unconfirmedWrite: unknown;
  /** Field errors of a failed write (an empty object clears them). */
  setServerErrors(errors: FieldErrors): void;
}

/** Anything but undefined, null and '' is a valid id (so 0 is one). */
export function isValidId(id: unknown): boolean {
  return id !== undefined && id !== null && id !== '' && !(typeof id === 'number' && Number.isNaN(id));
}
