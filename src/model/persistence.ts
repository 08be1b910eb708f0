/**
 * Saving, destroying and re-reading a record through its proxy: the operations a record's
 * save(), destroy() and reload() run in its write queue.
 */
import { Operation } from '../operation/Operation.js';
import { ResultSet } from '../operation/ResultSet.js';
import type { Action } from '../operation/types.js';
import type { Proxy } from '../proxy/Proxy.js';
import { DATA, eachOwner, META, OWNERS, touch } from './internal.js';
import type { Model, PersistOptions } from './Model.js';
import { entityNameOf, recordInfo } from './modelInfo.js';
import { sameShown } from './snapshot.js';
import { mergeServerValues } from './values.js';
import { eraseRecord } from './writes.js';
import { mayExist, SAVED } from './writeState.js';

/**
 * Take a freshly read copy of a record (its values and ETag): fields with local edits keep them
 * on top; the stores that hold it and its subscribers hear of the change.
 */
export function takeServerRecord(record: Model<object>, fresh: Model<object>): void {
  if (fresh.etag !== undefined) record.etag = fresh.etag;
  // An edited field's saved value may change, or the server may now hold the edit (clean again):
  // visible in `modified` and `dirty` though no value changed.
  const modified = record[META]?.modified;
  const before = modified === undefined ? undefined : { ...modified };
  const changed = mergeServerValues(record, fresh[DATA]);
  if (changed.length === 0 && sameShown(before, record[META]?.modified)) return;
  touch(record);
  eachOwner(record, (owner) => owner.afterCommit(record, changed, false));
}

/** The proxy a record is saved through: the one given, its store's, else its model's. */
export function proxyOf(record: Model<object>, options: PersistOptions): Proxy {
  if (options.proxy) return options.proxy;
  const owners = record[OWNERS];
  const owner = Array.isArray(owners) ? owners[0] : owners;
  return owner?.proxy() ?? record.getModelClass().getProxy();
}

export async function runSave(record: Model<object>, options: PersistOptions): Promise<Operation> {
  if (record.erased) throw new TypeError(`${entityNameOf(recordInfo(record).model)}.save: the record was destroyed; make a new one to create it again`);
  const action: Action | undefined = record.phantom ? 'create' : record.dirty ? 'update' : undefined;
  if (action === undefined) {
    const operation = new Operation({ action: 'update', records: [record] });
    operation.setSuccessful(new ResultSet({ records: [record] }));
    return operation;
  }
  const operation = new Operation({ action, records: [record], ...requestOptions(options) });
  const proxy = proxyOf(record, options);
  await (action === 'create' ? proxy.create(operation) : proxy.update(operation));
  return operation;
}

export async function runDestroy(record: Model<object>, options: PersistOptions): Promise<Operation> {
  const operation = new Operation({ action: 'destroy', records: [record], ...requestOptions(options) });
  const state = record[META]?.state ?? SAVED;
  if (state.status === 'erased') {
    operation.setSuccessful(new ResultSet({ records: [record] }));
    return operation;
  }
  // Its create may have been applied: confirm it (same idempotency key), then destroy it.
  if (mayExist(state)) await runSave(record, options);
  if (record.phantom) {
    eraseRecord(record);
    operation.setSuccessful(new ResultSet({ records: [record] }));
    return operation;
  }
  await proxyOf(record, options).destroy(operation);
  return operation;
}

export function requestOptions(options: PersistOptions): { params?: Record<string, unknown>; signal?: AbortSignal; headers?: Record<string, string> } {
  return {
    ...(options.params ? { params: options.params } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  };
}
