/**
 * A worker thread for the FileStorage thread test (bundled by ./child.ts, run by
 * node:worker_threads): opens the storage at `workerData.path`, commits `workerData.commits`
 * entries one at a time, and tells the parent of each commit that resolved (`ack`), then
 * `committed`, and keeps the log open until the parent says `close`; or it tells that it could
 * not open the log (`refused`, with the error's kind and message). `done` at the end.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FileStorage } from '../../../src/offline/file.js';
import { OutboxError } from '../../../src/offline/errors.js';

const { path, commits, name } = workerData as { path: string; commits: number; name: string };
const storage = new FileStorage({ path });
try {
  await storage.load();
  parentPort?.postMessage({ type: 'opened', name });
  for (let k = 0; k < commits; k++) {
    await storage.commit({ put: [{ id: `${name}-${k}` }] });
    parentPort?.postMessage({ type: 'ack', id: `${name}-${k}` });
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  parentPort?.postMessage({ type: 'committed' });
  await new Promise((resolve) => parentPort?.once('message', resolve));
  await storage.close();
} catch (error) {
  parentPort?.postMessage({ type: 'refused', kind: error instanceof OutboxError ? error.kind : 'other', message: error instanceof Error ? error.message : String(error) });
}
parentPort?.postMessage({ type: 'done' });
