/**
 * Where a 304 revalidation's client CPU goes (issue 32's row; not part of `npm run bench`):
 *
 *   node --expose-gc bench/probe-304.mjs
 *
 * Per operation, CPU (process.cpuUsage) medians of alternated rounds against a page server in
 * another process (bench/freshness.mjs's):
 * - `bare`: fetch with If-None-Match answered 304, body read (the bench's reference);
 * - `bare + signal and timer`: the same with an AbortController's signal and a 30 s timer (what
 *   the default `timeout` needs);
 * - `store.load()`: the revalidation the bench measures;
 * - `store.load(), fetch faked`: the library's own work, a 304 Response made in memory, hot loop;
 * - `bare, then the faked load`: the same two pieces of work, interleaved with the network wait.
 * On 2026-12-07, a quiet machine, three runs: bare 247-274 us, signal and timer +4 to +45 us,
 * store.load() 455-534 us, faked 55-75 us, interleaved 514-516 us. The library's work costs about
 * 4x as much after each network wait as in a hot loop (cold code and caches, or the GC of the two
 * interleaved; not told apart), so the gap is the amount of work a load does, not one part of it.
 */
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = await mkdtemp(join(tmpdir(), 'probe-304-'));
const bundle = join(dir, 'lib.mjs');
await build({
  stdin: { contents: `export * from ${JSON.stringify(join(root, 'src/index.ts'))};`, resolveDir: root, loader: 'ts' },
  bundle: true, format: 'esm', platform: 'neutral', outfile: bundle, minify: true, logLevel: 'error',
});
const lib = await import(pathToFileURL(bundle).href);
const child = fork(join(root, 'bench/freshness.mjs'), ['server'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const port = await new Promise((done) => child.once('message', (message) => done(message.port)));
const url = `http://127.0.0.1:${port}/users`;
const page = `${url}?page=1&start=0&limit=100`;
const headers = { accept: 'application/json', 'if-none-match': '"page-1"' };

class User extends lib.Model {
  static entityName = 'User';
  static fields = [{ name: 'id', type: 'int' }, 'name', 'email', { name: 'age', type: 'int' }, { name: 'active', type: 'boolean' }];
}
const store = new lib.Store({ model: User, proxy: new lib.RestProxy({ url }), pageSize: 100 });
await store.load();
const fake = async () => new Response(null, { status: 304, headers: { etag: '"page-1"' } });
const faked = new lib.Store({ model: User, proxy: new lib.RestProxy({ url, fetch: fake }), pageSize: 100 });
faked.hydrate(store.dehydrate());

const bare = async () => {
  const response = await fetch(page, { headers, cache: 'no-store' });
  await response.text();
};
const cases = {
  bare,
  'bare + signal and timer': async () => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 30_000);
    const response = await fetch(page, { headers, cache: 'no-store', signal: controller.signal });
    await response.text();
    clearTimeout(timer);
  },
  'store.load()': () => store.load(),
  'store.load(), fetch faked': () => faked.load(),
  'bare, then the faked load': async () => {
    await bare();
    await faked.load();
  },
};
const N = 500;
const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < 10; round++) {
  for (const [name, run] of Object.entries(cases)) {
    globalThis.gc?.();
    const start = process.cpuUsage();
    for (let i = 0; i < N; i++) await run();
    const { user, system } = process.cpuUsage(start);
    if (round >= 2) times[name].push((user + system) / N);
  }
}
const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];
for (const [name, values] of Object.entries(times)) console.log(`${name.padEnd(28)} ${median(values).toFixed(1).padStart(7)} us`);
child.disconnect();
await rm(dir, { recursive: true, force: true });
