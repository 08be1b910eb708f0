/**
 * Try a change to src/ before making it: the current src/ against src/ with a patch applied,
 * both bundled and run in one process, alternated round by round (paired ratios to the raw
 * baseline, as bench/run.mjs measures them).
 *
 *   node bench/ab.mjs [patch] [scenario,...] [runs]
 *
 * patch is a patch file to apply to a copy of src/, or `worktree` (the default): src/ at HEAD (as
 * "src") against the uncommitted src/ of the working tree (as "patched"). Scenarios: batched, unbatched,
 * batched-cold (the store of each run let go, so that the gc before the next collects its records,
 * as the bench's "records collected" row), load (typed, every field read), load-untyped (default:
 * batched, unbatched, load). The load scenarios hold each run's store (and the floor's array) until
 * the variant's next run, as the bench's load section does (AB_LET_GO=1: let go, as before, which
 * adds the recompiling of dropped code to every variant: ~1.9x instead of ~1.8x). Each line ends
 * with patched/src, the median of the per-round ratios of the two (the floor's noise left out).
 */
import { execFileSync, fork } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = resolve(benchDir, '..');
const [patchArg = 'worktree', scenarioArg = 'batched,unbatched,load', runsArg] = process.argv.slice(2);

if (!process.execArgv.includes('--expose-gc')) {
  // Run again with gc exposed, so that each run starts from a collected heap.
  const child = fork(fileURLToPath(import.meta.url), process.argv.slice(2), { execArgv: ['--expose-gc'], stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 1));
} else {
  await main();
}

async function main() {
  const { build } = await import('esbuild');
  const { alternate, libModels, summarize } = await import('./cases.mjs');
  const { FIELD_NAMES, makeUsers } = await import('./data.mjs');
  const tmp = mkdtempSync(join(tmpdir(), 'rest-proxy-ab-'));
  const server = fork(join(benchDir, 'server.mjs'), [], { env: { ...process.env, BENCH_SIZES: '100000' }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    let baseSrc = join(root, 'src');
    let patchedSrc = join(tmp, 'patched/src');
    if (patchArg === 'worktree') {
      execFileSync('sh', ['-c', `git archive HEAD src | tar -x -C ${JSON.stringify(tmp)}`], { cwd: root });
      baseSrc = join(tmp, 'src');
      patchedSrc = join(root, 'src');
    } else {
      cpSync(join(root, 'src'), patchedSrc, { recursive: true });
      execFileSync('git', ['apply', resolve(patchArg)], { cwd: join(tmp, 'patched') });
    }
    const bundle = async (entry, out) => {
      await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'node', target: 'node20', outfile: out, logLevel: 'error' });
      return import(pathToFileURL(out).href);
    };
    const libs = { src: await bundle(join(baseSrc, 'index.ts'), join(tmp, 'src.mjs')), patched: await bundle(join(patchedSrc, 'index.ts'), join(tmp, 'patched.mjs')) };
    const port = await new Promise((resolvePort) => server.once('message', (message) => resolvePort(message.port)));
    const base = `http://127.0.0.1:${port}`;
    const gc = () => globalThis.gc();
    const now = () => performance.now();
    const cpu = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    };
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
    const items = () => makeUsers(1000).map(({ id: _id, ...item }) => item);
    const timed = async (work) => {
      const c0 = cpu();
      const t0 = now();
      await work();
      return { ms: now() - t0, cpu: cpu() - c0 };
    };
    const pool = async (list, work) => {
      let next = 0;
      await Promise.all(Array.from({ length: 4 }, async () => {
        while (next < list.length) await work(list[next++]);
      }));
    };
    const syncVariant = (name, lib, proxyConfig, options, cold = false) => {
      const { typed } = libModels(lib);
      const proxy = new lib.RestProxy({ url: `${base}/users`, ...proxyConfig });
      return {
        name,
        async run() {
          const store = new lib.Store({ model: typed, proxy, pageSize: 0 });
          store.add(items());
          const result = await timed(() => store.sync(options));
          if (store.getRange().some((record) => record.phantom)) throw new Error(`${name}: records left unsaved`);
          return { ...result, keep: cold ? undefined : store }; // held until the next run (see alternate in cases.mjs)
        },
      };
    };
    const loadVariant = (name, lib, readAll = true) => {
      const { typed, untyped } = libModels(lib);
      const proxy = new lib.RestProxy({ url: `${base}/users/100000` });
      return {
        name,
        async run() {
          let store;
          const result = await timed(async () => {
            store = new lib.Store({ model: readAll ? typed : untyped, proxy, pageSize: 0 });
            await store.load();
            if (!readAll) {
              if (store.getCount() !== 100_000) throw new Error('load: wrong count');
              return;
            }
            let sink = 0;
            for (const record of store) for (const field of FIELD_NAMES) if (record.get(field) != null) sink++;
            if (sink !== 600_000) throw new Error('load: wrong count');
          });
          return process.env.AB_LET_GO ? result : { ...result, keep: store }; // held until the next run, as the bench's load section holds it
        },
      };
    };
    const scenarios = {
      batched: () => [
        { name: 'raw bulk POST', run: () => timed(async () => (await fetch(`${base}/users`, { method: 'POST', headers, body: JSON.stringify(items()) })).json()) },
        syncVariant('src', libs.src, { batchActions: true }),
        syncVariant('patched', libs.patched, { batchActions: true }),
      ],
      'batched-cold': () => [
        { name: 'raw bulk POST', run: () => timed(async () => (await fetch(`${base}/users`, { method: 'POST', headers, body: JSON.stringify(items()) })).json()) },
        syncVariant('src', libs.src, { batchActions: true }, undefined, true),
        syncVariant('patched', libs.patched, { batchActions: true }, undefined, true),
      ],
      unbatched: () => [
        { name: 'raw POSTs', run: () => timed(() => pool(items(), async (item) => (await fetch(`${base}/users`, { method: 'POST', headers, body: JSON.stringify(item) })).json())) },
        syncVariant('src', libs.src, {}, { concurrency: 4 }),
        syncVariant('patched', libs.patched, {}, { concurrency: 4 }),
      ],
      load: () => [
        {
          name: 'floor',
          async run() {
            let data;
            const result = await timed(async () => {
              data = await (await fetch(`${base}/users/100000`)).json();
              let sink = 0;
              for (const item of data) for (const field of FIELD_NAMES) if (item[field] != null) sink++;
              if (sink !== 600_000) throw new Error('floor: wrong count');
            });
            return process.env.AB_LET_GO ? result : { ...result, keep: data };
          },
        },
        loadVariant('src', libs.src),
        loadVariant('patched', libs.patched),
      ],
      'load-untyped': () => [
        { name: 'floor', run: () => timed(async () => (await fetch(`${base}/users/100000`)).json()) },
        loadVariant('src', libs.src, false),
        loadVariant('patched', libs.patched, false),
      ],
    };
    const defaultRuns = { batched: 31, 'batched-cold': 31, unbatched: 9, load: 21, 'load-untyped': 21 };
    for (const scenario of scenarioArg.split(',')) {
      const variants = scenarios[scenario]?.();
      if (!variants) throw new Error(`unknown scenario ${scenario}`);
      const runs = Number(runsArg ?? defaultRuns[scenario]);
      const samples = await alternate(variants, { warmup: 2, runs, gc });
      const summary = summarize(samples, variants[0].name);
      const cells = Object.entries(summary).map(([name, s]) => `${name} ${s.ms.median.toFixed(1)} ms ${(s.ms.ratio ?? 1).toFixed(2)}x (CPU ${(s.cpu.ratio ?? 1).toFixed(2)}x)`);
      // patched against src directly, round by round (the floor's noise left out).
      const { ms, cpu: cpuTime } = summarize(samples, 'src').patched;
      console.log(`${scenario} (${runs} runs): ${cells.join(' | ')} | patched/src ${ms.ratio.toFixed(3)} (CPU ${cpuTime.ratio.toFixed(3)})`);
    }
  } finally {
    server.kill();
    rmSync(tmp, { recursive: true, force: true });
  }
  process.exit(0);
}
