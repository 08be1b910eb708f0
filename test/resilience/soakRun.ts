import { expect } from 'vitest';
/**
 * The soak: a Store over a RestProxy with `idempotencyKey: true`, quick retries and a short
 * timeout, against the test server in seeded chaos (connections reset before and after the
 * server applied a request, error statuses, stalls, truncated answers, duplicated deliveries).
 * It creates records, edits a share, removes a share, and keeps calling `store.sync()` until it
 * resolves (bounded in rounds and time). Then chaos stops and the server's state is compared
 * with what the user did: no edit lost, no record created twice, no removed record back.
 *
 * With `batchActions` the proxy sends one request per action (the test server replays the first
 * answer to a repeated Idempotency-Key and refuses a key reused with another body). With
 * `discards` the user also changes their mind: `record.reload()` while syncs run (edits kept),
 * `store.load({ discardChanges: true })` racing a sync (only what was pending at the call is
 * dropped), and `store.rejectChanges()` between syncs (a new record whose create may have been
 * applied is destroyed once confirmed). A record whose edits were discarded must end the same in
 * the store and on the server: in both with the same values, or in neither.
 *
 * Used by test/soak/soak.test.ts (full size) and test/resilience/soak-small.test.ts.
 */
import { BatchError, Model, RestProxy, Store, type ProxyErrorKind } from '../../src/index.js';
import { seededRandom } from '../server/faults.js';
import type { FaultType, TestServer } from '../server/index.js';

export interface SoakOptions {
  /** Records to create. */
  count: number;
  /** Chaos seed (the same seed gives the same faults for the same order of requests). */
  seed: number;
  /** Share of requests that get a fault. */
  rate: number;
  /** Operations of one action type in flight at once (1 makes the run reproducible from the seed). */
  concurrency: number;
  /** Sync rounds at most after the first one. */
  maxRounds: number;
  /** Milliseconds at most for all the syncs. */
  maxMs: number;
  /** Per-try timeout of the proxy. Default 300. */
  timeout?: number;
  /** How long a stalled request is held by the server. Default 600. */
  stallMs?: number;
  /**
   * Optimistic concurrency on: records send If-Match, and after a sync the user resolves each
   * conflict the way the error message suggests: `record.reload()` (edits kept on top of the
   * server's version), then the next sync sends them again. Default false.
   */
  etag?: boolean;
  /** Edit and remove records whose create is not confirmed yet too (what a user does). Default true. */
  touchNewRecords?: boolean;
  /** The verbs chaos hits. Default all. */
  chaosMethods?: string[];
  /**
   * Race the user against the sync: while a sync's requests are in flight, some edited records
   * are saved on their own (saves racing the sync), some are removed while their save runs, and a
   * store load and record reloads race the sync (their answers may predate the writes the sync
   * completes). Default false.
   */
  interleave?: boolean;
  /** One request per action type (`batchActions` on the proxy). Default false. */
  batchActions?: boolean;
  /** The user also discards with a load racing a sync, and rejects changes between syncs. Default false. */
  discards?: boolean;
}

interface ItemData {
  id: number;
  uid: string;
  name: string;
  rev: number;
}

class SoakItem extends Model<ItemData> {
  static override fields = [{ name: 'id', type: 'int' }, { name: 'uid', type: 'string' }, { name: 'name', type: 'string' }, { name: 'rev', type: 'int' }];
}

/** What the user did to one record, and what the server must end up holding for it. */
interface Intent {
  uid: string;
  name: string;
  rev: number;
  removed: boolean;
  /** The record was still new (create unconfirmed) when the user edited it. */
  editedWhileNew: boolean;
  /** The record was still new when the user removed it. */
  removedWhileNew: boolean;
  /**
   * The user discarded the record's pending change (rejectChanges, a discarding load) and has not
   * touched it since: what it holds is the last value the server confirmed, whichever that was.
   */
  discarded: boolean;
}

export interface SoakResult {
  summary: string;
  /** Every sync resolved in the end (false: the bound was hit). */
  converged: boolean;
  rounds: number;
  /** uid -> rows on the server with that uid, when more than one. */
  duplicates: string[];
  /** Records whose server row lacks the user's last edit. */
  lostEdits: string[];
  /** Records the user removed that are still on the server. */
  resurrected: string[];
  /** Records the user kept that are not on the server. */
  missing: string[];
  /** Rows on the server no record of the user's accounts for. */
  strangers: string[];
  /** Client records that still differ from the server (dirty, new, other values or id). */
  clientMismatches: string[];
  /** Ids the store lists more than one record object for (one record per id). */
  storeDuplicates: string[];
  /** The failures of the last sync that did not resolve. */
  lastErrors: string[];
  /** For the first few records that went wrong: the requests the server received about them. */
  histories: string[];
}

const TYPES: FaultType[] = ['reset-before', 'reset-after', 'status', 'stall', 'truncate', 'duplicate'];

function describeIntent(intent: Intent): string {
  const flags = [intent.editedWhileNew ? 'edited while new' : '', intent.removedWhileNew ? 'removed while new' : '', intent.discarded ? 'discarded' : ''].filter(Boolean).join(', ');
  return `${intent.uid}${flags ? ` (${flags})` : ''}`;
}

export async function runSoak(server: TestServer, options: SoakOptions): Promise<SoakResult> {
  const started = performance.now();
  const random = seededRandom(options.seed * 7919 + 1);
  const proxy = new RestProxy({
    url: `${server.url}/items`,
    idempotencyKey: true,
    etag: options.etag ?? false,
    batchActions: options.batchActions ?? false,
    retry: { limit: 3, delay: 5, backoffLimit: 50 },
    timeout: options.timeout ?? 300,
  });
  class Item extends SoakItem {
    static override proxy = proxy;
  }
  let retries = 0;
  let conflicts = 0;
  const errorKinds = new Map<ProxyErrorKind, number>();
  proxy.on('retry', () => {
    retries++;
  });
  proxy.on('exception', ({ error }) => {
    if (error.kind === 'conflict') conflicts++;
    errorKinds.set(error.kind, (errorKinds.get(error.kind) ?? 0) + 1);
  });

  const store = new Store({ model: Item, pageSize: 0 });
  const intents = new Map<string, Intent>();
  const recordOf = new Map<string, Item>();
  /** What the user did to each record, in order (printed for the records that went wrong). */
  const events = new Map<string, string[]>();
  const note = (record: Item, what: string): void => {
    const uid = record.get('uid');
    const who = record === recordOf.get(uid) ? 'own' : 'a copy a load made';
    const state = `${record.phantom ? 'new' : `id ${String(record.getId())}`}${record.dirty ? ', dirty' : ''}${record.saving ? ', saving' : ''}`;
    const list = events.get(uid) ?? [];
    list.push(`round ${rounds}: ${what} (${who}, ${state})`);
    events.set(uid, list);
  };

  const data = Array.from({ length: options.count }, (_, i) => ({ uid: `s${options.seed}-${i}`, name: `item ${i}`, rev: 0 }));
  for (const item of data) intents.set(item.uid, { ...item, removed: false, editedWhileNew: false, removedWhileNew: false, discarded: false });
  for (const record of store.add(data)) recordOf.set(record.get('uid'), record);

  server.chaos({
    rate: options.rate,
    seed: options.seed,
    types: TYPES,
    stallMs: options.stallMs ?? 600,
    ...(options.chaosMethods ? { match: { method: options.chaosMethods } } : {}),
  });

  let rounds = 0;
  let lastErrors: string[] = [];
  const syncOnce = async (): Promise<boolean> => {
    rounds++;
    try {
      await store.sync({ concurrency: options.concurrency });
      lastErrors = [];
      return true;
    } catch (error) {
      if (!(error instanceof BatchError)) throw error;
      lastErrors = error.errors.map((e) => `${e.kind}: ${e.message}`);
      if (options.etag) {
        for (const failure of error.errors) {
          if (failure.kind !== 'conflict') continue;
          for (const record of failure.operation?.records ?? []) {
            // Under chaos the reload may fail too; the next round tries again.
            if (record instanceof Item) {
              note(record, 'reloaded after a conflict');
              await record.reload().catch(() => undefined);
            }
          }
        }
      }
      return false;
    }
  };

  /** What the user starts on their own while a sync runs (interleave): saves, and a load. */
  const racing: Promise<unknown>[] = [];

  /** Edit `editShare` and remove `removeShare` of the records still in the store. */
  const wave = (editShare: number, removeShare: number): void => {
    const removing: Item[] = [];
    for (const record of store.getRange()) {
      const intent = intents.get(record.get('uid'));
      if (intent === undefined || (record.phantom && options.touchNewRecords === false)) continue;
      const roll = random();
      if (roll < removeShare) {
        intent.removed = true;
        intent.discarded = false;
        intent.removedWhileNew ||= record.phantom;
        note(record, 'removed');
        // Removed while its own save runs.
        if (options.interleave && random() < 0.5) {
          note(record, 'saved on its own');
          racing.push(record.save().catch(() => undefined));
        }
        removing.push(record);
      } else if (roll < removeShare + editShare) {
        intent.rev += 1;
        intent.name = `${intent.name.split(' #')[0] ?? intent.name} #${intent.rev}`;
        intent.editedWhileNew ||= record.phantom;
        intent.discarded = false;
        record.set({ name: intent.name, rev: intent.rev });
        note(record, `edited to rev ${intent.rev}`);
        // Saved on its own while the store syncs.
        if (options.interleave && random() < 0.3) {
          note(record, 'saved on its own');
          racing.push(record.save().catch(() => undefined));
        }
      }
    }
    store.remove(removing);
  };

  /** Every record with a change pending now: new, edited or removed. */
  const pendingNow = (): Item[] => [...store.getNewRecords(), ...store.getUpdatedRecords(), ...store.getRemovedRecords()];

  /** With discards: the user gives up what is pending (between syncs, nothing in flight). */
  const rejectAll = (): void => {
    for (const record of store.getNewRecords()) {
      // A new record leaves the store (destroyed once confirmed if its create may have been applied).
      const intent = intents.get(record.get('uid'));
      if (intent) {
        intent.removed = true;
        intent.discarded = false;
      }
      note(record, 'rejected while new');
    }
    for (const record of [...store.getUpdatedRecords(), ...store.getRemovedRecords()]) {
      const intent = intents.get(record.get('uid'));
      if (intent) {
        intent.discarded = true;
        intent.removed = false;
      }
      note(record, 'rejected');
    }
    store.rejectChanges();
  };

  /** With discards: a load that drops what is pending at its call, racing the sync in flight. */
  const discardingLoad = (): Promise<unknown> => {
    for (const record of pendingNow()) {
      const intent = intents.get(record.get('uid'));
      if (intent) intent.discarded = true;
      note(record, 'pending when a discarding load was called');
    }
    return store.load({ discardChanges: true });
  };

  /** With interleave: a few saved records re-read while the sync runs (their edits are kept). */
  const reloadSome = (): void => {
    for (const record of store.getRange()) {
      if (record.phantom || random() >= 0.05) continue;
      note(record, 'reloaded');
      racing.push(record.reload().catch(() => undefined));
    }
  };

  /** With interleave: a wave made while a sync's requests are in flight, and a load racing it. */
  const waveDuringSync = async (editShare: number, removeShare: number): Promise<boolean> => {
    if (!options.interleave) {
      wave(editShare, removeShare);
      return syncOnce();
    }
    const syncing = syncOnce();
    // Let the sync claim its records and send its first requests.
    await new Promise((resolve) => setTimeout(resolve, 1));
    racing.push((options.discards && random() < 0.5 ? discardingLoad() : store.load()).catch(() => undefined));
    reloadSome();
    wave(editShare, removeShare);
    const synced = await syncing;
    await Promise.allSettled(racing.splice(0));
    return synced;
  };

  // Round 1 creates; each later wave edits and removes while some of the work is still pending.
  let done = await syncOnce();
  if (options.interleave) {
    await waveDuringSync(0.25, 0.1);
    await waveDuringSync(0.15, 0.05);
  } else {
    wave(0.25, 0.1);
    done = await syncOnce();
    wave(0.15, 0.05);
  }
  if (options.discards) {
    // Nothing in flight now: give up what the failed rounds left, then make new changes.
    rejectAll();
    wave(0.1, 0.05);
  }
  done = false;
  while (!done && rounds < options.maxRounds + 1 && performance.now() - started < options.maxMs) {
    done = await syncOnce();
  }
  const syncMs = Math.round(performance.now() - started);
  server.chaos(null);

  // ---- compare ------------------------------------------------------------------------------
  const rows = server.db['items'] ?? [];
  const rowsByUid = new Map<string, Record<string, unknown>[]>();
  for (const row of rows) {
    const uid = String(row['uid']);
    const list = rowsByUid.get(uid);
    if (list) list.push(row);
    else rowsByUid.set(uid, [row]);
  }
  const duplicates: string[] = [];
  const lostEdits: string[] = [];
  const resurrected: string[] = [];
  const missing: string[] = [];
  const strangers: string[] = [];
  const clientMismatches: string[] = [];
  for (const [uid, list] of rowsByUid) {
    if (!intents.has(uid)) strangers.push(uid);
    if (list.length > 1) duplicates.push(`${uid} x${list.length}`);
  }
  const listedByUid = new Map<string, Item>();
  for (const record of store.getRange()) listedByUid.set(record.get('uid'), record);
  for (const intent of intents.values()) {
    const list = rowsByUid.get(intent.uid) ?? [];
    if (intent.discarded) {
      // The last confirmed value, whichever it was: the store and the server must agree on it.
      const row = list[0];
      const listed = listedByUid.get(intent.uid);
      if (row !== undefined && listed === undefined) clientMismatches.push(`${describeIntent(intent)}: on the server, gone from the store`);
      if (row === undefined && listed !== undefined) clientMismatches.push(`${describeIntent(intent)}: in the store, not on the server`);
      if (row !== undefined && listed !== undefined) {
        if (listed.dirty || listed.phantom || listed.getId() !== row['id'] || listed.get('name') !== row['name'] || listed.get('rev') !== row['rev']) {
          clientMismatches.push(`${describeIntent(intent)}: client ${JSON.stringify({ id: listed.getId(), name: listed.get('name'), rev: listed.get('rev'), dirty: listed.dirty })} vs row ${JSON.stringify({ id: row['id'], name: row['name'], rev: row['rev'] })}`);
        }
      }
      continue;
    }
    if (intent.removed) {
      if (list.length > 0) resurrected.push(describeIntent(intent));
      continue;
    }
    const row = list[0];
    if (row === undefined) {
      missing.push(describeIntent(intent));
      continue;
    }
    if (row['name'] !== intent.name || row['rev'] !== intent.rev) {
      lostEdits.push(`${describeIntent(intent)}: server ${JSON.stringify({ name: row['name'], rev: row['rev'] })}, wanted ${JSON.stringify({ name: intent.name, rev: intent.rev })}`);
    }
    // The record the store lists (a discarding load may have replaced the user's first object).
    const record = listedByUid.get(intent.uid) ?? recordOf.get(intent.uid);
    if (record === undefined) continue;
    const problems: string[] = [];
    if (record.phantom) problems.push('still new');
    if (record.dirty) problems.push('still dirty');
    if (record.get('name') !== row['name'] || record.get('rev') !== row['rev']) problems.push(`client ${JSON.stringify({ name: record.get('name'), rev: record.get('rev') })}`);
    if (!record.phantom && record.getId() !== row['id']) problems.push(`id ${String(record.getId())} vs row ${String(row['id'])}`);
    if (problems.length > 0) clientMismatches.push(`${describeIntent(intent)}: ${problems.join(', ')}`);
  }

  const listedIds = new Map<string, number>();
  for (const record of store.getRange()) {
    const id = String(record.getId());
    listedIds.set(id, (listedIds.get(id) ?? 0) + 1);
  }
  const storeDuplicates = [...listedIds].filter(([, count]) => count > 1).map(([id, count]) => `${id} x${count}`);

  // What the server saw of the records that went wrong: the way to tell a library bug from a test's.
  const wrong = [...duplicates, ...lostEdits, ...resurrected, ...missing, ...clientMismatches].map((line) => line.split(/[ :]/)[0] ?? '');
  const histories = [...new Set(wrong)].slice(0, 3).map((uid) => `${historyOf(server, uid, rows)}\n  the user: ${(events.get(uid) ?? []).join('; ')}`);

  const stats = server.stats;
  const faults = TYPES.map((type) => `${type} ${stats.faults[type]}`).join(', ');
  const kinds = [...errorKinds.entries()].map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none';
  const summary =
    `soak seed=${options.seed} rate=${options.rate} records=${options.count} concurrency=${options.concurrency}${options.etag ? ' etag' : ''}${options.batchActions ? ' batched' : ''}${options.discards ? ' discards' : ''}: ` +
    `${done ? 'converged' : 'DID NOT CONVERGE'} after ${rounds} rounds in ${syncMs} ms; ` +
    `requests ${stats.requests}, faults ${stats.faulted} (${faults}); retries ${retries}; conflicts ${conflicts}; ` +
    `failed operations by kind: ${kinds}; ` +
    `server rows ${rows.length}, duplicates ${duplicates.length}, lost edits ${lostEdits.length}, removed but back ${resurrected.length}, ` +
    `missing ${missing.length}, strangers ${strangers.length}, client mismatches ${clientMismatches.length}, store duplicates ${storeDuplicates.length}`;

  return {
    summary,
    converged: done,
    rounds,
    duplicates,
    lostEdits,
    resurrected,
    missing,
    strangers,
    clientMismatches,
    storeDuplicates,
    lastErrors: [...new Set(lastErrors.map((e) => e.replace(/\/items\/\d+/, '/items/<id>')))],
    histories,
  };
}

/** The requests about one record (its uid in the body, or the path of a row that has its uid), in order. */
function historyOf(server: TestServer, uid: string, rows: readonly Record<string, unknown>[]): string {
  const ids = new Set(rows.filter((row) => row['uid'] === uid).map((row) => String(row['id'])));
  const mentions = (json: unknown): boolean =>
    Array.isArray(json) ? json.some(mentions) : typeof json === 'object' && json !== null && (Reflect.get(json, 'uid') === uid || ids.has(String(Reflect.get(json, 'id'))));
  const lines = server.requests
    .map((request, index) => ({ request, index }))
    .filter(({ request }) => mentions(request.json) || ids.has(request.path.split('/').pop() ?? ''))
    .map(({ request, index }) => {
      const item = Array.isArray(request.json) ? request.json.find((entry) => typeof entry === 'object' && entry !== null && Reflect.get(entry, 'uid') === uid) : request.json;
      const body = typeof item === 'object' && item !== null ? JSON.stringify({ id: Reflect.get(item, 'id'), name: Reflect.get(item, 'name'), rev: Reflect.get(item, 'rev') }) : '';
      const headers = ['if-match', 'idempotency-key'].filter((name) => request.headers[name] !== undefined).map((name) => `${name}=${request.headers[name]}`).join(' ');
      return `  #${index} ${request.method} ${request.path}${Array.isArray(request.json) ? ` (batch of ${request.json.length})` : ''} ${body} ${headers}${request.fault ? ` FAULT ${request.fault}` : ''}`;
    });
  return `${uid} (rows ${[...ids].join(', ') || 'none'}):\n${lines.join('\n')}`;
}

/** The server ends holding exactly what the user did, and store.sync() resolved in time. */
export function expectUserIntent(result: SoakResult): void {
  expect.soft(result.duplicates, 'records created twice').toEqual([]);
  expect.soft(result.lostEdits, 'edits lost').toEqual([]);
  expect.soft(result.resurrected, 'removed records still on the server').toEqual([]);
  expect.soft(result.missing, 'records missing on the server').toEqual([]);
  expect.soft(result.strangers, 'rows nobody made').toEqual([]);
  expect.soft(result.clientMismatches, 'client records that differ from the server').toEqual([]);
  expect.soft(result.storeDuplicates, 'ids the store lists twice').toEqual([]);
  expect.soft(result.lastErrors, 'failures of the last sync').toEqual([]);
  expect(result.converged, 'store.sync() resolved within the bound').toBe(true);
}
