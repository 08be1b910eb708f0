/**
 * One attempt of one entry: its request built now from its live record through the model's
 * proxy (fresh credentials from hooks; nothing secret is stored), and what a confirmed destroy
 * means for other copies of its row.
 */
import type { Model } from '../model/Model.js';
import { metaOf } from '../model/internal.js';
import { enqueue } from '../model/save.js';
import { Operation } from '../operation/Operation.js';
import { asJson } from './classify.js';
import type { Entry } from './entry.js';
import { heldRecord } from './held.js';
import { sentCreate } from './restore.js';
import { done } from './table.js';
import type { AnyModel } from './types.js';

/**
 * One request for the entry (none when it was already written, or the record was erased while it
 * waited in its queue). `restoredAndSent`: a create sent before a reload, sent again as it was.
 */
export async function attempt(entry: Entry, record: Model<object>, model: AnyModel, restoredAndSent: boolean): Promise<Operation> {
  const action = entry.action;
  const meta = metaOf(record);
  // Already written: a create confirmed by another send, an update whose edits an earlier one sent, a record gone.
  if ((action === 'create' && !record.phantom) || (action === 'update' && !record.dirty) || record.erased) return done(action, record);
  // A create goes under the entry's key, every time; sent before a reload, as it was sent.
  if (action === 'create' && meta.state.status === 'new') meta.state = restoredAndSent ? sentCreate(record, entry, model) : { status: 'new', key: entry.key };
  const operation = new Operation({ action, records: [record] });
  operation.once = true;
  const proxy = model.getProxy();
  const sent = await enqueue(record, () => (record.erased ? Promise.resolve(undefined) : action === 'create' ? proxy.create(operation) : action === 'update' ? proxy.update(operation) : proxy.destroy(operation)));
  return sent === undefined ? done(action, record) : operation;
}

/** The record's server id as stored (JSON), or null. */
export function storedId(record: Model<object>): Entry['rid'] {
  const stored = asJson({ id: record.getId() });
  return typeof stored === 'object' && stored !== null && !Array.isArray(stored) ? (stored['id'] ?? null) : null;
}

/**
 * The other saved records of the row a confirmed destroy (`entry`, of `record`) removed: they are
 * gone too (a load's copy, the record restored after a reload). Those without entries left (let go
 * once their own writes were sent) are found where this tab holds them (held.ts).
 */
export function copiesOf(entry: Entry, record: Model<object>, records: Iterable<Model<object>>, model: AnyModel | undefined): Model<object>[] {
  const rid = entry.rid ?? storedId(record);
  const row = JSON.stringify(rid);
  const out = new Set<Model<object>>();
  const held = model === undefined || rid === null ? undefined : heldRecord(model, rid);
  for (const other of held === undefined ? records : [...records, held]) {
    if (other !== record && !other.erased && !other.phantom && other.getModelClass().getEntityName() === entry.entity && JSON.stringify(storedId(other)) === row) out.add(other);
  }
  return [...out];
}
