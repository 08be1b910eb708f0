/**
 * The outbox's entries in memory: in order (a Map in sequence order), indexed by record, with
 * their stored size (for maxBytes), and which of them may be sent now.
 */
import { step, type Entry, type EntryEvent } from './entry.js';
import { OutboxError } from './errors.js';
import { Operation } from '../operation/Operation.js';
import { ResultSet } from '../operation/ResultSet.js';
import type { Model } from '../model/Model.js';
import { readField } from '../model/values.js';
import type { JsonValue } from './storage.js';
import type { EntryAction } from './entry.js';
import type { OutboxEvents, OutboxSnapshot } from './types.js';
import { Observable } from '../util/events.js';
import { ScopedStorage } from './scope.js';
import type { OutboxStorage } from './storage.js';

const encoder = new TextEncoder();
/** An entry's stored size in bytes (UTF-8: a 4-byte character is not counted as 2). */
const sizeOf = (entry: Entry): number => encoder.encode(JSON.stringify(entry)).length;

export class EntryTable {
  readonly all = new Map<string, Entry>();
  /** Per client id, its entries' ids in order. */
  readonly #clients = new Map<string, Set<string>>();
  readonly #sizes = new Map<string, number>();
  /** The ids of the entries that wait for a phantom parent. */
  readonly #children = new Set<string>();
  #bytes = 0;
  /** Rows (`entity id`) destroyed while a create that may have been applied was pending. */
  readonly #gone = new Set<string>();
  /** Entries rewritten by an id map not yet durable (their live records not yet given the id): not sent until then. */
  readonly held = new Set<string>();

  /** `released`: told when a record's last entry is removed (the outbox then lets go of the record). */
  constructor(readonly released: (clientId: string) => void = () => undefined) {}

  get(id: string): Entry | undefined {
    return this.all.get(id);
  }

  /** Whether the record has entries (a parent not yet created). */
  has(clientId: string): boolean {
    return this.#clients.has(clientId);
  }

  clients(): IterableIterator<[string, Set<string>]> {
    return this.#clients.entries();
  }

  /** The record's entries not yet done, in order. */
  of(clientId: string): Entry[] {
    const out: Entry[] = [];
    for (const id of this.#clients.get(clientId) ?? []) {
      const entry = this.all.get(id);
      if (entry !== undefined && entry.phase !== 'done') out.push(entry);
    }
    return out;
  }

  set(entry: Entry): void {
    const id = entry.id;
    const before = this.all.get(id);
    if (before === undefined) {
      let ids = this.#clients.get(entry.clientId);
      if (ids === undefined) this.#clients.set(entry.clientId, (ids = new Set()));
      ids.add(id);
    }
    this.all.set(id, entry);
    if (entry.parents.length > 0) this.#children.add(id);
    else this.#children.delete(id);
    // Measured again only when its intent changed (a step changes a few bytes of its state).
    const kept = before !== undefined && before.values === entry.values && before.before === entry.before ? this.#sizes.get(id) : undefined;
    const size = kept ?? sizeOf(entry);
    this.#bytes += size - (this.#sizes.get(id) ?? 0);
    this.#sizes.set(id, size);
  }

  remove(id: string): void {
    const entry = this.all.get(id);
    if (entry === undefined) return;
    this.all.delete(id);
    this.#children.delete(id);
    const ids = this.#clients.get(entry.clientId);
    ids?.delete(id);
    if (ids?.size === 0) {
      this.#clients.delete(entry.clientId);
      this.released(entry.clientId);
    }
    this.#bytes -= this.#sizes.get(id) ?? 0;
    this.#sizes.delete(id);
  }

  /** A record took the place of another object for its row (a load's copy): that one's entries are the record's, after its own. */
  retarget(from: string, to: string): Entry[] {
    const moved = [...(this.#clients.get(from) ?? [])].flatMap((id) => this.all.get(id) ?? []).map((entry) => ({ ...entry, clientId: to }));
    for (const entry of moved) {
      this.remove(entry.id);
      this.set(entry);
    }
    return moved;
  }

  /** The rows (their ids as JSON text) of `entity` whose destroy is pending or failed. */
  destroying(entity: string): Set<string> {
    const rows = new Set<string>();
    for (const entry of this.all.values()) if (entry.action === 'destroy' && entry.entity === entity && entry.phase !== 'done') rows.add(JSON.stringify(entry.rid));
    return rows;
  }

  /** The record's entries and those that wait for it (its phantom children). */
  waitingFor(clientId: string): Entry[] {
    const out = [...(this.#clients.get(clientId) ?? [])].flatMap((id) => this.all.get(id) ?? []);
    for (const id of this.#children) {
      const entry = this.all.get(id);
      if (entry !== undefined && entry.clientId !== clientId && entry.parents.includes(clientId)) out.push(entry);
    }
    return out;
  }

  /**
   * A create confirmed with the server id `rid`: the entries waiting for it take the id (into
   * `put`); returns the live records' fields to set to it once that is durable.
   */
  mapId(create: Entry, rid: JsonValue, live: ReadonlyMap<string, Model<object>>, put: Entry[]): [Model<object>, string][] {
    const clientId = create.clientId;
    const retarget: [Model<object>, string][] = [];
    for (const other of this.waitingFor(clientId)) {
      if (other === create) continue;
      const values = { ...other.values };
      const refs = { ...other.refs };
      const record = live.get(other.clientId);
      for (const name of new Set([...Object.keys(values), ...Object.keys(refs)])) {
        if (values[name] !== clientId && refs[name] !== clientId) continue;
        values[name] = rid;
        delete refs[name];
        // The live record's key, unless set otherwise since (a record made again from storage holds none).
        const now: unknown = record === undefined ? undefined : readField(record, name);
        if (record !== undefined && (now === clientId || now === null || now === undefined)) retarget.push([record, name]);
      }
      const next = { ...other, rid: other.clientId === clientId && other.rid === null ? rid : other.rid, parents: other.parents.filter((parent) => parent !== clientId), values, refs };
      this.set(next);
      this.held.add(next.id);
      put.push(next);
    }
    return retarget;
  }

  /**
   * A done entry of the row `rid`: a destroy is noted while a create sent before may be confirmed
   * with that row (a load listed it as another copy); true for a create confirmed with such a row.
   */
  rowGone(entry: Entry, rid: JsonValue): boolean {
    const row = `${entry.entity} ${JSON.stringify(rid)}`;
    if (entry.action === 'create') return this.#gone.has(row);
    if (entry.action === 'destroy' && [...this.all.values()].some((other) => other.action === 'create' && other.sent)) this.#gone.add(row);
    return false;
  }

  /** What a failed entry holds back: the record's later entries, its phantom children's, theirs, and so on. */
  dependants(failed: Entry): Entry[] {
    const out: Entry[] = [];
    const seen = new Set<string>();
    const visit = (clientId: string): void => {
      if (seen.has(clientId)) return;
      seen.add(clientId);
      for (const entry of this.waitingFor(clientId)) {
        if (entry.id === failed.id || out.includes(entry)) continue;
        out.push(entry);
        visit(entry.clientId);
      }
    };
    visit(failed.clientId);
    return out;
  }

  /** The failed entry that holds `entry` back: one of its record's before it, or of its phantom parents'. */
  failedBefore(entry: Entry): Entry | undefined {
    for (const clientId of [entry.clientId, ...entry.parents]) {
      const failed = this.of(clientId).find((other) => other.phase === 'failed' && other.id !== entry.id);
      if (failed !== undefined) return failed;
    }
    return undefined;
  }

  step(entry: Entry, event: EntryEvent): Entry {
    const next = step(entry, event);
    if (next !== entry) this.set(next);
    return next;
  }

  /** Why `entry` (replacing `replaced`) cannot be kept: past the bounds. */
  refuses(entry: Entry, replaced: Entry | undefined, maxEntries: number, maxBytes: number): OutboxError | undefined {
    const size = sizeOf(entry) - (replaced === undefined ? 0 : (this.#sizes.get(replaced.id) ?? 0));
    if ((replaced === undefined && this.all.size >= maxEntries) || this.#bytes + size > maxBytes) {
      return new OutboxError('full', `Outbox: full (maxEntries ${maxEntries}, maxBytes ${maxBytes}); the record keeps its edits`);
    }
    return undefined;
  }

  /** The snapshot's counts (`foreign`: failed entries of an unknown version). */
  counts(foreign: number): Pick<OutboxSnapshot, 'pending' | 'sending' | 'failed' | 'oldestPendingAt'> {
    let pending = 0;
    let sending = 0;
    let failed = foreign;
    let oldest: number | null = null;
    for (const entry of this.all.values()) {
      if (entry.phase === 'failed') failed++;
      else if (entry.phase === 'sending') sending++;
      else if (entry.phase !== 'done') pending++;
      if (entry.phase !== 'failed' && entry.phase !== 'done' && (oldest === null || entry.at < oldest)) oldest = entry.at;
    }
    return { pending, sending, failed, oldestPendingAt: oldest };
  }

  /** The entries `tab` may send now, in order: the first of their record, its phantom parents created (none left in `parents`). */
  sendable(limit: number, tab: string): Entry[] {
    const out: Entry[] = [];
    const seen = new Set<string>();
    for (const entry of this.all.values()) {
      if (seen.has(entry.clientId)) continue;
      seen.add(entry.clientId);
      // A parent still listed is not created: it waits (a parent discarded or cancelled: until it is given another, or none).
      if (entry.phase !== 'queued' || entry.tab !== tab || this.held.has(entry.id) || entry.parents.length > 0) continue;
      out.push(entry);
      if (out.length >= limit) break;
    }
    return out;
  }
}

/** A record without entries is the app's alone: the outbox lets go of it (`released` of an EntryTable). */
export function letGo(live: Map<string, Model<object>>, restored: Set<Model<object>>): (clientId: string) => void {
  return (clientId) => {
    const record = live.get(clientId);
    live.delete(clientId);
    if (record !== undefined) restored.delete(record);
  };
}

/** The snapshot's `otherScopes`: entries of other scopes left in the storage. */
export function otherScopes(storage: OutboxStorage): number {
  return storage instanceof ScopedStorage ? storage.others.size : 0;
}

export function sameSnapshot(a: OutboxSnapshot, b: OutboxSnapshot): boolean {
  return a.pending === b.pending && a.sending === b.sending && a.failed === b.failed && a.paused === b.paused && a.leader === b.leader && a.durable === b.durable && a.oldestPendingAt === b.oldestPendingAt && a.otherScopes === b.otherScopes;
}

type Waiter = { resolve: (operation: Operation) => void; reject: (error: unknown) => void };

/** The saves and syncs waiting for an entry's next answer. */
export class Waiters {
  readonly #lists = new Map<string, Waiter[]>();

  add(id: string, waiter: Waiter): void {
    const list = this.#lists.get(id);
    if (list === undefined) this.#lists.set(id, [waiter]);
    else list.push(waiter);
  }

  /** Settle them: with `operation`, else rejected with `error`. */
  settle(id: string, operation: Operation | undefined, error?: unknown): void {
    const list = this.#lists.get(id);
    if (list === undefined) return;
    this.#lists.delete(id);
    for (const waiter of list) {
      if (operation !== undefined) waiter.resolve(operation);
      else waiter.reject(error);
    }
  }
}

/** An operation that succeeded without a request. */
export function done(action: EntryAction, record: Model<object>): Operation {
  const operation = new Operation({ action, records: [record] });
  operation.setSuccessful(new ResultSet({ records: [record] }));
  return operation;
}

export class Emitter extends Observable<OutboxEvents> {
  emit<K extends keyof OutboxEvents>(name: K, payload: OutboxEvents[K]): void {
    this.fire(name, payload);
  }
}
