/**
 * The outbox: attached models' saves, destroys and syncs are stored as intents (entry.ts) before
 * their first attempt and replayed (replay.ts) until the server has them.
 */
import { BatchError, queuedBatch } from '../errors/BatchError.js';
import { ProxyError } from '../errors/ProxyError.js';
import { extensions, type OutboxGate } from '../model/extensions.js';
import type { Model, PersistOptions, SaveOptions } from '../model/Model.js';
import { enqueue, eraseRecord } from '../model/save.js';
import { holdInvalid, invalidError } from '../model/validate.js';
import { Batch } from '../operation/Batch.js';
import type { Operation } from '../operation/Operation.js';
import type { SyncOptions } from '../store/options.js';
import { planSync, type SyncHost } from '../store/sync.js';
import { coalesce, type Write } from './coalesce.js';
import type { TabCoordinator } from './coordination.js';
import { ENTRY_VERSION, type Entry } from './entry.js';
import { noteStore } from './held.js';
import { unsavedParentError } from './failed.js';
import { cycleError, cycleOf, giveKey, json, newKey, referencesOf, saveWrite } from './intent.js';
import { opensBeforeReads } from './opening.js';
import { Replay } from './replay.js';
import { storedId } from './attempt.js';
import { clearScope, ScopedStorage, scopedTabs } from './scope.js';
import type { OutboxStorage } from './storage.js';
import { joinTabs } from './tabs.js';
import { done } from './table.js';
import type { AnyModel, FailedEntry, OutboxConfig, OutboxEvents, OutboxSnapshot } from './types.js';

/** The outbox each attached model writes through. */
const attached = new Map<AnyModel, Outbox>();
/** The names of the outboxes of this tab. */
const names = new Set<string>();

extensions.outboxOf = (model) => attached.get(model)?.gate;

const positive = (value: unknown, fallback: number, name: string, min = 1): number => {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value >= min)) throw new TypeError(`Outbox: ${name} must be a number >= ${min}, got ${String(value)}`);
  return value;
};

/** A durable outbox for offline writes (docs/offline.md). */
export class Outbox {
  /** How tabs are coordinated: joinTabs (one tab, always the leader, without BroadcastChannel). */
  static tabs: (name: string) => TabCoordinator = joinTabs;

  readonly name: string;
  /** @internal */
  readonly gate: OutboxGate;
  /** @internal */
  readonly models = new Map<string, AnyModel>();
  readonly #replay: Replay;
  /** The stores the restored records joined. */
  readonly #joined = new WeakSet<object>();
  /** open(), for a ReadCache to call before it shows a stored page of an attached model (opening.ts). */
  readonly #opener = (): Promise<void> => this.open();
  readonly #config: Required<Omit<OutboxConfig, 'migrate' | 'name' | 'storage' | 'models' | 'scope' | 'codec'>> & Pick<OutboxConfig, 'migrate'>;

  constructor(config: OutboxConfig) {
    if (typeof config !== 'object' || config === null) throw new TypeError('Outbox: expected a config { name, storage, models }');
    const { name, storage, models } = config;
    if (typeof name !== 'string' || name === '') throw new TypeError('Outbox: name must be a non-empty string');
    if (names.has(name)) throw new TypeError(`Outbox: an outbox named "${name}" is already open in this tab`);
    if (typeof storage !== 'object' || storage === null || typeof storage.load !== 'function' || typeof storage.commit !== 'function') throw new TypeError('Outbox: storage must be an OutboxStorage');
    if (!Array.isArray(models) || models.length === 0) throw new TypeError('Outbox: models must be a non-empty array of model classes');
    this.#config = {
      concurrency: positive(config.concurrency, 4, 'concurrency'),
      maxAttempts: positive(config.maxAttempts, 8, 'maxAttempts'),
      maxEntries: positive(config.maxEntries, 10_000, 'maxEntries'),
      maxBytes: positive(config.maxBytes, 5 * 1024 * 1024, 'maxBytes'),
      fallback: config.fallback ?? 'none',
      migrate: config.migrate,
    };
    if (this.#config.fallback !== 'none' && this.#config.fallback !== 'memory') throw new TypeError(`Outbox: fallback must be 'none' or 'memory'`);
    const { scope = '', codec } = config;
    if (typeof scope !== 'string') throw new TypeError(`Outbox: scope must be a string (whose writes these are, e.g. the signed-in user's id), got ${typeof scope}`);
    if (codec !== undefined && (typeof codec !== 'object' || codec === null || typeof codec.encode !== 'function' || typeof codec.decode !== 'function')) throw new TypeError('Outbox: codec must be { encode(values), decode(text) }');
    for (const model of models) {
      if (typeof model !== 'function' || typeof model.getProxy !== 'function') throw new TypeError('Outbox: models must be model classes');
      const entity = model.getEntityName();
      if (model.proxy === undefined) throw new TypeError(`Outbox: ${entity} has no proxy`);
      if (attached.has(model)) throw new TypeError(`Outbox: ${entity} is already attached to the outbox "${attached.get(model)?.name ?? ''}"`);
      if (this.models.has(entity)) throw new TypeError(`Outbox: two attached models are named "${entity}" (stored entries name their model by entityName; declare distinct ones)`);
      if (model.getProxy().batchActions) throw new TypeError(`Outbox: ${entity}'s proxy has batchActions (the outbox sends each record's write on its own)`);
      this.models.set(entity, model);
    }
    this.name = name;
    const scoped = new ScopedStorage(storage, scope, codec);
    this.#replay = new Replay(this.models, scoped, this.#config, scopedTabs(Outbox.tabs(name), scoped), name);
    names.add(name);
    for (const model of this.models.values()) attached.set(model, this);
    opensBeforeReads(this.models.keys(), this.#opener);
    this.gate = {
      save: (record, options) => this.#save(record, options),
      destroy: (record, options) => this.#destroy(record, options),
      sync: (host, options) => this.#sync(host, options),
      adopted: (record, copy) => {
        const { table, commit } = this.#replay.host;
        const moved = record === copy ? [] : table.retarget(copy.clientId, record.clientId);
        if (moved.length > 0) commit({ put: moved }).catch(() => undefined);
        // A destroy of the copy in flight: once it went, the row is gone, and the record with it (before its next write).
        void enqueue(record, () => enqueue(copy, () => Promise.resolve(copy.erased && eraseRecord(record))));
      },
      restoring: () => (this.#replay.ready ? undefined : this.#replay.restoring),
      restore: (store, read) => {
        const model = store.model;
        // Before open() restored them, nothing to join yet: the store joins at its first load after.
        if (this.#replay.ready && !this.#joined.has(store)) {
          this.#joined.add(store);
          noteStore(model, store);
          const records = [...this.#replay.restored].filter((record): record is InstanceType<typeof model> => record instanceof model && !record.erased);
          // A row the store loaded before open() is not listed twice (the loaded copy stays).
          store.add(records.filter((record) => record.phantom || store.getById(record.getId()) === undefined));
          store.remove(records.filter((record) => this.#replay.entriesOf(record.clientId).some((entry) => entry.action === 'destroy')));
        }
        // A row whose destroy is pending (or failed) is not listed again by a load.
        const gone = this.#replay.host.table.destroying(model.getEntityName());
        const answer = read.resultSet;
        if (gone.size > 0 && answer !== undefined) answer.records = answer.records.filter((record) => !(record instanceof model && gone.has(JSON.stringify(storedId(record)))));
      },
    };
  }

  /**
   * Erase, durably, the entries of `scope` stored in `storage` under the outbox `name` (e.g. at
   * sign-out, after `close()`), then close the storage. Call it on a storage no open outbox holds.
   */
  static clear(storage: OutboxStorage, options: { name: string; scope?: string }): Promise<void> {
    const { name, scope = '' } = options ?? {};
    if (typeof name !== 'string' || name === '') return Promise.reject(new TypeError('Outbox.clear: name must be a non-empty string'));
    if (typeof scope !== 'string') return Promise.reject(new TypeError('Outbox.clear: scope must be a string'));
    return clearScope(storage, name, scope);
  }

  /** Load the stored entries, restore their records, and start replaying. Rejects with OutboxError 'unavailable' when the storage cannot be opened. */
  open(): Promise<void> {
    return this.#replay.open();
  }

  /** Send what can be sent now (while offline: probe at once). Resolves when nothing replayable is left. */
  flush(): Promise<void> {
    return this.#replay.flush();
  }

  /** End a pause (after a 401: once the app has fresh credentials) and replay. */
  resume(): void {
    this.#replay.resume();
  }

  /** Stop: detach the models, let the storage go. Entries stay stored. */
  async close(): Promise<void> {
    for (const model of this.models.values()) if (attached.get(model) === this) attached.delete(model);
    names.delete(this.name);
    opensBeforeReads(this.models.keys(), undefined, this.#opener);
    await this.#replay.close();
  }

  get failed(): FailedEntry[] {
    return this.#replay.failedEntries();
  }

  /** What a UI shows (the same object until something changes). Bound: usable as a plain function value. */
  readonly getSnapshot = (): OutboxSnapshot => this.#replay.snapshot();

  /** Hear of every change of the snapshot. Returns an unsubscribe function. Bound, as `useSyncExternalStore(outbox.subscribe, outbox.getSnapshot)` takes it. */
  readonly subscribe = (listener: () => void): (() => void) => this.#replay.subscribe(listener);

  on<K extends keyof OutboxEvents>(event: K, listener: (payload: OutboxEvents[K]) => void): () => void {
    return this.#replay.events.on(event, listener);
  }

  /** Where the record's writes stand: its first entry's phase, or undefined when it has none. */
  statusOf(record: Model<object>): Entry['phase'] | undefined {
    return this.#replay.entriesOf(record.clientId)[0]?.phase;
  }

  /** Ask the browser to keep the storage (navigator.storage.persist()); false where it cannot. */
  async requestPersistence(): Promise<boolean> {
    const storage: unknown = Reflect.get(globalThis, 'navigator')?.storage;
    const persist: unknown = typeof storage === 'object' && storage !== null ? Reflect.get(storage, 'persist') : undefined;
    return typeof persist === 'function' ? Boolean(await persist.call(storage)) : false;
  }

  #save(record: Model<object>, options: SaveOptions & { parentsSaved?: boolean }): Promise<Operation> {
    if (record.erased || this.#replay.entriesOf(record.clientId).at(-1)?.action === 'destroy') {
      return Promise.reject(new TypeError(`${record.getModelClass().getEntityName()}.save: the record was destroyed; make a new one to create it again`));
    }
    const phantom = record.phantom;
    const action = phantom ? 'create' : 'update';
    if (!phantom && !record.dirty && this.#replay.entriesOf(record.clientId).length === 0) return Promise.resolve(done(action, record));
    const invalid = options.validate === false ? undefined : invalidError(record, action);
    if (invalid !== undefined) return Promise.reject(invalid);
    // Keys in a cycle among new records: no order can send them (as without an outbox).
    const cycle = phantom ? cycleOf(record) : undefined;
    if (cycle !== undefined) return Promise.reject(cycleError(record, cycle));
    // A new parent this outbox does not hold (its model not attached) is saved first, through its
    // own proxy: the child's entry could not wait for it, and would go without its key.
    const parents = (extensions.waitsFor?.(record) ?? []).filter((parent) => parent.phantom && !parent.erased);
    const outside = parents.filter((parent) => attached.get(parent.getModelClass()) !== this);
    // One this outbox holds, not yet saved, is saved first (its entry stored now): the child's waits for it.
    for (const parent of parents) if (!outside.includes(parent) && this.#replay.entriesOf(parent.clientId).length === 0) parent.save().catch(() => undefined);
    // One whose save was refused at once (invalid): the child's entry is kept, waiting, and its save told.
    const unsaved = parents.filter((parent) => !outside.includes(parent) && this.#replay.entriesOf(parent.clientId).length === 0);
    if (outside.length > 0) {
      const waited = (cause: unknown) => new ProxyError('dependency', `save of ${record.clientId} not sent: it waits for ${outside.map((parent) => parent.clientId).join(', ')}, whose create failed`, { cause, mayHaveBeenApplied: false });
      if (!options.parentsSaved) return Promise.all(outside.map((parent) => parent.save())).then(() => this.#save(record, { ...options, parentsSaved: true }), (error: unknown) => Promise.reject(waited(error)));
      return Promise.reject(waited(undefined));
    }
    let write: Write;
    try {
      write = saveWrite(record);
    } catch (error) {
      return Promise.reject(error);
    }
    const written = this.#write(record, write);
    if (unsaved.length === 0) return written;
    written.catch(() => undefined);
    return Promise.reject(unsavedParentError(record, action, unsaved));
  }

  #destroy(record: Model<object>, _options: PersistOptions): Promise<Operation> {
    if (record.erased) return Promise.resolve(done('destroy', record));
    if (record.phantom && this.#replay.entriesOf(record.clientId).length === 0) {
      eraseRecord(record);
      return Promise.resolve(done('destroy', record));
    }
    return this.#write(record, { type: 'destroy', phantom: record.phantom, values: {}, before: {} });
  }

  /** Store the write (coalesced with the record's entries not yet sent); settles on its entry's first answer. */
  #write(record: Model<object>, write: Write): Promise<Operation> {
    const replay = this.#replay;
    const clientId = record.clientId;
    replay.live.set(clientId, record);
    const plan = coalesce(replay.entriesOf(clientId), write);
    if (plan.kind === 'cancel') {
      const operation = done('destroy', record);
      eraseRecord(record);
      replay.drop(plan.entries, operation);
      return Promise.resolve(operation);
    }
    const id = record.getId();
    const stored = plan.kind === 'merge' ? plan.entry : undefined;
    const values = plan.kind === 'merge' ? plan.values : plan.action === 'destroy' ? {} : write.values;
    const { refs, parents } = plan.action === 'destroy' ? { refs: {}, parents: [] } : referencesOf(record, stored, values, (parent) => replay.entriesOf(parent).length > 0);
    const entry: Entry =
      stored !== undefined
        ? { ...stored, action: plan.action, values, before: plan.kind === 'merge' ? plan.before : {}, refs, parents, at: stored.at }
        : {
            id: newKey(), v: ENTRY_VERSION, entity: record.getModelClass().getEntityName(), clientId, action: plan.action,
            rid: plan.action === 'create' || record.phantom || id === undefined ? null : json({ id }).id ?? null,
            values, before: plan.kind === 'add' ? plan.before : {}, parents, refs, key: newKey(),
            etag: record.etag ?? null, seq: 0, attempts: 0, next: 0, phase: 'queued', sent: false, error: null, at: Date.now(), tab: replay.tabId,
          };
    const refused = replay.refuses(entry, plan.kind === 'merge' ? plan.entry : undefined);
    if (refused !== undefined) return Promise.reject(refused);
    giveKey(record, entry);
    return replay.put(entry, plan.kind === 'add' ? plan.drop : undefined);
  }

  /**
   * A store's sync: every pending record's write stored in this run (invalid ones fail alone, as
   * without an outbox), then one Batch of their first answers.
   */
  async #sync<M extends Model<object>>(host: SyncHost<M>, options: SyncOptions): Promise<Batch> {
    const removed = new Set(host.removed());
    const { create, update, destroy } = planSync(host.pending(), removed);
    const invalid = holdInvalid(create, update, removed);
    const batch = new Batch(options);
    if (create.length + update.length + destroy.length > 0 && !host.before(create, update, destroy)) return batch.run([], () => Promise.resolve());
    const writes = [...create, ...update].map((record) => this.#save(record, { validate: false })).concat(destroy.map((record) => this.#destroy(record, {})));
    host.changed();
    for (const outcome of await Promise.allSettled(writes)) {
      if (outcome.status === 'fulfilled') {
        batch.operations.push(outcome.value);
        host.wrote(outcome.value);
        continue;
      }
      const error: unknown = outcome.reason;
      if (!(error instanceof ProxyError) || error.operation === undefined) throw error;
      error.operation.error = error; // as the save was told (queued, when kept)
      batch.operations.push(error.operation);
      batch.exceptions.push(error.operation);
    }
    batch.operations.push(...invalid);
    batch.exceptions.push(...invalid);
    batch.isComplete = true;
    const failure = batch.hasException() ? queuedBatch(new BatchError(batch, batch.exceptions.flatMap((operation) => operation.error ?? []))) : undefined;
    host.ended(batch, failure);
    host.changed();
    if (failure !== undefined) throw failure;
    return batch;
  }
}
