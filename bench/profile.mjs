/**
 * Profile one bench scenario (a V8 .cpuprofile, as node --cpu-prof writes, but taken with
 * node:inspector's Profiler around the measured runs only, so set-up is left out) and print the
 * top self-time functions, with the hottest lines of the library's.
 *
 *   node bench/profile.mjs <scenario> [repeat] [top]
 *
 * scenarios: load-untyped, load-typed-read, floor, sync-batched, sync-batched-cold, sync-unbatched,
 * raw-bulk, raw-posts. sync-batched-cold: before each run, the previous run's store is let go and
 * collected (as the bench's "records collected" row; the store of 1,000 new records is made in
 * the profile, after the gc).
 * The library is bundled unminified (names and src lines stay readable), the bench server runs
 * in its own process, and the profiled process runs the scenario `repeat` times after a warm-up.
 * Set BENCH_KEEP_PROFILE=<dir> to keep the .cpuprofile (open it in Chrome DevTools), and
 * BENCH_SRC=<dir> to profile a patched copy of src/ (to try a change before proposing it),
 * BENCH_PROFILE_LIB_ONLY=1 to list the library's functions only, BENCH_PROFILE_UNDER=1 to list
 * the time under each library function (its code plus the non-library code it calls directly).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = resolve(benchDir, '..');
const [mode, ...rest] = process.argv.slice(2);

if (mode === '--target') {
  await target(...rest);
} else {
  await main(mode ?? 'load-untyped', Number(rest[0] ?? 10), Number(rest[1] ?? 25));
}

async function main(scenario, repeat, top) {
  const { build } = await import('esbuild');
  const tmp = mkdtempSync(join(tmpdir(), 'rest-proxy-profile-'));
  const libPath = join(tmp, 'lib.mjs');
  const entry = process.env.BENCH_SRC ? resolve(process.env.BENCH_SRC, 'index.ts') : join(root, 'src/index.ts');
  await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'node', target: 'node20', outfile: libPath, sourcemap: 'inline', logLevel: 'error' });
  const server = fork(join(benchDir, 'server.mjs'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise((resolvePort) => server.once('message', (message) => resolvePort(message.port)));
  try {
    await new Promise((resolveRun, reject) => {
      const child = fork(fileURLToPath(import.meta.url), ['--target', scenario, `http://127.0.0.1:${port}`, libPath, String(repeat), tmp], {
        execArgv: ['--expose-gc'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      child.on('exit', (code) => (code === 0 ? resolveRun() : reject(new Error(`profiled run exited ${code}`))));
    });
    const file = readdirSync(tmp).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error('no .cpuprofile written');
    if (process.env.BENCH_KEEP_PROFILE) writeFileSync(join(process.env.BENCH_KEEP_PROFILE, file), readFileSync(join(tmp, file)));
    const bundle = readFileSync(libPath, 'utf8');
    report(JSON.parse(readFileSync(join(tmp, file), 'utf8')), top, scenario, sourceMarkers(bundle), bundle.split('\n'));
  } finally {
    server.kill();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The src file of each line of the unminified bundle, from esbuild's `// src/...` markers. */
function sourceMarkers(bundle) {
  const markers = [];
  bundle.split('\n').forEach((line, index) => {
    const match = /^\/\/ (?:\S*\/)?(src\/\S+)$/.exec(line);
    if (match) markers.push([index + 1, match[1]]);
  });
  return (line) => {
    let file;
    for (const [start, name] of markers) if (start <= line) file = name;
    return file;
  };
}

/** Print the functions with the most self time (aggregated by name and location). */
function report(profile, top, scenario, fileOf, bundleLines) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  // Line-level ticks of the library's functions (V8 records them per profile node).
  const lines = new Map();
  for (const node of profile.nodes) {
    if (!node.callFrame.url.endsWith('/lib.mjs') || !node.positionTicks) continue;
    const key = `${node.callFrame.functionName || '(anonymous)'}:${node.callFrame.lineNumber + 1}`;
    const perLine = lines.get(key) ?? new Map();
    for (const { line, ticks } of node.positionTicks) perLine.set(line, (perLine.get(line) ?? 0) + ticks);
    lines.set(key, perLine);
  }
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const delta = profile.timeDeltas[i] ?? 0;
    total += delta;
    const frame = node.callFrame;
    const line = frame.lineNumber + 1;
    const inLib = frame.url.endsWith('/lib.mjs');
    const where = frame.url ? (inLib ? `${fileOf(line) ?? 'lib.mjs'} (lib.mjs:${line})` : `${frame.url.replace(/^.*\/(node_modules\/|bench\/)/, '$1')}:${line}`) : '';
    const key = `${frame.functionName || '(anonymous)'}  ${where}`;
    self.set(key, (self.get(key) ?? 0) + delta);
  }
  // Self time by where the code lives.
  const groups = new Map();
  for (const [key, time] of self) {
    const group = key.includes('(lib.mjs:') ? 'rest-proxy (src/)' : key.includes('undici') ? 'undici (fetch)' : key.includes('node:') ? 'other node internals' : key.includes('bench/') ? 'bench code' : key.replace(/ {2}.*$/, '');
    groups.set(group, (groups.get(group) ?? 0) + time);
  }
  const idle = ['(idle)  ', '(program)  ', '(garbage collector)  '];
  const busy = total - idle.slice(0, 1).reduce((sum, key) => sum + (self.get(key) ?? 0), 0);
  console.log(`${scenario}: ${(total / 1000).toFixed(0)} ms profiled, ${(busy / 1000).toFixed(0)} ms not idle`);
  console.log(`  by origin: ${[...groups.entries()].sort((a, b) => b[1] - a[1]).map(([group, time]) => `${group} ${(time / 1000).toFixed(0)} ms`).join(', ')}`);
  // Time under each library function: its self time plus the time of the non-library code it
  // calls (fetch, Headers, AbortController, JSON, promises...), up to the next library function.
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const nearestLib = new Map();
  const libKeyOf = (id) => {
    if (nearestLib.has(id)) return nearestLib.get(id);
    const node = byId.get(id);
    let key;
    if (node.callFrame.url.endsWith('/lib.mjs')) key = `${node.callFrame.functionName || '(anonymous)'}  ${fileOf(node.callFrame.lineNumber + 1) ?? 'lib.mjs'} (lib.mjs:${node.callFrame.lineNumber + 1})`;
    else if (parent.has(id)) key = libKeyOf(parent.get(id));
    nearestLib.set(id, key);
    return key;
  };
  const under = new Map();
  let underLib = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const key = libKeyOf(profile.samples[i]);
    if (key === undefined) continue;
    const delta = profile.timeDeltas[i] ?? 0;
    underLib += delta;
    under.set(key, (under.get(key) ?? 0) + delta);
  }
  if (process.env.BENCH_PROFILE_UNDER === '1') {
    console.log(`  time under library functions (their own code plus the non-library code they call): ${(underLib / 1000).toFixed(0)} ms`);
    for (const [key, time] of [...under.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`${(time / 1000).toFixed(1).padStart(9)} ms ${((time / busy) * 100).toFixed(1).padStart(5)}%  ${key}`);
    }
    return;
  }
  const libOnly = process.env.BENCH_PROFILE_LIB_ONLY === '1';
  const rows = [...self.entries()].filter(([key]) => !libOnly || key.includes('(lib.mjs:')).sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [key, time] of rows) {
    console.log(`${(time / 1000).toFixed(1).padStart(9)} ms ${((time / busy) * 100).toFixed(1).padStart(5)}%  ${key}`);
    const match = /^(\S+) {2}.*\(lib\.mjs:(\d+)\)$/.exec(key);
    const perLine = match ? lines.get(`${match[1]}:${match[2]}`) : undefined;
    if (!perLine || time / busy < 0.02) continue;
    const sum = [...perLine.values()].reduce((a, b) => a + b, 0);
    for (const [line, ticks] of [...perLine.entries()].sort((a, b) => b[1] - a[1]).slice(0, 4)) {
      console.log(`${' '.repeat(20)}${((ticks / sum) * 100).toFixed(0).padStart(3)}% of it at lib.mjs:${line}  ${(bundleLines[line - 1] ?? '').trim().slice(0, 110)}`);
    }
  }
}

/** The profiled process: sets up every run first, then profiles the runs alone. */
async function target(scenario, base, libPath, repeatText, outDir) {
  const repeat = Number(repeatText);
  const lib = await import(pathToFileURL(libPath).href);
  const { libModels } = await import('./cases.mjs');
  const { makeUsers, FIELD_NAMES } = await import('./data.mjs');
  const models = libModels(lib);
  const n = 100_000;
  const url = `${base}/users/${n}`;
  const postUrl = `${base}/users`;
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const newItems = () => makeUsers(1000).map(({ id: _id, ...item }) => item);
  const newStore = (proxyConfig) => () => {
    const store = new lib.Store({ model: models.typed, proxy: new lib.RestProxy({ url: postUrl, ...proxyConfig }), pageSize: 0 });
    store.add(newItems());
    return store;
  };
  const scenarios = {
    floor: { run: async () => (await (await fetch(url)).json()).length },
    'load-untyped': {
      run: async () => {
        const store = new lib.Store({ model: models.untyped, proxy: new lib.RestProxy({ url }), pageSize: 0 });
        await store.load();
        return store.getCount();
      },
    },
    'load-typed-read': {
      run: async () => {
        const store = new lib.Store({ model: models.typed, proxy: new lib.RestProxy({ url }), pageSize: 0 });
        await store.load();
        let sink = 0;
        for (const record of store) for (const name of FIELD_NAMES) if (record.get(name) != null) sink++;
        return sink;
      },
    },
    'sync-batched': { setup: newStore({ batchActions: true }), run: async (store) => (await store.sync(), store.getCount()) },
    'sync-batched-cold': { cold: true, setup: newStore({ batchActions: true }), run: async (store) => (await store.sync(), store.getCount()) },
    'sync-unbatched': { setup: newStore({}), run: async (store) => (await store.sync({ concurrency: 4 }), store.getCount()) },
    'raw-bulk': {
      setup: newItems,
      run: async (list) => {
        const response = await fetch(postUrl, { method: 'POST', headers, body: JSON.stringify(list) });
        const saved = await response.json();
        for (let i = 0; i < list.length; i++) list[i].id = saved[i].id;
        return saved.length;
      },
    },
    'raw-posts': {
      setup: newItems,
      run: async (list) => {
        let next = 0;
        const worker = async () => {
          while (next < list.length) {
            const item = list[next++];
            const response = await fetch(postUrl, { method: 'POST', headers, body: JSON.stringify(item) });
            item.id = (await response.json()).id;
          }
        };
        await Promise.all([worker(), worker(), worker(), worker()]);
        return list.length;
      },
    },
  };
  const chosen = scenarios[scenario];
  if (!chosen) throw new Error(`unknown scenario ${scenario}; one of ${Object.keys(scenarios).join(', ')}`);
  const setup = chosen.setup ?? (() => undefined);
  for (let i = 0; i < 3; i++) await chosen.run(setup()); // warm-up
  const states = chosen.cold ? [] : Array.from({ length: repeat }, () => setup());
  globalThis.gc?.();
  const session = new Session();
  session.connect();
  const post = (method, params = {}) => new Promise((resolvePost, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolvePost(result))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  if (chosen.cold) {
    for (let i = 0; i < repeat; i++) {
      globalThis.gc?.();
      await chosen.run(setup());
    }
  } else {
    for (const state of states) await chosen.run(state);
  }
  const { profile } = await post('Profiler.stop');
  writeFileSync(join(outDir, `${scenario}.cpuprofile`), JSON.stringify(profile));
  session.disconnect();
  process.exit(0);
}
