/**
 * The outbox's replay against a plain unbatched sync (issue 23: within 1.3x):
 *
 *   node bench/outbox-replay.mjs
 *
 * 1,000 new records synced by a store (unbatched, 4 in flight), against the same 1,000 creates
 * queued in an outbox (MemoryStorage) and replayed by a new outbox over that storage, as after a
 * reload: open() (restore included) until flush() resolves. Both through the same proxy config
 * (idempotency keys on), against bench/server.mjs. Medians of alternating runs.
 */
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { alternate, libModels, summarize } from './cases.mjs';
import { makeUsers } from './data.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = await mkdtemp(join(tmpdir(), 'outbox-bench-'));
const bundle = join(dir, 'lib.mjs');
await build({
  stdin: { contents: `export * from ${JSON.stringify(join(root, 'src/index.ts'))}; export * from ${JSON.stringify(join(root, 'src/offline.ts'))};`, resolveDir: root, loader: 'ts' },
  bundle: true, format: 'esm', platform: 'neutral', outfile: bundle, minify: true, logLevel: 'error',
});
const lib = await import(pathToFileURL(bundle).href);
const server = fork(join(root, 'bench/server.mjs'), [], { env: { ...process.env, BENCH_SIZES: String(Number(process.env.BENCH_COUNT ?? 1000)) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const port = await new Promise((done) => server.once('message', (message) => done(message.port)));
const base = `http://127.0.0.1:${port}`;

const count = Number(process.env.BENCH_COUNT ?? 1000);
const items = () => makeUsers(count).map(({ id: _id, ...rest }) => rest);
const { typed: User } = libModels(lib);
const proxyConfig = { url: `${base}/users`, idempotencyKey: true };
let names = 0;

/** Milliseconds of CPU this process used since `start` (the server is another process). */
const cpuMs = (start) => {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
};

const check = (records) => {
  const bad = records.filter((record) => record.phantom || typeof record.getId() !== 'number').length;
  if (bad > 0 || records.length !== count) throw new Error(`left ${bad} of ${records.length} records unsaved`);
};

const variants = [
  {
    name: 'store.sync(), unbatched',
    async run() {
      const store = new lib.Store({ model: User, proxy: new lib.RestProxy(proxyConfig), pageSize: 0 });
      store.add(items());
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await store.sync();
      const t1 = performance.now();
      const cpu = cpuMs(c0);
      check(store.getRange());
      return { sync: t1 - t0, cpu };
    },
  },
  {
    name: 'outbox replay of queued creates',
    async run() {
      // Queued while the server cannot be reached (a closed port), then replayed after a "reload".
      const storage = new (class extends lib.MemoryStorage { close() { return Promise.resolve(); } })();
      const Offline = class extends User { static entityName = 'users'; static proxy = new lib.RestProxy({ ...proxyConfig, url: 'http://127.0.0.1:9/users' }); };
      const first = new lib.Outbox({ name: `bench-${++names}`, storage, models: [Offline] });
      await first.open();
      // Only the first save is tried (and fails, queued); the others wait for their own answer
      // (API.md 10), which never comes here: wait until every entry is stored, then "reload".
      for (const data of items()) new Offline(data).save().catch(() => undefined);
      for (let waited = 0; (await storage.load()).length !== count; waited += 10) {
        if (waited > 30_000) throw new Error(`not all queued: ${(await storage.load()).length} of ${count} after 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await first.close();
      const Online = class extends User { static entityName = 'users'; static proxy = new lib.RestProxy(proxyConfig); };
      const outbox = new lib.Outbox({ name: `bench-${++names}`, storage, models: [Online] });
      const restored = [];
      outbox.on('sent', ({ record }) => restored.push(record));
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await outbox.open();
      const opened = performance.now();
      await outbox.flush();
      const t1 = performance.now();
      const cpu = cpuMs(c0);
      check(restored);
      await outbox.close();
      return { sync: t1 - t0, cpu, open: opened - t0 };
    },
  },
];

try {
  const samples = await alternate(variants, { warmup: 2, runs: Number(process.env.BENCH_RUNS ?? 9), gc: globalThis.gc });
  const summary = summarize(samples, 'store.sync(), unbatched');
  console.log(JSON.stringify(summary, null, 2));
} finally {
  server.kill();
  await rm(dir, { recursive: true, force: true });
}
