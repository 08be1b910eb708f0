import type { FieldErrors } from '../errors/ProxyError.js';
import { unsafeId } from '../errors/messages.js';
import { idKey } from '../operation/commit.js';
import { ResultSet } from '../operation/ResultSet.js';
import { isUnsafeId, type Action, type ModelClassLike } from '../operation/types.js';
import { applyOptions, defineOptions, describeValue, is, isPlainObject, option, type OptionSchema } from '../util/options.js';
import { readPath, typeName } from '../util/path.js';
import { dev } from '../util/dev.js';

/** A dotted path into the body, or a function that picks the value out of it (given the read's context). */
export type BodyPath = string | ((data: unknown, context: ReadContext) => unknown);

export interface JsonReaderConfig {
  /**
   * Where the records are: `''` (default) is the body itself (an array, or one object); a dotted
   * path (`'data'`, `'_embedded.users'`) or a function picks them out of an envelope (it is given
   * the body and the ReadContext: `context.collection` is true for a store load).
   * @example new JsonReader({ rootProperty: 'results' }) // Django REST framework
   */
  rootProperty?: BodyPath;
  /**
   * Where the total number of records (for paging) is. Default `'total'`; when absent the total
   * is the number of records read. @example { totalProperty: 'meta.total' }
   */
  totalProperty?: BodyPath;
  /**
   * A property of an envelope (a body whose records are under `rootProperty`) that is `false` when
   * the server failed. Never read from a record's own fields. Default `'success'`; `''` turns it off.
   */
  successProperty?: string;
  /** The message that goes with `success: false`. Default `'message'`. */
  messageProperty?: string;
  /** A response header holding the total, e.g. `'X-Total-Count'` (json-server, Rails). Default none. */
  totalHeader?: string;
  /** Change the parsed body before it is read. @example { transform: (body) => body.payload } */
  transform?: (data: unknown) => unknown;
  /**
   * Change each record's data before a record is made of it (unwrap `{ user: {...} }`, flatten
   * JSON:API `attributes`). Default none.
   */
  transformRecord?: (item: Record<string, unknown>, model: ModelClassLike | undefined) => Record<string, unknown>;
  /**
   * Where the server's summary of the whole collection is (a dotted path to a JSON object, e.g.
   * `'summary'`), read by a store load into `store.getRemoteSummary()`. Default none: not read.
   */
  summaryRootProperty?: string | undefined;
}

/** What a reader needs to know about the answer it reads. */
export interface ReadContext {
  action: Action;
  model?: ModelClassLike | undefined;
  response?: Response | undefined;
  /** True for a read of a whole collection (a store load), where one object is not a list. */
  collection?: boolean;
}

/** A body that is JSON but not in the shape the reader expects. */
export class ReadShapeError extends Error {
  override name = 'ReadShapeError';
}

const bodyPath = { expect: 'a string or a function', test: (v: unknown) => typeof v === 'string' || typeof v === 'function' };

const schema: OptionSchema = {
  rootProperty: option(bodyPath, () => ''),
  totalProperty: option(bodyPath, () => 'total'),
  successProperty: option(is.string, () => 'success'),
  messageProperty: option(is.string, () => 'message'),
  totalHeader: option(is.headerName),
  transform: option(is.function),
  transformRecord: option(is.function),
  summaryRootProperty: option(is.string),
};

function pick(data: unknown, path: BodyPath, context: ReadContext): unknown {
  return typeof path === 'function' ? path(data, context) : readPath(data, path);
}

function describePath(path: BodyPath, name: string): string {
  return typeof path === 'function' ? `the ${name} function` : `"${path}"`;
}

/** A number of records: a non-negative safe integer, or a string of decimal digits. */
function toTotal(value: unknown, where: string): number {
  const total = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (Number.isSafeInteger(total) && Number(total) >= 0) return Number(total);
  throw new ReadShapeError(`${where} is ${describeValue(value)}, not a number of records${dev(' (a whole number, 0 or more)')}`);
}

/** The server's summary at `path`: a JSON object copied and frozen (none there: undefined). */
function readSummary(data: unknown, path: string): Readonly<Record<string, unknown>> | undefined {
  const value = isPlainObject(data) ? readPath(data, path) : undefined;
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value) || Object.hasOwn(value, '__proto__')) {
    throw new ReadShapeError(`the summary at "${path}"${dev(' (summaryRootProperty)')} is ${isPlainObject(value) ? 'an object with a __proto__ key' : typeName(value)}${dev(', not a JSON object of figures')}`);
  }
  return Object.freeze(Object.assign(Object.create(null) as Record<string, unknown>, value));
}

function firstString(values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === 'string');
}

function toStrings(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')) return value;
  return undefined;
}

/**
 * Field errors are an object of own properties without a prototype, whatever the field names:
 * `__proto__` or `constructor` are fields like any other, and a field without messages reads as
 * undefined (never as Object.prototype's `toString`). None found: undefined.
 */
function found(errors: FieldErrors): FieldErrors | undefined {
  for (const _field in errors) return errors; // one field is enough (no prototype: own fields only)
  return undefined;
}

/** `{ field: msg | msg[] }` -> FieldErrors, or undefined when a value is neither; `skip`: keys that are not fields. */
function fieldMap(value: unknown, arraysOnly: boolean, skip: string[] = []): FieldErrors | undefined {
  if (!isPlainObject(value)) return undefined;
  const errors: FieldErrors = Object.create(null);
  for (const [field, messages] of Object.entries(value)) {
    if (skip.includes(field)) continue;
    const list = arraysOnly && !Array.isArray(messages) ? undefined : toStrings(messages);
    if (list === undefined) return undefined;
    errors[field] = list;
  }
  return found(errors);
}

/** JSON:API `[{ source: { pointer }, detail }]`, Spring `[{ property, message }]` or Ext's form `[{ id, msg }]`. */
function fieldList(value: unknown): FieldErrors | undefined {
  if (!Array.isArray(value)) return undefined;
  const errors: FieldErrors = Object.create(null);
  for (const item of value) {
    if (!isPlainObject(item)) continue;
    const source = item.source;
    const pointer = isPlainObject(source) && typeof source.pointer === 'string' ? source.pointer : undefined;
    const field = pointer !== undefined ? pointer.split('/').pop() : firstString([item.property, typeof item.msg === 'string' ? item.id : undefined]);
    const message = firstString([item.detail, item.message, item.title, item.msg]);
    if (!field || message === undefined) continue;
    (errors[field] ??= []).push(message);
  }
  return found(errors);
}

/**
 * Reads JSON answers: the records (from the body or an envelope), the total, and the
 * `success`/`message` of servers that report failure in a 200. Also reads error bodies.
 */
export class JsonReader {
  /** {@inheritDoc JsonReaderConfig.rootProperty} */
  declare rootProperty: BodyPath;
  /** {@inheritDoc JsonReaderConfig.totalProperty} */
  declare totalProperty: BodyPath;
  /** {@inheritDoc JsonReaderConfig.successProperty} */
  declare successProperty: string;
  /** {@inheritDoc JsonReaderConfig.messageProperty} */
  declare messageProperty: string;
  /** {@inheritDoc JsonReaderConfig.totalHeader} */
  declare totalHeader: string | undefined;
  /** {@inheritDoc JsonReaderConfig.transform} */
  declare transform: ((data: unknown) => unknown) | undefined;
  /** {@inheritDoc JsonReaderConfig.transformRecord} */
  declare transformRecord: JsonReaderConfig['transformRecord'];
  /** {@inheritDoc JsonReaderConfig.summaryRootProperty} */
  declare summaryRootProperty: string | undefined;

  constructor(config: JsonReaderConfig = {}) {
    applyOptions(this, 'JsonReader', schema, config);
  }

  /**
   * Read a parsed body (undefined for an empty one). Records of a read are made with the model;
   * those of a write stay plain data for the proxy to merge into the records it sent.
   * Throws ReadShapeError when the body is not in the expected shape.
   */
  read(body: unknown, context: ReadContext): ResultSet {
    const data = this.transform && body !== undefined ? this.transform(body) : body;
    const root = data === undefined || data === null ? undefined : pick(data, this.rootProperty, context);
    // An envelope holds the records under rootProperty; a body that is the record itself is none,
    // so that a record's own `success: false` field is a value, not a failure.
    const envelope = isPlainObject(data) && root !== data ? data : undefined;
    if (envelope) {
      // successProperty '' reads the envelope itself: an object, never false.
      const success = readPath(envelope, this.successProperty);
      if (success === false || success === 'false') return new ResultSet({ success: false, message: this.#readMessage(envelope) });
    }
    const items = this.#readItems(data, root, context);
    const model = context.action === 'read' ? context.model : undefined;
    const records: unknown[] = model ? items.map((item) => model.fromServer(item)) : items;
    return new ResultSet({
      records,
      total: this.#readTotal(data, context, items.length),
      message: this.#readMessage(envelope),
      summary: context.action === 'read' && this.summaryRootProperty !== undefined ? readSummary(data, this.summaryRootProperty) : undefined,
    });
  }

  /** The message of an envelope, when it has one that is a string. */
  #readMessage(envelope: Record<string, unknown> | undefined): string | undefined {
    const message = envelope && readPath(envelope, this.messageProperty); // '' reads the envelope: not a string
    return typeof message === 'string' ? message : undefined;
  }

  #readItems(data: unknown, root: unknown, context: ReadContext): Record<string, unknown>[] {
    if (data === undefined || data === null) return [];
    if (root === undefined || root === null) {
      // A write answered without data: nothing to merge. (With rootProperty '' the root is the body, never absent here.)
      if (context.action !== 'read') return [];
      throw new ReadShapeError(
        `the answer has no records at ${describePath(this.rootProperty, 'rootProperty')}${dev(` (it has: ${isPlainObject(data) ? Object.keys(data).slice(0, 8).join(', ') : typeName(data)}); set the reader's rootProperty to where they are`)}`,
      );
    }
    let list: unknown[];
    if (Array.isArray(root)) {
      list = root;
    } else if (isPlainObject(root)) {
      if (context.collection && this.rootProperty === '') {
        const arrayKey = Object.keys(root).find((key) => Array.isArray(root[key]));
        if (arrayKey !== undefined) {
          throw new ReadShapeError(
            `expected an array of records but got an object with the array "${arrayKey}"${dev(`; set the reader's rootProperty to '${arrayKey}'`)}`,
          );
        }
      }
      list = [root];
    } else {
      throw new ReadShapeError(`expected records (an array or an object) but got ${typeName(root)}`);
    }
    const transformRecord = this.transformRecord;
    // Ids JSON.parse may have rounded are refused before any record is made of them.
    const key = context.model === undefined ? 'id' : idKey(context.model);
    const items: Record<string, unknown>[] = new Array(list.length);
    for (let i = 0; i < list.length; i++) {
      const item = list[i];
      if (!isPlainObject(item)) {
        throw new ReadShapeError(`record ${i} of the answer is ${typeName(item)}, not an object`);
      }
      const read = transformRecord ? transformRecord(item, context.model) : item;
      const id = read[key];
      if (isUnsafeId(id)) throw new ReadShapeError(unsafeId(id));
      items[i] = read;
    }
    return items;
  }

  /** The total from the header, else the body, else the number of records read. */
  #readTotal(data: unknown, context: ReadContext, count: number): number {
    const header = this.totalHeader !== undefined ? context.response?.headers.get(this.totalHeader)?.trim() : undefined;
    if (header) return toTotal(header, `the ${this.totalHeader} header`);
    const value = isPlainObject(data) && this.totalProperty !== '' ? pick(data, this.totalProperty, context) : undefined;
    return value === undefined || value === null ? count : toTotal(value, `the total at ${describePath(this.totalProperty, 'totalProperty')}`);
  }

  /**
   * Read an error body: a message, and field errors in any of the shapes servers use:
   * `{ errors: { field: msg | msg[] } }`, `{ message, errors: { field: msg[] } }`,
   * `{ field: msg[] }` (beside `success` and `message`), JSON:API `{ errors: [{ source: { pointer },
   * detail }] }`, Spring's `{ errors: [{ property, message }] }` and Ext's `{ errors: [{ id, msg }] }`.
   */
  readError(body: unknown): { message: string | undefined; fieldErrors: FieldErrors | undefined } {
    if (!isPlainObject(body)) return { message: undefined, fieldErrors: undefined };
    const errors = body.errors;
    const fieldErrors = fieldMap(errors, false) ?? fieldList(errors) ?? fieldMap(body, true, [this.successProperty, this.messageProperty]);
    let message = firstString([body.message, body.detail, body.error, body.title]);
    if (message === undefined && Array.isArray(errors) && isPlainObject(errors[0])) {
      const first = errors[0];
      message = firstString([first.detail, first.title, first.message]);
    }
    return { message, fieldErrors };
  }
}

defineOptions(JsonReader.prototype, 'JsonReader', schema);

/** Make a reader from a reader or a reader config (checked like the constructor's). */
export function toReader(value: unknown): JsonReader {
  if (value instanceof JsonReader) return value;
  const reader = new JsonReader();
  applyOptions(reader, 'JsonReader', schema, value);
  return reader;
}
