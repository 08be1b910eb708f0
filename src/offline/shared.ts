/**
 * What tabs share: every commit is told to the other tabs, which apply it to their tables (and
 * make the records of entries they did not know again), so their snapshots follow; the leader
 * takes the entries no live tab sends (a closed tab's, or unclaimed ones).
 */
import { recordFromServer, type Model } from '../model/Model.js';
import { takeServerRecord } from '../model/persistence.js';
import { checkEntry, type Entry, type Fields } from './entry.js';
import { heldRecord } from './held.js';
import { restoreRecord } from './restore.js';
import type { TabCoordinator } from './coordination.js';
import type { JsonValue, StorageCommit } from './storage.js';
import type { EntryTable } from './table.js';
import type { AnyModel } from './types.js';

export interface Shared {
  readonly tabs: TabCoordinator;
  readonly table: EntryTable;
  readonly live: Map<string, Model<object>>;
  readonly models: ReadonlyMap<string, AnyModel>;
  /** A record made again from another tab's entries. */
  restored(record: Model<object>): void;
  /** Drop an entry (and its timer). */
  remove(id: string): void;
  commit(change: StorageCommit): Promise<void>;
  wakeAt(entry: Entry): void;
  changed(): void;
  pump(): void;
  /** Open and not closed. */
  ready(): boolean;
}

/** An outbox among tabs: it hears their commits, and takes their entries when it leads and they close. */
export class Sharing {
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly shared: Shared) {
    shared.tabs.onLeaderChange(() => {
      shared.changed();
      void this.adopt();
    });
    shared.tabs.onMessage((message) => {
      if (!shared.ready()) return;
      hear(shared, message);
      shared.changed();
      void this.adopt();
    });
  }

  /** The leader takes the entries no live tab sends, claimed in a commit before it sends them. */
  async adopt(): Promise<void> {
    const { tabs, table } = this.shared;
    // Only when some entry is another tab's (liveTabs() may ask the browser for its locks).
    if (!this.shared.ready() || !tabs.isLeader || ![...table.all.values()].some((entry) => entry.tab !== tabs.tabId)) return this.shared.pump();
    const live = await tabs.liveTabs();
    if (!this.shared.ready() || !tabs.isLeader) return;
    const taken = orphans(table, tabs.tabId, live);
    for (const entry of taken) table.set(entry);
    if (taken.length > 0) await this.shared.commit({ put: taken }).catch(() => undefined);
    for (const entry of taken) if (entry.phase === 'waiting') this.shared.wakeAt(entry);
    // Entries of other live tabs: looked at again, in case their tab closes.
    clearTimeout(this.#timer);
    if (othersPending(table, tabs.tabId)) this.#timer = setTimeout(() => void this.adopt(), 3000);
    this.shared.changed();
    this.shared.pump();
  }

  /** Leave the tabs: this tab's entries not in flight are handed to the leader (unclaimed), which sends them now rather than once it sees this tab gone. */
  close(): void {
    clearTimeout(this.#timer);
    const { tabs, table } = this.shared;
    const mine = [...table.all.values()].filter((entry) => entry.tab === tabs.tabId && entry.phase !== 'sending' && entry.phase !== 'done').map((entry) => ({ ...entry, tab: null }));
    if (mine.length === 0) return tabs.close();
    void this.shared.commit({ put: mine }).catch(() => undefined).finally(() => tabs.close());
  }
}

/** Apply another tab's commit. */
function hear(shared: Shared, message: JsonValue): void {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return;
  const { put, delete: gone } = message;
  const touched = new Set<string>();
  for (const raw of Array.isArray(put) ? put : []) {
    const id = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw['id'] : undefined;
    if (typeof id !== 'string' || typeof raw !== 'object' || raw === null || Array.isArray(raw)) continue;
    const entry = checkEntry({ ...raw, id });
    const own = entry && shared.table.get(entry.id);
    // An entry this tab has in flight is its own to change.
    if (entry === undefined || !shared.models.has(entry.entity) || (own?.tab === shared.tabs.tabId && own.phase === 'sending')) continue;
    shared.table.set(entry);
    touched.add(entry.clientId);
  }
  /** Per record, what its entries done in another tab wrote. */
  const wrote = new Map<string, Fields>();
  for (const id of Array.isArray(gone) ? gone : []) {
    const entry = typeof id === 'string' ? shared.table.get(id) : undefined;
    if (entry === undefined || (entry.tab === shared.tabs.tabId && entry.phase === 'sending')) continue;
    const record = shared.live.get(entry.clientId); // (let go of once its entries are removed)
    if (record !== undefined && followers.has(record) && entry.action === 'update') wrote.set(entry.clientId, { ...wrote.get(entry.clientId), ...entry.values });
    shared.remove(entry.id);
    touched.add(entry.clientId);
    if (record !== undefined) shared.live.set(entry.clientId, record);
  }
  for (const clientId of touched) {
    const entries = shared.table.of(clientId);
    const record = shared.live.get(clientId);
    if (entries.some((entry) => entry.tab === shared.tabs.tabId)) continue;
    // Another tab's record: follows its entries (made again when it was created since; forgotten when it has none).
    shared.live.delete(clientId);
    if (entries.length === 0) {
      // This tab's own record of the row: the other tab's write applied, taken as a load would.
      const values = wrote.get(clientId);
      if (record !== undefined && values !== undefined) takeServerRecord(record, recordFromServer(record.getModelClass(), { ...values, [record.getModelClass().idProperty]: record.getId() }));
      continue;
    }
    if (record !== undefined && record.phantom === (entries[0]?.action === 'create')) {
      shared.live.set(clientId, record);
      for (const entry of entries) if (entry.action !== 'destroy') record.set(entry.values);
      continue;
    }
    const own = ownRecord(entries[0], shared.models);
    if (own !== undefined) {
      // This tab holds the row itself: its record shows the other tab's edits (pending, on top of
      // its values), and is the one sent, should this tab send them (the answer is its own then).
      followers.add(own);
      shared.live.set(clientId, own);
      for (const entry of entries) if (entry.action === 'update') own.set(entry.values);
      continue;
    }
    const again = restoreRecord(clientId, entries, shared.models);
    if (again === undefined) continue;
    shared.live.set(clientId, again);
    shared.restored(again);
  }
}

/** This tab's own records that follow another tab's entries. */
const followers = new WeakSet<Model<object>>();

/** The record this tab holds of the row of an entry (an update or destroy), if it holds one. */
function ownRecord(entry: Entry | undefined, models: ReadonlyMap<string, AnyModel>): Model<object> | undefined {
  const model = entry === undefined || entry.rid === null ? undefined : models.get(entry.entity);
  return model === undefined || entry === undefined ? undefined : heldRecord(model, entry.rid);
}

/** The entries the leader takes: unclaimed, or of a tab not in `live`. */
function orphans(table: EntryTable, tabId: string, live: readonly string[]): Entry[] {
  const out: Entry[] = [];
  for (const entry of table.all.values()) {
    if (entry.tab === tabId || (entry.tab !== null && live.includes(entry.tab)) || entry.phase === 'done') continue;
    out.push({ ...entry, tab: tabId, phase: entry.phase === 'sending' ? 'queued' : entry.phase });
  }
  return out;
}

/** Whether entries of other tabs are kept here. */
function othersPending(table: EntryTable, tabId: string): boolean {
  for (const entry of table.all.values()) if (entry.tab !== tabId && entry.phase !== 'failed') return true;
  return false;
}
