/**
 * What a stored intent carries (API.md 10): a record's values (every field where the writer
 * sends every field, so a replay after a reload sends what the live record would have sent), the
 * phantom parents it waits for and which of its keys each fills (so a child made again from
 * storage in another page still gets its parent's id), and the idempotency key of a create,
 * fixed when it is stored and given to the record at once.
 */
import { ProxyError } from '../errors/ProxyError.js';
import { extensions } from '../model/extensions.js';
import type { Model } from '../model/Model.js';
import { metaOf } from '../model/internal.js';
import { Operation } from '../operation/Operation.js';
import { Request } from '../operation/Request.js';
import { AjaxProxy } from '../proxy/AjaxProxy.js';
import { ServerProxy } from '../proxy/ServerProxy.js';
import { JsonWriter } from '../writer/JsonWriter.js';
import type { Write } from './coalesce.js';
import type { Entry, Fields } from './entry.js';
import type { AnyModel } from './types.js';

/** The write of a save: a new record's every value; else the changed ones and their base (every field where the writer sends every field). */
export function saveWrite(record: Model<object>): Write {
  const model = record.getModelClass();
  const phantom = record.phantom;
  let values: Fields;
  let before: Fields = {};
  try {
    if (phantom || sendsEveryField(model, record)) {
      values = json(record.getData());
      delete values[model.idProperty];
      if (!phantom) before = { ...values, ...json(record.modified) };
    } else {
      values = json(record.getChanges());
      before = json(record.modified);
    }
  } catch (error) {
    throw new ProxyError('config', `${model.getEntityName()}: a value JSON cannot hold`, { cause: error, mayHaveBeenApplied: false });
  }
  return { type: 'save', phantom, values, before };
}

/** The model's writer sends every field of an update (writeAllFields, or an update by a verb other than PATCH). */
function sendsEveryField(model: AnyModel, record: Model<object>): boolean {
  const proxy = model.getProxy();
  if (!(proxy instanceof ServerProxy) || !(proxy.writer instanceof JsonWriter)) return false;
  const all = proxy.writer.writeAllFields;
  if (all !== undefined) return all;
  return !(proxy instanceof AjaxProxy) || proxy.getMethod(new Request({ operation: new Operation({ action: 'update', records: [record] }) })).toUpperCase() !== 'PATCH';
}

/**
 * The keys of `record` that wait for a phantom parent, each with that parent's client id: those
 * it references now, and those `stored` (its entry not yet sent) had whose key is still unset
 * and whose parent the outbox still holds (a parent discarded since is no longer waited for).
 */
export function referencesOf(record: Model<object>, stored: Entry | undefined, values: Fields, holds: (clientId: string) => boolean): { refs: Entry['refs']; parents: string[] } {
  const refs: Entry['refs'] = {};
  if (stored !== undefined) for (const [field, parent] of Object.entries(stored.refs)) if ((values[field] ?? null) === null && holds(parent)) refs[field] = parent;
  for (const [field, parent] of extensions.referencesOf?.(record) ?? []) refs[field] = parent.clientId;
  const parents = new Set(Object.values(refs));
  for (const parent of extensions.waitsFor?.(record) ?? []) parents.add(parent.clientId);
  return { refs, parents: [...parents] };
}

/** The create's idempotency key is the record's from now on: a direct save of it (after close() too) sends it under that key. */
export function giveKey(record: Model<object>, entry: Entry): void {
  const meta = metaOf(record);
  if (entry.action === 'create' && meta.state.status === 'new') meta.state = { status: 'new', key: entry.key };
}

/** A cycle of references among new records from `record` (its first record repeated at the end), if any. */
export function cycleOf(record: Model<object>): Model<object>[] | undefined {
  const waitsFor = extensions.waitsFor;
  if (waitsFor === undefined) return undefined;
  const path: Model<object>[] = [];
  const done = new Set<Model<object>>();
  const visit = (at: Model<object>): Model<object>[] | undefined => {
    const from = path.indexOf(at);
    if (from >= 0) return [...path.slice(from), at];
    if (done.has(at)) return undefined;
    path.push(at);
    for (const parent of waitsFor(at)) {
      const cycle = visit(parent);
      if (cycle !== undefined) return cycle;
    }
    path.pop();
    done.add(at);
    return undefined;
  };
  return visit(record);
}

/** The error of a create refused for a cycle (with its operation, as a sync lists it). */
export function cycleError(record: Model<object>, cycle: readonly Model<object>[]): ProxyError {
  const error = new ProxyError('config', `write refused: a cycle of keys among new records: ${cycle.map((one) => one.clientId).join(' -> ')}; nothing was sent`, { mayHaveBeenApplied: false });
  new Operation({ action: 'create', records: [record] }).setException(error);
  return error;
}

/** Values as stored: JSON (a date as its ISO string). */
export function json(values: object): Fields {
  const parsed: unknown = JSON.parse(JSON.stringify(values));
  const fields: Fields = {};
  if (typeof parsed === 'object' && parsed !== null) for (const [name, value] of Object.entries(parsed)) fields[name] = value;
  return fields;
}

export function newKey(): string {
  return globalThis.crypto.randomUUID();
}
