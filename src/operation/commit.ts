/**
 * Applying a write's answer to its records: match the server's items to the records (by the
 * echoed client id, else by position), check that every created record got a usable id, and
 * only then commit them. Ext's Operation.process does the same for its records.
 */
import { ProxyError } from '../errors/ProxyError.js';
import { missingIds, unsafeId } from '../errors/messages.js';
import type { Operation } from './Operation.js';
import { ERASE, SUCCEED, WRITE_STATE } from './protocol.js';
import { isUnsafeId, isValidId, type ModelClassLike, type RecordLike } from './types.js';

/** The key of the id in server data: the id field's mapping, or the id property. */
export function idKey(model: ModelClassLike): string {
  const field = model.getFields().find((candidate) => candidate.name === model.idProperty);
  return field?.mapping ?? model.idProperty;
}

function matchItems(records: readonly RecordLike[], items: readonly Record<string, unknown>[], writerClientIdProperty: string | undefined): readonly (Record<string, unknown> | undefined)[] {
  const model = records[0]?.getModelClass();
  const clientIdProperty = writerClientIdProperty ?? model?.clientIdProperty; // the name the writer sent it under
  if (clientIdProperty !== undefined && items.some((item) => item[clientIdProperty] !== undefined)) {
    const byClientId = new Map<unknown, Record<string, unknown>>();
    for (const item of items) {
      const { [clientIdProperty]: clientId, ...rest } = item;
      byClientId.set(String(clientId), rest);
    }
    return records.map((record) => byClientId.get(record.clientId));
  }
  return items; // by position (an item past the last record is not read)
}

/**
 * Commit a successful write. `items`: the server's answer per record; `assignedId`: the id of a
 * `Location` header, asked for only by a single create whose answer has none. A created record answered without
 * a usable id stays new (it could never be updated); the others of a batch are committed, so that
 * the next sync does not create them twice. Throws (through `fail`) when some record could not be
 * committed: the write was applied, so the error says it may have been.
 */
export function commitWrite(
  operation: Operation,
  items: readonly Record<string, unknown>[],
  assignedId: () => unknown,
  writerClientIdProperty: string | undefined,
  fail: (kind: 'server' | 'parse', problem: string) => ProxyError,
): void {
  const records = operation.records;
  if (operation.action === 'destroy') {
    for (const record of records) record[ERASE]();
    return;
  }
  const matched = matchItems(records, items, writerClientIdProperty);
  const missing: number[] = [];
  let unsafe: number | undefined;
  // The id key of the records' model class, looked up again only when the class changes.
  let model: ModelClassLike | undefined;
  let key = '';
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    if (record === undefined) continue;
    const item = matched[i];
    let fallback: unknown;
    if (operation.action === 'create') {
      // A request sent again holds the records it was first sent with: one confirmed since is left as it is.
      if (record[WRITE_STATE].status !== 'creating') continue;
      const recordModel = record.getModelClass();
      if (recordModel !== model) {
        model = recordModel;
        key = idKey(recordModel);
      }
      const id = item === undefined ? undefined : item[key];
      if (isUnsafeId(id)) {
        unsafe = id;
        missing.push(i);
        continue;
      }
      if (!isValidId(id)) {
        fallback = records.length === 1 ? assignedId() : undefined;
        if (!isValidId(fallback)) {
          missing.push(i);
          continue;
        }
      }
    }
    record[SUCCEED](operation.snapshots[i], item, fallback, operation.written[i]);
  }
  if (unsafe !== undefined) throw fail('parse', unsafeId(unsafe));
  if (missing.length > 0) throw fail('server', missingIds(missing, records.length));
}
