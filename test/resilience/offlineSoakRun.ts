/**
 * The outbox's soak: an Item model attached to an Outbox, against the test server in seeded chaos
 * (resets before and after the server applied a request, 503s, stalls, truncated answers). The
 * user works in sessions, each a new Outbox over the same stored entries (a reload): it loads a
 * store, creates, edits and destroys records (saves not awaited, as a UI does), while the network
 * flips offline now and then (every request reset for a while). A session ends in a reload (the
 * outbox closed) or a kill (the storage cut off at once: what the engine commits after that is
 * lost, requests in flight still reach the server; the next session starts after they landed). Then chaos stops, a last outbox replays until
 * quiet, and the server must hold exactly what the user did, as must a store loaded from it.
 *
 * Used by test/soak/soak.test.ts (full size) and test/resilience/soak-small.test.ts.
 */
import { Model, RestProxy, Store } from '../../src/index.js';
import { MemoryStorage, Outbox, type OutboxStorage, type StorageCommit, type StoredObject } from '../../src/offline.js';
import { seededRandom } from '../server/faults.js';
import type { TestServer } from '../server/index.js';

export interface OfflineSoakOptions {
  sessions: number;
  /** User actions per session. */
  actions: number;
  seed: number;
  /** Share of write requests that get a fault. */
  rate: number;
  /** Milliseconds at most for the last replay. */
  maxMs: number;
}

export interface OfflineSoakReport {
  kills: number;
  reloads: number;
  offlineFlips: number;
  writes: number;
  /** What the user meant: uid -> name, null when destroyed. */
  expected: Map<string, string | null>;
  /** The server's rows: uid -> names (more than one: created twice). */
  server: Map<string, string[]>;
  /** A store loaded at the end: uid -> name. */
  client: Map<string, string>;
  quiet: boolean;
  /** The outbox's snapshot and failed entries' errors at the end. */
  left: string;
}

/** One session's view of the shared entries: cut off by kill() (later commits reject, nothing applied). */
class Life implements OutboxStorage {
  readonly durable = true;
  #dead = false;
  #inFlight = 0;
  constructor(private readonly shared: MemoryStorage) {}
  load(): Promise<StoredObject[]> {
    return this.shared.load();
  }
  async commit(change: StorageCommit): Promise<void> {
    if (this.#dead) throw new Error('killed');
    this.#inFlight++;
    try {
      await this.shared.commit(change);
    } finally {
      this.#inFlight--;
    }
  }
  /** As a real storage: what a closed outbox's requests answered after close() is not applied. */
  close(): Promise<void> {
    this.#dead = true;
    return Promise.resolve();
  }
  get busy(): boolean {
    return this.#inFlight > 0;
  }
  kill(): void {
    this.#dead = true;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runOfflineSoak(server: TestServer, options: OfflineSoakOptions): Promise<OfflineSoakReport> {
  const random = seededRandom(options.seed);
  class Item extends Model.define({ entityName: 'items', fields: { id: 'int', uid: 'string', name: 'string' } }) {
    // PATCH: the test server's PUT replaces the row, and an update sends only what changed.
    static override proxy = new RestProxy({ url: `${server.url}/items`, idempotencyKey: true, timeout: 400, actionMethods: { update: 'PATCH' } });
  }
  const shared = new MemoryStorage();
  const report: OfflineSoakReport = { kills: 0, reloads: 0, offlineFlips: 0, writes: 0, expected: new Map(), server: new Map(), client: new Map(), quiet: false, left: '' };
  const write = (promise: Promise<unknown>) => {
    report.writes++;
    promise.catch(() => undefined); // kept (queued) or told later: the end state is what counts
  };
  let made = 0;

  for (let session = 0; session < options.sessions; session++) {
    server.reset();
    const storage = new Life(shared);
    const outbox = new Outbox({ name: 'soak', storage, models: [Item], maxAttempts: 1_000 });
    await outbox.open();
    const store = new Store({ model: Item, pageSize: 0 });
    await store.load(); // reads are not under chaos
    server.chaos({ rate: options.rate, seed: options.seed + session, types: ['reset-before', 'reset-after', 'status', 'stall', 'truncate'], stallMs: 450, match: { method: ['POST', 'PUT', 'DELETE'] } });
    for (let action = 0; action < options.actions; action++) {
      const live = store.getRange().filter((record) => report.expected.get(String(record.get('uid'))) !== null);
      const roll = random();
      const record = live[Math.floor(random() * live.length)];
      if (roll < 0.35 || record === undefined) {
        const uid = `u${made++}`;
        const [created] = store.add({ uid, name: `${uid}-0` });
        report.expected.set(uid, `${uid}-0`);
        if (created !== undefined) write(created.save());
      } else if (roll < 0.7) {
        const name = `${String(record.get('uid'))}-${session}.${action}`;
        record.set('name', name);
        report.expected.set(String(record.get('uid')), name);
        write(record.save());
      } else if (roll < 0.85) {
        report.expected.set(String(record.get('uid')), null);
        write(record.destroy());
      } else if (roll < 0.9) {
        // Offline for a while: every request reset before the server reads it.
        server.inject({ type: 'reset-before', times: 3 + Math.floor(random() * 6) });
        report.offlineFlips++;
      }
      await sleep(random() * 15);
    }
    // Wait for the user's writes to be stored (as a page does before the user can close it).
    await sleep(5); // its commits queued behind the engine's start
    while (storage.busy) await sleep(1);
    if (random() < 0.5) {
      storage.kill();
      void outbox.close();
      report.kills++;
    } else {
      await outbox.close();
      report.reloads++;
    }
    // The page comes back a moment later: a request of the last one the server held (a stall) has
    // landed by then (else it could overwrite a newer edit: last writer wins without ETags).
    await sleep(500);
  }

  // Quiet: no chaos, one last outbox replays what is left.
  server.reset();
  const outbox = new Outbox({ name: 'soak', storage: new Life(shared), models: [Item], maxAttempts: 1_000 });
  await outbox.open();
  const started = Date.now();
  while (Date.now() - started < options.maxMs) {
    await outbox.flush();
    const { pending, sending, failed } = outbox.getSnapshot();
    if (pending + sending + failed === 0) {
      report.quiet = true;
      break;
    }
    await sleep(50);
  }
  report.left = JSON.stringify({ ...outbox.getSnapshot(), failed: outbox.failed.map((entry) => `${entry.action}: ${entry.error.kind} ${entry.error.status} ${entry.error.message}`) });
  const store = new Store({ model: Item, pageSize: 0 });
  await store.load();
  for (const record of store.getRange()) report.client.set(String(record.get('uid')), String(record.get('name')));
  await outbox.close();
  for (const row of server.db['items'] ?? []) {
    const uid = String(row['uid']);
    report.server.set(uid, [...(report.server.get(uid) ?? []), String(row['name'])]);
  }
  return report;
}

/** What must hold once quiet: the server equals what the user did, and the client equals the server. */
export function offlineSoakProblems(report: OfflineSoakReport): string[] {
  const problems: string[] = [];
  if (!report.quiet) problems.push(`the outbox did not get quiet: ${report.left}`);
  for (const [uid, name] of report.expected) {
    const rows = report.server.get(uid) ?? [];
    if (name === null && rows.length > 0) problems.push(`${uid}: destroyed, but on the server`);
    if (name !== null && rows.length !== 1) problems.push(`${uid}: ${rows.length} rows on the server`);
    if (name !== null && rows.length === 1 && rows[0] !== name) problems.push(`${uid}: ${rows[0] ?? ''} on the server, ${name} meant`);
  }
  for (const uid of report.server.keys()) if (!report.expected.has(uid)) problems.push(`${uid}: on the server, never made`);
  for (const [uid, [name] = []] of report.server) if (report.client.get(uid) !== name) problems.push(`${uid}: ${report.client.get(uid) ?? 'missing'} in the client, ${name ?? ''} on the server`);
  if (report.client.size !== report.server.size) problems.push(`${report.client.size} records in the client, ${report.server.size} on the server`);
  return problems;
}
