/**
 * rest-proxy/offline in a buffered store: when its model is attached to an Outbox, the records
 * the outbox restored after a reload join the store before its first page's rows are taken, as
 * they join a Store at its first load (API.md section 10): new records on top, pending destroys
 * removed, pending updates held so that a page's row keeps them on top of the server's values.
 * The core's outbox hook does it; unattached, it costs one property read per page answer.
 */
import { extensions } from '../model/extensions.js';
import type { Model } from '../model/Model.js';
import { Operation } from '../operation/Operation.js';
import { idKey, keyOf } from '../store/list.js';
import type { LocalOffsets } from './offsets.js';
import type { BufferedRecords } from './records.js';

/** What the outbox's restore hook is given for a buffered store: returns what to call before each page's rows are taken. */
export function joinRestored<M extends Model>(records: BufferedRecords<M>, offsets: LocalOffsets<M>): () => void {
  const model = (): ReturnType<BufferedRecords<M>['host']['model']> => records.host.model();
  const joined = new WeakSet<M>();
  const target = {
    get model() {
      return model();
    },
    add(restored: readonly M[]): void {
      // One record per id: a record already held of that row stays the one shown.
      const joining = restored.filter((record) => {
        const key = idKey(record);
        const held = key === undefined ? undefined : records.byId.get(key);
        return (held === undefined || held === record) && !offsets.added.includes(record);
      });
      for (const record of joining) {
        joined.add(record);
        records.hold(record);
      }
      offsets.added = [...joining.filter((record) => record.phantom), ...offsets.added];
    },
    remove(restored: readonly M[]): void {
      for (const record of restored) {
        if (!joined.has(record)) continue;
        const top = offsets.added.indexOf(record);
        if (top !== -1) offsets.added.splice(top, 1);
        // A server row: it stays out where its page shows it (-1: no page showed it yet).
        records.remove(record, top === -1 ? -1 : undefined);
      }
    },
    // The outbox finds this tab's record of a row by id (a write of another tab shown on it).
    getById(id: unknown): M | undefined {
      const key = keyOf(id);
      const record = key === undefined ? undefined : records.byId.get(key);
      return record === undefined || records.removed.has(record) ? undefined : record;
    },
  };
  // No answer to filter: a page keeps its rows, and a pending destroy's row stays out by its index.
  const read = new Operation({ action: 'read' });
  return () => extensions.outboxOf?.(model())?.restore(target, read);
}
