/**
 * What tabs share: every commit is told to the other tabs, which apply it to their tables (and
 * make the records of entries they did not know again), so their snapshots follow; the leader
 * takes the entries no live tab sends (a closed tab's, or unclaimed ones).
 */
import type { Model } from '../model/Model.js';
import { checkEntry, type Entry } from './entry.js';
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

  close(): void {
    clearTimeout(this.#timer);
    this.shared.tabs.close();
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
  for (const id of Array.isArray(gone) ? gone : []) {
    const entry = typeof id === 'string' ? shared.table.get(id) : undefined;
    if (entry === undefined || (entry.tab === shared.tabs.tabId && entry.phase === 'sending')) continue;
    shared.remove(entry.id);
    touched.add(entry.clientId);
  }
  for (const clientId of touched) {
    const entries = shared.table.of(clientId);
    const record = shared.live.get(clientId);
    if (entries.some((entry) => entry.tab === shared.tabs.tabId)) continue;
    // Another tab's record: follows its entries (made again when it was created since; forgotten when it has none).
    shared.live.delete(clientId);
    if (entries.length === 0) continue;
    if (record !== undefined && record.phantom === (entries[0]?.action === 'create')) {
      shared.live.set(clientId, record);
      for (const entry of entries) if (entry.action !== 'destroy') record.set(entry.values);
      continue;
    }
    const again = restoreRecord(clientId, entries, shared.models);
    if (again === undefined) continue;
    shared.live.set(clientId, again);
    shared.restored(again);
  }
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
