/**
 * Where a 304 revalidation's client CPU goes (issue 32's row; not part of `npm run bench`):
 *
 *   node --expose-gc bench/probe-304.mjs
 *
 * Per operation, CPU (process.cpuUsage) medians of alternated rounds against a page server in
 * another process (bench/freshness.mjs's), and the median of each round's ratio to `bare`:
 * - `bare`: fetch with If-None-Match answered 304, body read (the bench's reference);
 * - `bare + signal and timer`: the same with an AbortController's signal and a 30 s timer (what
 *   the contract's `timeout` and abort need of any client: the floor);
 * - `least lane`: the least a revalidation can run under the contract, written inline: the
 *   signal and timer, a superseding load's counter, isFetching told twice, the 304 check and
 *   `fetchedAt` (no Operation, no Request, no layers; the store's records returned);
 * - `store.load()`: the revalidation the bench measures;
 * - `store.load(), three layers off`: `shareReads: false, retry: 0, timeout: 0` (what the
 *   default layers cost together);
 * - `proxy.read()`: the proxy's part alone (an Operation carrying the validator);
 * - `store.load(), fetch faked`: the library's own work, a 304 Response made in memory, hot loop;
 * - `bare, then the faked load`: the same two pieces of work, interleaved with the network wait.
 * Findings (bench/FINDINGS.md, 304 revalidation): the library's work costs several times as
 * much after each network wait as in a hot loop, and spread over every step of a load (the three
 * layers together are a tenth of a bare fetch), so only a path that skips most steps gets near
 * 1.2x, and the floor itself measures 1.0-1.2x on this machine.
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

const layersOff = new lib.Store({ model: User, proxy: new lib.RestProxy({ url, shareReads: false, retry: 0, timeout: 0 }), pageSize: 100 });
await layersOff.load();
let told = 0;
const lane = { seq: 0, url: page, etag: '"page-1"', fetching: false, fetchedAt: 0, changed: () => told++ };

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
  'least lane': async () => {
    const seq = ++lane.seq;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 30_000);
    lane.fetching = true;
    lane.changed();
    try {
      const response = await fetch(lane.url, { method: 'GET', headers: { accept: 'application/json', 'if-none-match': lane.etag }, cache: 'no-store', signal: controller.signal });
      if (seq !== lane.seq) throw new Error('superseded');
      if (response.status !== 304) throw new Error(`lane: ${response.status}`);
      lane.fetchedAt = Date.now();
      return store.getRange();
    } finally {
      clearTimeout(timer);
      lane.fetching = false;
      lane.changed();
    }
  },
  'store.load()': () => store.load(),
  'store.load(), three layers off': () => layersOff.load(),
  'proxy.read()': () => {
    const operation = new lib.Operation({ action: 'read', page: 1, start: 0, limit: 100 });
    operation.validator = { url: page, etag: '"page-1"' };
    return store.getProxy().read(operation);
  },
  'store.load(), fetch faked': () => faked.load(),
  'bare, then the faked load': async () => {
    await bare();
    await faked.load();
  },
};
const N = 500;
const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < 12; round++) {
  const order = round % 2 === 0 ? Object.entries(cases) : Object.entries(cases).reverse();
  for (const [name, run] of order) {
    globalThis.gc?.();
    const start = process.cpuUsage();
    for (let i = 0; i < N; i++) await run();
    const { user, system } = process.cpuUsage(start);
    if (round >= 2) times[name].push((user + system) / N);
  }
}
const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];
for (const [name, values] of Object.entries(times)) {
  const ratio = median(values.map((value, i) => value / times.bare[i]));
  console.log(`${name.padEnd(32)} ${median([...values]).toFixed(1).padStart(7)} us  ${ratio.toFixed(2)}x bare`);
}
child.disconnect();
await rm(dir, { recursive: true, force: true });
