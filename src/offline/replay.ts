/**
 * The outbox's engine: the entries in memory and in storage, the order they go in (per record,
 * children after their phantom parents), up to `concurrency` at once, what each failure does
 * (classify.ts), pauses, backoff timers and the id map of confirmed creates.
 */
import { ProxyError } from '../errors/ProxyError.js';
import type { Model } from '../model/Model.js';
import { eraseRecord } from '../model/save.js';
import { Operation } from '../operation/Operation.js';
import { View } from '../util/notify.js';
import { asJson, backoff, classify, queued, storedError } from './classify.js';
import { Pause } from './pause.js';
import { attempt, copiesOf, storedId } from './attempt.js';
import { onReconnect, type TabCoordinator } from './coordination.js';
import { type Entry, type StoredError } from './entry.js';
import { OutboxError } from './errors.js';
import { MemoryStorage, type OutboxStorage, type StorageCommit, type StoredObject } from './storage.js';
import { dependencyError, failedEntry, listFailed, type Host } from './failed.js';
import { Sharing } from './shared.js';
import { readStored, restoreRecord } from './restore.js';
import { done, Emitter, EntryTable, letGo, otherScopes, sameSnapshot, Waiters } from './table.js';
import type { AnyModel, FailedEntry, OutboxConfig, OutboxSnapshot } from './types.js';

type Settings = Required<Omit<OutboxConfig, 'migrate' | 'name' | 'storage' | 'models' | 'scope' | 'codec'>> & Pick<OutboxConfig, 'migrate'>;

const RETRY_MAX = 300_000;

export class Replay {
  readonly live = new Map<string, Model<object>>();
  /** The records made again from stored entries on open(): stores of their model list them after their first load. */
  readonly restored = new Set<Model<object>>();
  readonly #wasRestored = new WeakSet<Model<object>>();
  readonly events = new Emitter();
  readonly #table = new EntryTable(letGo(this.live, this.restored));
  readonly #waiters = new Waiters();
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #view: View<OutboxSnapshot>;
  /** Stored objects this version cannot read: failed 'config', kept as they are. */
  #foreign: StoredObject[] = [];
  #seq = 0;
  #inFlight = 0;
  /** Entries answered whose removal is being committed. */
  #finishing = 0;
  readonly #pause = new Pause({
    paused: (reason) => this.events.emit('paused', { reason }),
    resumed: () => {
      this.events.emit('resumed', {});
      this.#view.changed();
      this.#pump();
    },
    probe: () => this.#probe(),
  });
  #opened: Promise<void> | undefined;
  ready = false; // open() read the stored entries and restored their records
  #restored: () => void = () => undefined;
  /** Resolves once ready (never, if open() is never called or fails). */
  readonly restoring = new Promise<void>((resolve) => (this.#restored = resolve));
  #closed = false;
  /** Closed and its last commits queued: the storage is no longer its own (a late answer writes nothing). */
  #released = false;
  #start: () => void = () => undefined;
  #chain: Promise<unknown> = new Promise<void>((resolve) => (this.#start = resolve));
  #idle: (() => void)[] = [];
  #durable: boolean;
  #unlisten: () => void = () => undefined;
  readonly #sharing: Sharing;
  /** What a failed entry's retry, discard and resolve change. */
  readonly host: Host;

  constructor(
    readonly models: ReadonlyMap<string, AnyModel>,
    private storage: OutboxStorage,
    private readonly settings: Settings,
    private readonly tabs: TabCoordinator,
    private readonly name: string,
  ) {
    this.#durable = storage.durable;
    this.host = {
      live: this.live, models, table: this.#table,
      remove: (id) => this.#remove(id),
      commit: (change) => this.#commit(change),
      changed: () => this.#view.changed(),
      pump: () => this.#pump(),
    };
    this.#view = new View(() => ({ ...this.#table.counts(this.#foreign.length), paused: this.#pause.reason, leader: this.tabs.isLeader, durable: this.#durable, otherScopes: otherScopes(this.storage) }), sameSnapshot);
    this.#sharing = new Sharing({
      tabs, table: this.#table, live: this.live, models,
      restored: (record) => this.restored.add(record),
      remove: (id) => this.#remove(id),
      commit: (change) => this.#commit(change),
      wakeAt: (entry) => this.#wakeAt(entry),
      changed: () => this.#view.changed(),
      pump: () => this.#pump(),
      ready: () => this.ready && !this.#closed,
    });
  }

  get tabId(): string {
    return this.tabs.tabId;
  }

  // ---- entries -------------------------------------------------------------------------------

  entriesOf(clientId: string): Entry[] {
    return this.#table.of(clientId);
  }

  #remove(id: string): void {
    this.#table.remove(id);
    clearTimeout(this.#timers.get(id));
    this.#timers.delete(id);
  }

  refuses(entry: Entry, replaced: Entry | undefined): OutboxError | undefined {
    return this.#table.refuses(entry, replaced, this.settings.maxEntries, this.settings.maxBytes);
  }

  /** Keep `entry` (a new one, or one merged into): durable before its first attempt. Settles on its first answer. */
  put(entry: Entry, drop: Entry | undefined): Promise<Operation> {
    const before = this.#table.get(entry.id);
    const kept = before === undefined ? { ...entry, seq: ++this.#seq } : entry;
    this.#table.set(kept);
    if (drop !== undefined) this.#remove(drop.id);
    this.#view.changed();
    const settled = new Promise<Operation>((resolve, reject) => this.#waiters.add(kept.id, { resolve, reject }));
    this.#commit({ put: [kept], ...(drop ? { delete: [drop.id] } : {}) }).then(
      () => {
        const failed = this.#table.failedBefore(kept);
        if (failed !== undefined) this.#hold([kept], failed);
        this.#pump();
      },
      (error: unknown) => {
        // Refused by the storage: nothing of it was kept, and nothing is sent.
        if (drop !== undefined) this.#table.set(drop);
        if (before === undefined) this.#remove(kept.id);
        else this.#table.set(before);
        this.#view.changed();
        this.#waiters.settle(kept.id, undefined, error instanceof OutboxError ? error : new OutboxError('quota', 'Outbox: the storage refused the write', { cause: error }));
      },
    );
    return settled;
  }

  /** Drop entries never sent (a create destroyed before sending): their saves settle with `operation`. */
  drop(entries: readonly Entry[], operation: Operation): void {
    for (const entry of entries) {
      this.#remove(entry.id);
      this.#waiters.settle(entry.id, operation);
    }
    // A new child of it is never sent without its key: it waits until given another parent, or none.
    for (const entry of entries) for (const child of this.#table.waitingFor(entry.clientId)) this.#hold([child], entry, 'whose create was cancelled (the record was destroyed before it was created)');
    this.#view.changed();
    this.#commit({ delete: entries.map((entry) => entry.id) }).catch(() => undefined);
  }

  /** Commits run one after the other, once the storage is open. */
  #commit(change: StorageCommit): Promise<void> {
    if (this.#released) return Promise.reject(new OutboxError('unavailable', 'Outbox: closed'));
    // Told to the other tabs once durable.
    const run = this.#chain.then(() => this.storage.commit(change)).then(() => this.tabs.broadcast(asJson(change) ?? null));
    this.#chain = run.catch(() => undefined);
    return run;
  }

  // ---- opening and closing -------------------------------------------------------------------

  open(): Promise<void> {
    return (this.#opened ??= this.#open());
  }

  async #open(): Promise<void> {
    let stored: StoredObject[];
    try {
      [stored] = await Promise.all([this.storage.load(this.name), this.tabs.ready]);
    } catch (error) {
      if (this.settings.fallback !== 'memory') {
        // Not open: this tab lets the others lead.
        this.tabs.close();
        throw error instanceof OutboxError ? error : new OutboxError('unavailable', 'Outbox: the storage cannot be opened', { cause: error });
      }
      this.storage = new MemoryStorage();
      this.#durable = false;
      stored = [];
    }
    const { entries, foreign, change } = readStored(stored, this.models, this.settings.migrate);
    this.#foreign = foreign;
    for (const entry of entries) {
      this.#seq = Math.max(this.#seq, entry.seq);
      this.#table.set(entry);
    }
    for (const [clientId, ids] of this.#table.clients()) {
      const record = this.live.has(clientId) ? undefined : restoreRecord(clientId, [...ids].flatMap((id) => this.#table.get(id) ?? []), this.models);
      if (record === undefined) continue;
      this.live.set(clientId, record);
      this.restored.add(record);
      this.#wasRestored.add(record);
    }
    this.ready = true;
    this.#restored();
    this.#start();
    if (change.put.length + change.delete.length > 0) await this.#commit(change);
    for (const entry of this.#table.all.values()) if (entry.phase === 'waiting') this.#wakeAt(entry);
    this.#unlisten = onReconnect(() => this.#probe());
    // Known to be offline (a reload while offline): only the head goes, as the probe.
    if (Reflect.get(globalThis, 'navigator')?.onLine === false) this.#pause.start('offline', new ProxyError('network', 'offline', { mayHaveBeenApplied: false }));
    this.#view.changed();
    await this.#sharing.adopt();
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#pause.stop();
    this.#unlisten();
    this.#sharing.close();
    this.#released = true;
    this.#start();
    await this.#chain;
    await this.storage.close();
  }

  // ---- sending --------------------------------------------------------------------------------

  #pump(): void {
    if (!this.ready || this.#closed) return this.#wake();
    if (this.#pause.reason !== false) {
      // While offline only the head is sent, as the probe.
      // (A probe due with nothing to send waits for the next entry that can go.)
      const head = this.#pause.reason === 'offline' && this.#pause.probeNow && this.#inFlight === 0 ? this.#table.sendable(1, this.tabs.tabId)[0] : undefined;
      if (head !== undefined) {
        this.#pause.probeNow = false;
        void this.#send(head);
      }
      return this.#wake();
    }
    const room = this.settings.concurrency - this.#inFlight;
    if (room > 0) for (const entry of this.#table.sendable(room, this.tabs.tabId)) void this.#send(entry);
    this.#wake();
  }

  #wake(): void {
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }

  async flush(): Promise<void> {
    await this.open();
    this.#probe();
    for (;;) {
      if (this.#inFlight === 0 && this.#finishing === 0 && (this.#pause.reason !== false || this.#table.sendable(1, this.tabs.tabId).length === 0)) return;
      await new Promise<void>((resolve) => this.#idle.push(resolve));
    }
  }

  #probe(): void {
    if (this.#pause.reason === 'offline') this.#pause.probeNow = true;
    this.#pump();
  }

  async #send(queuedEntry: Entry): Promise<void> {
    const record = this.live.get(queuedEntry.clientId);
    const model = this.models.get(queuedEntry.entity);
    if (record === undefined || model === undefined) return;
    this.#inFlight++;
    const resent = queuedEntry.sent;
    let entry = this.#table.step(queuedEntry, { type: 'send' });
    this.#view.changed();
    let operation: Operation | undefined;
    let failure: unknown;
    try {
      if (!resent) await this.#commit({ put: [entry] });
      operation = await attempt(entry, record, model, resent && this.#wasRestored.has(record));
    } catch (error) {
      failure = error;
    }
    this.#inFlight--;
    entry = this.#table.get(entry.id) ?? entry;
    if (failure === undefined && operation !== undefined) return this.#succeed(entry, record, operation);
    const error = failure instanceof ProxyError ? failure : new ProxyError('config', failure instanceof Error ? failure.message : String(failure), { cause: failure, mayHaveBeenApplied: false });
    const verdict = classify(error, entry.action, resent);
    // The server answered: online again, whatever it said.
    if (verdict !== 'offline' && this.#pause.reason === 'offline') this.#pause.end();
    if (verdict === 'done') {
      eraseRecord(record);
      return this.#succeed(entry, record, done('destroy', record));
    }
    if (verdict === 'fail' || verdict === 'conflict') {
      this.#fail(entry, storedError(error), error);
    } else if (verdict === 'retry') {
      entry = this.#table.step(entry, { type: 'retry', at: Date.now() + backoff(entry.attempts + 1, RETRY_MAX), count: true, max: this.settings.maxAttempts, error: storedError(error) });
      if (entry.phase === 'failed') this.#fail(entry, entry.error ?? storedError(error), error);
      else {
        this.#wakeAt(entry);
        this.#waiters.settle(entry.id, undefined, queued(error));
        this.#commit({ put: [entry] }).catch(() => undefined);
      }
    } else {
      this.#commit({ put: [this.#table.step(entry, { type: 'hold' })] }).catch(() => undefined); // other tabs see it queued
      this.#waiters.settle(entry.id, undefined, queued(error));
      this.#pause.start(verdict, error);
    }
    this.#view.changed();
    this.#pump();
  }

  async #succeed(entry: Entry, record: Model<object>, operation: Operation): Promise<void> {
    entry = this.#table.step(entry, { type: 'succeed' });
    this.#finishing++;
    // Its slot is free: others may go (its own later writes and its dependants wait until it is
    // removed). A probe answered: back online.
    if (this.#pause.reason === 'offline') this.#pause.end();
    else this.#pump();
    const change: { put: Entry[]; delete: string[] } = { put: [], delete: [entry.id] };
    const clientId = entry.clientId;
    const id = record.getId();
    const rid = storedId(record);
    // The id map: waiting entries take the id, in the same commit that removes the create.
    const retarget = entry.action === 'create' ? this.#table.mapId(entry, rid, this.live, change.put) : [];
    await this.#commit(change).catch(() => undefined);
    // Durable: then live records take their id.
    for (const [live, name] of retarget) live.set({ [name]: id });
    for (const other of change.put) this.#table.held.delete(other.id);
    if (this.#table.rowGone(entry, rid)) eraseRecord(record); // destroyed through another copy before this create was confirmed
    if (entry.action === 'destroy') this.#endCopies(entry, record);
    this.#remove(entry.id);
    if (entry.action === 'create') this.events.emit('idmapped', { record, clientId, id });
    this.events.emit('sent', { record, action: entry.action });
    this.#waiters.settle(entry.id, operation);
    this.#finishing--;
    this.#view.changed();
    this.#pump();
  }

  /** A confirmed destroy: the other records of its row (a load's copy, one restored after a reload) are gone too, their writes not in flight dropped. */
  #endCopies(entry: Entry, record: Model<object>): void {
    for (const copy of copiesOf(entry, record, [...this.live.values(), ...this.restored], this.models.get(entry.entity))) {
      const pending = this.#table.of(copy.clientId).filter((other) => other.phase !== 'sending');
      if (pending.length > 0) this.drop(pending, done('destroy', copy));
      eraseRecord(copy);
    }
  }

  #fail(entry: Entry, stored: StoredError, error: ProxyError): void {
    const failed = this.#table.step(entry, { type: 'fail', error: stored });
    this.#commit({ put: [failed] }).catch(() => undefined);
    this.#waiters.settle(entry.id, undefined, error);
    this.#hold(this.#table.dependants(entry), failed);
    this.events.emit('failed', failedEntry(this.host, failed));
  }

  /** Entries held by a failed one (not failed themselves, not sent): their saves are told, kind 'dependency'. */
  #hold(entries: readonly Entry[], failed: Entry, why?: string): void {
    for (const entry of entries) this.#waiters.settle(entry.id, undefined, queued(dependencyError(entry, failed, this.live.get(entry.clientId), why)));
  }

  #wakeAt(entry: Entry): void {
    clearTimeout(this.#timers.get(entry.id));
    const timer = setTimeout(() => {
      this.#timers.delete(entry.id);
      const now = this.#table.get(entry.id);
      if (now === undefined) return;
      this.#table.step(now, { type: 'wake' });
      this.#view.changed();
      this.#pump();
    }, Math.max(0, entry.next - Date.now()));
    this.#timers.set(entry.id, timer);
  }

  // ---- pauses ----------------------------------------------------------------------------------

  resume(): void {
    this.#pause.end();
    this.#pump();
  }

  // ---- what users see ---------------------------------------------------------------------------

  snapshot(): OutboxSnapshot {
    return this.#view.get();
  }

  subscribe(listener: () => void): () => void {
    return this.#view.add(() => listener());
  }

  failedEntries(): FailedEntry[] {
    return listFailed(this.host, this.#foreign, async (raw) => {
      this.#foreign = this.#foreign.filter((other) => other !== raw);
      this.#view.changed();
      await this.#commit({ delete: [raw.id] });
    });
  }
}
