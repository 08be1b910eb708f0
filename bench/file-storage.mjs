/**
 * FileStorage figures (issue 23): what a commit costs (written and flushed to disk with fdatasync
 * before it resolves), alone and as one batch of 1,000 puts, and what loading 10,000 entries costs.
 * Not part of `npm run bench` yet; run it by hand on the disk the outbox would use:
 *
 *   node bench/file-storage.mjs [folder]      (the system's temp folder unless told)
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dir = await mkdtemp(join(process.argv[2] ?? tmpdir(), 'rest-proxy-file-bench-'));
const outfile = join(dir, 'file.mjs');
await build({ entryPoints: [join(root, 'src/offline/file.ts')], bundle: true, platform: 'node', format: 'esm', outfile, logLevel: 'error' });
const { FileStorage } = await import(pathToFileURL(outfile).href);

/** An entry the size and shape of an outbox's: an update of a record, its values before, its key. */
const entry = (n) => ({
  id: `e${n}`, version: 1, entity: 'User', clientId: `User-${n}`, recordId: n, action: 'update', seq: n,
  changes: { name: `User ${n}`, email: `user${n}@example.com`, active: n % 2 === 0 },
  before: { name: `Old ${n}`, email: `old${n}@example.com`, active: n % 2 === 1 },
  key: `3f1c9a2e-${String(n).padStart(4, '0')}-4c1b-9d7e-5a8b2c6d0e1f`, etag: `W/"${n}"`, attempts: 0, nextAt: 0, state: 'pending', parents: [],
});
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const p95 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)];
const ms = (value) => `${value.toFixed(2)} ms`;
let files = 0;
const fresh = () => new FileStorage({ path: join(dir, `log-${++files}.jsonl`) });

// 1. One commit of one put, 300 times in a row.
{
  const storage = fresh();
  await storage.load();
  const times = [];
  for (let n = 0; n < 300; n++) {
    const start = performance.now();
    await storage.commit({ put: [entry(n)] });
    times.push(performance.now() - start);
  }
  await storage.close();
  console.log(`commit of 1 put (${JSON.stringify(entry(1)).length} B), 300 in a row: median ${ms(median(times))}, p95 ${ms(p95(times))}`);
}

// 2. One commit of 1,000 puts, 7 times.
{
  const times = [];
  let bytes = 0;
  for (let round = 0; round < 7; round++) {
    const storage = fresh();
    await storage.load();
    const put = Array.from({ length: 1000 }, (_, n) => entry(n));
    const start = performance.now();
    await storage.commit({ put });
    times.push(performance.now() - start);
    bytes = (await stat(storage.path)).size;
    await storage.close();
  }
  console.log(`commit of 1,000 puts (${(bytes / 1024).toFixed(0)} KiB): median ${ms(median(times))}, slowest ${ms(Math.max(...times))}`);
}

// 3. Load 10,000 entries: from a compacted log, and from one of 10,000 commits (one per line) and 5,000 replacing them.
for (const shape of ['10 commits of 1,000 puts', '15,000 commits of 1 put (5,000 replacing)']) {
  const storage = fresh();
  await storage.load();
  if (shape.startsWith('10 ')) {
    for (let k = 0; k < 10; k++) await storage.commit({ put: Array.from({ length: 1000 }, (_, n) => entry(k * 1000 + n)) });
  } else {
    const commits = [];
    for (let n = 0; n < 15_000; n++) commits.push(storage.commit({ put: [entry(n % 10_000)] }));
    await Promise.all(commits);
  }
  await storage.close();
  const bytes = (await stat(storage.path)).size;
  const times = [];
  for (let round = 0; round < 7; round++) {
    const again = new FileStorage({ path: storage.path });
    const start = performance.now();
    const loaded = await again.load();
    times.push(performance.now() - start);
    if (loaded.length !== 10_000) throw new Error(`loaded ${loaded.length}`);
    await again.close();
  }
  console.log(`load of 10,000 entries, log of ${shape} (${(bytes / 1024 / 1024).toFixed(1)} MiB on disk): median ${ms(median(times))}, slowest ${ms(Math.max(...times))}`);
}
await rm(dir, { recursive: true, force: true });
