/**
 * Reads that stay fresh (issue 32), two rows:
 *
 *   node --expose-gc bench/freshness.mjs
 *
 * 1. A revalidation of an unchanged 100-row page answered 304: client CPU of `store.load()` (the
 *    store sends If-None-Match, the 304 changes nothing) against a bare `fetch` with the same
 *    If-None-Match answered 304 (body read). The server is another process. Also checks that the
 *    snapshot and every record keep their identity. Target: within 1.2x.
 * 2. A restored page of 1,000 rows: a new store reading its page from a ReadCache on
 *    MemoryStorage (a new cache over the storage, as after a reload, until `restored` resolves)
 *    against a new store loading the same rows through MemoryProxy. Target: within 1.5x.
 * Medians of alternating runs, per-round ratios. Prints JSON.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROWS = (count) => Array.from({ length: count }, (_, i) => ({ id: i + 1, name: `User ${i + 1}`, email: `user${i + 1}@example.com`, age: 20 + (i % 50), active: i % 2 === 0 }));

if (process.argv[2] === 'server') {
  // The page server: GET /users answers 100 rows with an ETag, 304 to a matching If-None-Match.
  const body = JSON.stringify(ROWS(100));
  const etag = '"page-1"';
  const server = createServer((req, res) => {
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { ETag: etag });
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', ETag: etag, 'X-Total-Count': '100' });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
  process.on('disconnect', () => server.close(() => process.exit(0)));
} else {
  const { build } = await import('esbuild');
  const { alternate, summarize } = await import('./cases.mjs');
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const dir = await mkdtemp(join(tmpdir(), 'fresh-bench-'));
  const bundle = join(dir, 'lib.mjs');
  await build({
    stdin: { contents: `export * from ${JSON.stringify(join(root, 'src/index.ts'))}; export * from ${JSON.stringify(join(root, 'src/offline.ts'))};`, resolveDir: root, loader: 'ts' },
    bundle: true, format: 'esm', platform: 'neutral', outfile: bundle, minify: true, logLevel: 'error',
  });
  const lib = await import(pathToFileURL(bundle).href);
  const child = fork(fileURLToPath(import.meta.url), ['server'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise((done) => child.once('message', (message) => done(message.port)));
  const url = `http://127.0.0.1:${port}/users`;
  const quick = process.env.BENCH_QUICK === '1';
  const gc = globalThis.gc;
  const cpu = (start) => {
    const { user, system } = process.cpuUsage(start);
    return (user + system) / 1000;
  };

  class User extends lib.Model {
    static entityName = 'User';
    static fields = [{ name: 'id', type: 'int' }, 'name', 'email', { name: 'age', type: 'int' }, { name: 'active', type: 'boolean' }];
  }

  // 1. Revalidation answered 304, REPEAT times per run (a run of one is below the clock's grain).
  const REPEAT = 200;
  const store = new lib.Store({ model: User, proxy: new lib.RestProxy({ url }), pageSize: 100 });
  await store.load();
  const snapshot = store.getSnapshot();
  const records = store.getRange();
  const recordSnapshots = records.map((record) => record.getSnapshot());
  const revalidation = summarize(await alternate([
    {
      name: 'fetch answered 304',
      async run() {
        const c0 = process.cpuUsage();
        for (let i = 0; i < REPEAT; i++) {
          const response = await fetch(`${url}?page=1&start=0&limit=100`, { headers: { accept: 'application/json', 'if-none-match': '"page-1"' }, cache: 'no-store' });
          await response.text();
          if (response.status !== 304) throw new Error(`fetch: ${response.status}`);
        }
        return { cpu: cpu(c0) };
      },
    },
    {
      name: 'store.load() answered 304',
      async run() {
        const c0 = process.cpuUsage();
        for (let i = 0; i < REPEAT; i++) await store.load();
        return { cpu: cpu(c0) };
      },
    },
  ], { warmup: 2, runs: quick ? 5 : 15, gc }), 'fetch answered 304');
  const unchanged = store.getSnapshot().records === snapshot.records && store.getRange().every((record, i) => record === records[i] && record.getSnapshot() === recordSnapshots[i]);
  if (!unchanged) throw new Error('a 304 changed a snapshot or a record');

  // 2. A page of 1,000 rows restored from the cache against a MemoryProxy load of the same rows.
  const rows = ROWS(1000);
  const storage = new lib.MemoryStorage();
  const first = new lib.ReadCache({ storage, scope: 'bench' });
  const source = new lib.Store({ model: User, proxy: new lib.MemoryProxy({ data: rows }), pageSize: 0, persist: { cache: first, key: 'users' } });
  await source.load();
  await first.flush();
  const restore = summarize(await alternate([
    {
      name: 'MemoryProxy load',
      async run() {
        const t0 = performance.now();
        const shown = new lib.Store({ model: User, proxy: new lib.MemoryProxy({ data: rows }), pageSize: 0 });
        await shown.load();
        const ms = performance.now() - t0;
        if (shown.getCount() !== 1000) throw new Error('MemoryProxy load');
        return { ms, keep: shown };
      },
    },
    {
      name: 'ReadCache restore (MemoryStorage)',
      async run() {
        const t0 = performance.now();
        const cache = new lib.ReadCache({ storage, scope: 'bench' });
        const shown = new lib.Store({ model: User, proxy: new lib.MemoryProxy({ data: [] }), pageSize: 0, persist: { cache, key: 'users' } });
        await shown.restored;
        const ms = performance.now() - t0;
        if (shown.getCount() !== 1000) throw new Error(`restored ${shown.getCount()}`);
        return { ms, keep: shown };
      },
    },
  ], { warmup: 3, runs: quick ? 5 : 15, gc }), 'MemoryProxy load');

  child.disconnect();
  await rm(dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify({ revalidation, restore, unchanged })}\n`);
}
