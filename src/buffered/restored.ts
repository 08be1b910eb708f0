/**
 * rest-proxy/offline in a buffered store: when its model is attached to an Outbox, the records
 * the outbox restored after a reload join the store before its first page's rows are taken, as
 * they join a Store at its first load (API.md section 10): new records on top, pending destroys
 * removed, pending updates held so that a page's row keeps them on top of the server's values.
 * A page that came before `outbox.open()` restored them is joined once it has: its rows give way
 * to the restored records of the same ids. The core's outbox hook does it; unattached, it costs
 * one property read per page answer.
 */
import { extensions } from '../model/extensions.js';
import type { Model } from '../model/Model.js';
import { takeServerRecord } from '../model/persistence.js';
import { Operation } from '../operation/Operation.js';
import { idKey, keyOf } from '../store/list.js';
import type { LocalOffsets } from './offsets.js';
import type { PageMap } from './pageMap.js';
import { unsaved, type BufferedRecords } from './records.js';

/** What the restored records need of their buffered store. */
export interface RestoredHost<M extends Model> {
  readonly records: BufferedRecords<M>;
  readonly offsets: LocalOffsets<M>;
  readonly pages: PageMap<M>;
  /** The server index of a record a cached page shows. */
  serverIndexOf(record: M): number | undefined;
  /** Whether the pages are read with a filter (the server may not count a restored destroy's row). */
  filtered(): boolean;
  /** Whether the store is still in use (not destroyed). */
  live(): boolean;
  /** Records joined after pages were shown (the outbox opened since): rows moved, a grid hears of it. */
  joined(): void;
}

/** Join again once `later` resolves, holding the store weakly (an outbox never opened keeps none alive). */
function whenRestored(later: Promise<void>, store: WeakRef<{ rejoin(): void }>): void {
  void later.then(() => store.deref()?.rejoin());
}

/** What the outbox's restore hook is given for a buffered store: returns what to call before each page's rows are taken. */
export function joinRestored<M extends Model>(host: RestoredHost<M>): () => void {
  const { records, offsets } = host;
  const model = (): ReturnType<BufferedRecords<M>['host']['model']> => records.host.model();
  const joined = new WeakSet<M>();
  const heldOf = (record: M): M | undefined => {
    const key = idKey(record);
    return key === undefined ? undefined : records.byId.get(key);
  };
  /** A page's row with nothing of its own to keep (read before open(), say): the restored record of its id takes its place. */
  const copy = (held: M): boolean => !unsaved(held) && !records.removed.has(held) && !offsets.added.includes(held);
  /** While the outbox joins: the rows a restored record may take the place of are not found by id. */
  let taking = false;
  let waiting = false;
  const target = {
    get model() {
      return model();
    },
    add(restored: readonly M[]): void {
      // One record per id: a record already held of that row with changes of its own stays the one shown.
      const joining = restored.filter((record) => {
        const held = heldOf(record);
        if (offsets.added.includes(record) || (held !== undefined && held !== record && !copy(held))) return false;
        if (held !== undefined && held !== record) takePlace(held, record);
        return true;
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
        // A server row: out where a page shows it, else where its page will (-1: the server's total counts it, unless filtered).
        const at = top === -1 ? (host.serverIndexOf(record) ?? -1) : undefined;
        if (at !== undefined && at >= 0) offsets.remove(at);
        records.remove(record, at, at !== undefined && (at >= 0 || !host.filtered()));
      }
    },
    // The outbox finds this tab's record of a row by id (a write of another tab shown on it).
    getById(id: unknown): M | undefined {
      const key = keyOf(id);
      const record = key === undefined ? undefined : records.byId.get(key);
      return record === undefined || records.removed.has(record) || (taking && copy(record)) ? undefined : record;
    },
    rejoin(): void {
      waiting = false;
      if (!host.live()) return;
      restore();
      host.joined();
    },
  };
  /** As a page read after open() finds it: the restored record shown on the copy's rows, the copy's server values under its edits. */
  const takePlace = (held: M, record: M): void => {
    if (!record.saving) takeServerRecord(record, held);
    for (const [, page] of host.pages.entries()) {
      const at = page.rows.indexOf(held);
      if (at !== -1) page.rows[at] = record;
    }
    records.hold(record);
    records.release(held);
  };
  // No answer to filter: a page keeps its rows, and a pending destroy's row stays out by its index.
  const read = new Operation({ action: 'read' });
  const self = new WeakRef(target);
  const restore = (): void => {
    const gate = extensions.outboxOf?.(model());
    if (gate === undefined) return;
    taking = true;
    try {
      gate.restore(target, read);
    } finally {
      taking = false;
    }
    const later = gate.restoring();
    if (later === undefined || waiting) return;
    waiting = true;
    whenRestored(later, self);
  };
  return restore;
}
