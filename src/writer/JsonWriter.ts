import { CARRY, STORED } from '../operation/protocol.js';
import type { Request } from '../operation/Request.js';
import type { FieldInfo, RecordLike } from '../operation/types.js';
import { applyOptions, defineOptions, is, option, type OptionSchema } from '../util/options.js';
import { put } from '../util/path.js';

/** How Dates are written: ISO 8601 (default), UNIX seconds, milliseconds, or your function. */
export type DateFormat = 'iso' | 'timestamp' | 'time' | ((date: Date) => unknown);

export interface JsonWriterConfig {
  /**
   * Wrap the body in an object under this name: `{ user: {...} }` (Rails). A function gets the
   * request and returns the name (or undefined for no wrapping). Default none.
   * @example new JsonWriter({ rootProperty: 'data' })
   */
  rootProperty?: string | ((request: Request) => string | undefined);
  /** One record is written as an object, several as an array. Default true. */
  allowSingle?: boolean;
  /**
   * Write every field of an updated record, or only the changed ones and the id. Default: true
   * for PUT (a full replace must not drop fields), false for PATCH.
   */
  writeAllFields?: boolean;
  /** Write the id of an existing record in its body. Default true. A new record's id is never written. */
  writeRecordId?: boolean;
  /**
   * Write a new record's client id under this name, so the server can echo it back and a batched
   * create is matched to its records. Default none. @example { clientIdProperty: 'clientId' }
   */
  clientIdProperty?: string;
  /** How Date values are written. Default `'iso'` (ISO 8601, UTC). */
  dateFormat?: DateFormat;
  /** Change the whole body before it is sent. Default none. */
  transform?: (data: unknown, request: Request) => unknown;
  /** Change each record's data (e.g. into a JSON:API resource object). Default none. */
  transformRecord?: (data: Record<string, unknown>, record: RecordLike, request: Request) => unknown;
  /** The Content-Type of the body. Default `'application/json'`. */
  contentType?: string;
}

const schema: OptionSchema = {
  rootProperty: option({ expect: 'a string or a function', test: (v) => typeof v === 'string' || typeof v === 'function' }),
  allowSingle: option(is.boolean, () => true),
  writeAllFields: option(is.boolean),
  writeRecordId: option(is.boolean, () => true),
  clientIdProperty: option(is.string),
  dateFormat: option(
    { expect: '"iso", "timestamp", "time" or a function', test: (v) => v === 'iso' || v === 'timestamp' || v === 'time' || typeof v === 'function' },
    () => 'iso',
  ),
  transform: option(is.function),
  transformRecord: option(is.function),
  contentType: option(is.headerValue, () => 'application/json'),
};

/** The key a field is written under: its mapping when that is a plain name, else its name. */
function outputKey(field: FieldInfo): string {
  return field.mapping !== undefined && !field.mapping.includes('.') ? field.mapping : field.name;
}

/**
 * Writes the records of a create, update or destroy as the JSON body of a request.
 */
export class JsonWriter {
  /** {@inheritDoc JsonWriterConfig.rootProperty} */
  declare rootProperty: JsonWriterConfig['rootProperty'];
  /** {@inheritDoc JsonWriterConfig.allowSingle} */
  declare allowSingle: boolean;
  /** {@inheritDoc JsonWriterConfig.writeAllFields} */
  declare writeAllFields: boolean | undefined;
  /** {@inheritDoc JsonWriterConfig.writeRecordId} */
  declare writeRecordId: boolean;
  /** {@inheritDoc JsonWriterConfig.clientIdProperty} */
  declare clientIdProperty: string | undefined;
  /** {@inheritDoc JsonWriterConfig.dateFormat} */
  declare dateFormat: DateFormat;
  /** {@inheritDoc JsonWriterConfig.transform} */
  declare transform: JsonWriterConfig['transform'];
  /** {@inheritDoc JsonWriterConfig.transformRecord} */
  declare transformRecord: JsonWriterConfig['transformRecord'];
  /** {@inheritDoc JsonWriterConfig.contentType} */
  declare contentType: string;

  /** The id field of the fields last written: found once, not for every record. */
  #ids: { fields: readonly FieldInfo[]; idProperty: string; idField: FieldInfo | undefined } | undefined;

  constructor(config: JsonWriterConfig = {}) {
    applyOptions(this, 'JsonWriter', schema, config);
  }

  /** Put the body for the request's records on `request.jsonData` (a single destroy has none). */
  write(request: Request): void {
    const records = request.operation.records;
    if (records.length === 0) return;
    if (request.action === 'destroy' && records.length === 1) return;
    const written = request.operation.written;
    const transformRecord = this.transformRecord;
    const items = records.map((record, index) => {
      const own = this.getRecordData(record, request);
      // With the records its write carries (nested write), each written by this writer too.
      const data = (written[index] = record[CARRY]?.(own, request, this) ?? own);
      return transformRecord ? transformRecord.call(this, data, record, request) : data;
    });
    let body: unknown = this.allowSingle && items.length === 1 ? items[0] : items;
    const root = typeof this.rootProperty === 'function' ? this.rootProperty(request) : this.rootProperty;
    if (root) body = { [root]: body };
    request.jsonData = this.transform ? this.transform(body, request) : body;
  }

  /** The data written for one record. */
  getRecordData(record: RecordLike, request: Request): Record<string, unknown> {
    const model = record.getModelClass();
    const idProperty = model.idProperty;
    const fields = model.getFields();
    let ids = this.#ids;
    if (ids?.fields !== fields || ids.idProperty !== idProperty) {
      ids = this.#ids = { fields, idProperty, idField: fields.find((field) => field.name === idProperty) };
    }
    const idField = ids.idField;
    const idKey = idField ? outputKey(idField) : idProperty;
    const out: Record<string, unknown> = {};

    if (request.action === 'destroy') {
      out[idKey] = serialize(this, idField, record.getId(), record);
      return out;
    }

    const all = record.phantom || request.action === 'create' || (this.writeAllFields ?? request.method !== 'PATCH');
    if (fields.length === 0) {
      const data = record.getData();
      for (const key of Object.keys(data)) {
        if (key === idProperty || key === '__proto__') continue;
        if (all || record.isModified(key)) out[key] = serialize(this, undefined, data[key], record);
      }
    } else {
      const isoDates = this.dateFormat === 'iso';
      for (const field of fields) {
        if (!field.persist || field.name === idProperty) continue;
        if (!all && !record.isModified(field.name)) continue;
        // A field given no value is not written (it reads as its blank, which is no value set).
        let value = record[STORED](field.name);
        if (value === undefined) continue;
        if (typeof value === 'string' && field.type === 'date') {
          // A date still held as the canonical ISO string it would be written as: written as is.
          if (isoDates && field.serialize === undefined) {
            put(out, outputKey(field), value);
            continue;
          }
          value = record.get(field.name);
        }
        put(out, outputKey(field), serialize(this, field, value, record));
      }
    }

    if (record.phantom) {
      // A new record's id would be of the client's making: never send it (json-server keeps it).
      const clientIdProperty = this.clientIdProperty ?? model.clientIdProperty;
      if (clientIdProperty !== undefined) out[clientIdProperty] = record.clientId;
    } else if (this.writeRecordId) {
      out[idKey] = serialize(this, idField, record.getId(), record);
    }
    return out;
  }
}

/** A value as the writer writes it: through the field's `serialize`, else a Date in `dateFormat` (an invalid one as null). */
function serialize(writer: JsonWriter, field: FieldInfo | undefined, value: unknown, record: RecordLike): unknown {
  if (field?.serialize) return field.serialize(value, record);
  if (!(value instanceof Date)) return value;
  const format = writer.dateFormat;
  const time = value.getTime();
  if (Number.isNaN(time)) return null;
  if (typeof format === 'function') return format(value);
  return format === 'iso' ? value.toISOString() : format === 'time' ? time : Math.floor(time / 1000);
}

defineOptions(JsonWriter.prototype, 'JsonWriter', schema);

/**
 * Where a body that JSON cannot hold went wrong: the first field of the records' written data
 * that cannot be written on its own (`"notes"`, `"notes" of record 2`), else undefined.
 */
export function unwritableField(written: readonly (Record<string, unknown> | undefined)[]): string | undefined {
  for (const [index, data] of written.entries()) {
    for (const key of Object.keys(data ?? {})) {
      try {
        JSON.stringify(data?.[key]);
      } catch {
        return `${JSON.stringify(key)}${written.length > 1 ? ` of record ${index + 1}` : ''}`;
      }
    }
  }
  return undefined;
}

/** Make a writer from a writer or a writer config (checked like the constructor's). */
export function toWriter(value: unknown): JsonWriter {
  if (value instanceof JsonWriter) return value;
  const writer = new JsonWriter();
  applyOptions(writer, 'JsonWriter', schema, value);
  return writer;
}
