/**
 * A child process for the outbox's kill loop (bundled and run by ./child.ts): an Outbox over
 * FileStorage at <path>, an Item model on <url>/items with idempotency keys. It opens (replaying
 * what the processes before it left), says `replayed`, then saves <count> new items (uids
 * `r<start>` on), one after the other, saying `write` before each save, `durable` with the uids
 * of the creates each commit put once it resolved, and `ack` once a save resolved; then flushes,
 * closes and says `done`.
 */
import { Model, RestProxy } from '../../../src/index.js';
import { FileStorage } from '../../../src/offline/file.js';
import { Outbox } from '../../../src/offline.js';
import type { StorageCommit, StoredObject } from '../../../src/offline/storage.js';
import { report } from './report.js';

const [path = '', url = '', startArg = '0', countArg = '0'] = process.argv.slice(2);
setTimeout(() => process.exit(3), 30_000).unref();

class Item extends Model.define({ entityName: 'items', fields: { id: 'int', uid: 'string', name: 'string' } }) {
  static override proxy = new RestProxy({ url: `${url}/items`, idempotencyKey: true, timeout: 2_000 });
}

/** FileStorage that says which creates each resolved commit made durable. */
class Reporting extends FileStorage {
  override async commit(change: StorageCommit<StoredObject>): Promise<void> {
    await super.commit(change);
    const uids = (change.put ?? []).flatMap((entry) => {
      const values = entry['values'];
      return entry['action'] === 'create' && typeof values === 'object' && values !== null && !Array.isArray(values) ? [String(values['uid'])] : [];
    });
    if (uids.length > 0) report({ type: 'durable', uids });
  }
}

try {
  const outbox = new Outbox({ name: 'kill', storage: new Reporting({ path }), models: [Item] });
  await outbox.open();
  await outbox.flush();
  report({ type: 'replayed', failed: outbox.getSnapshot().failed });
  const start = Number(startArg);
  for (let n = start; n < start + Number(countArg); n++) {
    report({ type: 'write', n });
    await new Item({ uid: `r${n}`, name: 'x' }).save();
    report({ type: 'ack', n });
  }
  // A child that writes waits for its kill: ending on its own before it is not the case tested.
  if (Number(countArg) > 0) setInterval(() => undefined, 60_000);
  if (Number(countArg) > 0) await new Promise(() => undefined);
  await outbox.flush();
  await outbox.close();
  report({ type: 'done' });
  process.exit(0);
} catch (error) {
  report({ type: 'error', message: String(error) });
  process.exit(2);
}
