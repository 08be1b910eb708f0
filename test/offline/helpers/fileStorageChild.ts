/**
 * A child process for the FileStorage crash tests (bundled and run by ./child.ts):
 *
 *   hold <path>            open and load the storage, say so, and keep it open until killed
 *   writer <path> <window> load, say what is there, then commit until killed: commit k puts the
 *                          parts k-0 .. k-(of-1) (1 to 5 of them, of random sizes up to 256 KiB)
 *                          and deletes those of commit k - window; it says `begin` before each
 *                          commit and `ack` once it resolved
 */
import { FileStorage } from '../../../src/offline/file.js';
import { OutboxError } from '../../../src/offline/errors.js';
import { report } from './report.js';

const [mode, path = '', windowArg = '20'] = process.argv.slice(2);
const storage = new FileStorage({ path });
// The parent is gone (its test failed, or timed out): stop.
setTimeout(() => process.exit(3), 30_000).unref();

function size(): number {
  const roll = Math.random();
  if (roll < 0.7) return 50 + Math.floor(Math.random() * 450);
  if (roll < 0.95) return 2000 + Math.floor(Math.random() * 6000);
  return 65_536 + Math.floor(Math.random() * 196_608);
}

try {
  const started = performance.now();
  const entries = await storage.load();
  const loadMs = performance.now() - started;
  const summary = entries.map(({ id, k, part, of }) => ({ id, k, part, of }));
  report({ type: 'loaded', pid: process.pid, count: entries.length, entries: summary, loadMs });
  if (mode === 'hold') setInterval(() => undefined, 1000);
  else {
    const window = Number(windowArg);
    let k = Math.max(0, ...entries.map((entry) => Number(entry['k']))) + 1;
    for (; ; k++) {
      const of = 1 + Math.floor(Math.random() * 5);
      const put = Array.from({ length: of }, (_, part) => ({ id: `${k}-${part}`, k, part, of, pad: 'x'.repeat(size()) }));
      const old = k - window;
      report({ type: 'begin', k });
      await storage.commit({ put, delete: old > 0 ? [0, 1, 2, 3, 4].map((part) => `${old}-${part}`) : [] });
      report({ type: 'ack', k });
    }
  }
} catch (error) {
  report({ type: 'error', kind: error instanceof OutboxError ? error.kind : undefined, message: String(error) });
  process.exit(2);
}
