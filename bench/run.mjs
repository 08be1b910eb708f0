/**
 * npm run bench: the performance bench of rest-proxy (issue 7). Prints a table on stdout and
 * writes bench/results.json. Progress goes to stderr.
 *
 *   node bench/run.mjs [--quick] [--no-browser]
 *
 * Every timing is taken in one process per section (a child with --expose-gc, gc before each
 * run), the variants alternated round by round after a warm-up; a ratio is the median of the
 * per-round ratios to the baseline, so machine load shared by a round cancels out.
 */
import { execFileSync, fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { TARGETS, measureAll } from './bundle-size.mjs';
import { median as medianOf } from './cases.mjs';
import { TANSTACK } from './live.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = resolve(benchDir, '..');
const args = new Set(process.argv.slice(2));
const quick = args.has('--quick') || process.env.BENCH_QUICK === '1';
// --only=load,browser,heap,sync,url,live,live-browser,associations,finders,outbox,buffered,fresh,size runs some sections (for working on one); it
// prints their tables but writes no results.json. browser = the load and the live UI in Chromium;
// live-browser = the live UI alone in Chromium.
const onlyArg = process.argv.find((arg) => arg.startsWith('--only='));
const only = onlyArg ? new Set(onlyArg.slice('--only='.length).split(',')) : undefined;
const wanted = (section) => only === undefined || only.has(section);
const CHROMIUM = process.env.BENCH_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-quic',
  '--js-flags=--expose-gc', // window.gc(), so that each run starts from a collected heap, as in Node
];
const started = Date.now();
const loadAtStart = loadavg()[0];
const log = (line) => process.stderr.write(`${line}\n`);
const children = new Set();

// ---- setup: bundles, server --------------------------------------------------------------------

// Left-overs of runs that were killed (older than an hour), then this run's own directory.
for (const entry of readdirSync(tmpdir())) {
  if (!entry.startsWith('rest-proxy-bench-')) continue;
  const path = join(tmpdir(), entry);
  try {
    if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  } catch {
    // gone meanwhile
  }
}
const tmp = mkdtempSync(join(tmpdir(), 'rest-proxy-bench-'));
const staticDir = join(tmp, 'static');
mkdirSync(staticDir);
function cleanup() {
  for (const child of children) child.kill();
  rmSync(tmp, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

log(`bench: bundling the library (esbuild)${quick ? ' [quick]' : ''}`);
const libPath = join(tmp, 'lib.mjs');
await build({ entryPoints: [join(root, 'src/index.ts')], bundle: true, format: 'esm', platform: 'node', target: 'node20', outfile: libPath, logLevel: 'error' });
await build({
  entryPoints: [join(benchDir, 'browser-entry.mjs')], bundle: true, format: 'esm', platform: 'browser', target: 'es2022',
  outfile: join(staticDir, 'bench.js'), logLevel: 'error',
});
writeFileSync(join(staticDir, 'bench.html'), '<!doctype html><meta charset="utf-8"><title>rest-proxy bench</title><link rel="icon" href="data:,"><script type="module" src="/static/bench.js"></script>\n');

function startServer() {
  return new Promise((resolvePort, reject) => {
    const child = fork(join(benchDir, 'server.mjs'), [], {
      env: { ...process.env, BENCH_STATIC_DIR: staticDir, BENCH_SERVER_TTL_MS: String(15 * 60_000) },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.add(child);
    child.once('message', (message) => resolvePort(message.port));
    child.once('exit', (code) => reject(new Error(`the bench server exited (${code})`)));
  });
}
const port = await startServer();
const base = `http://127.0.0.1:${port}`;
log(`bench: server on ${base}`);

/** Run one section of node-bench.mjs in a child with --expose-gc; resolves with its result. */
function runChild(section, timeoutMs = 240_000) {
  return new Promise((resolveResult, reject) => {
    const child = fork(join(benchDir, 'node-bench.mjs'), [section, base, libPath], {
      execArgv: ['--expose-gc'],
      env: { ...process.env, BENCH_QUICK: quick ? '1' : '0' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.add(child);
    let result;
    const timer = setTimeout(() => child.kill(), timeoutMs);
    child.on('message', (message) => {
      result = message;
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      if (result !== undefined) resolveResult(result);
      else reject(new Error(`bench section ${section} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

// ---- sections ------------------------------------------------------------------------------

const results = { meta: {}, load: {}, heap: {}, sync: undefined, url: undefined, live: undefined, liveBrowser: undefined, outbox: undefined, sizes: undefined, targets: [] };
let chromiumVersion;

if (wanted('load')) {
  log('bench: 1. load (Node)');
  results.load.node = await runChild('load');
}
if (wanted('browser') || wanted('live-browser')) {
  log(`bench: ${wanted('browser') ? '1. load and ' : ''}6. a live UI (headless Chromium)`);
  const { load, live, ...about } = await runBrowser({ load: wanted('browser') });
  chromiumVersion = about.version;
  log(about.skipped ? `  ${about.skipped}` : `  Chromium ${about.version}, gc exposed: ${about.gcExposed}, live page cross-origin isolated: ${about.isolated}`);
  if (wanted('browser')) results.load.browser = about.skipped ? about : { ...about, ...load };
  results.liveBrowser = about.skipped ? undefined : live;
}
if (wanted('heap')) {
  log('bench: 2. heap per record (N = 100,000)');
  for (const variant of ['plain', 'plain, dates converted', 'rest-proxy untyped', 'rest-proxy typed', 'rest-proxy typed, all read', 'backbone untyped', 'backbone typed']) {
    const { bytesPerRecord, samples } = await runChild(`heap:${variant}`, 120_000);
    results.heap[variant] = { bytesPerRecord, samples };
    log(`  ${variant}: ${bytesPerRecord.toFixed(1)} bytes/record`);
  }
}
if (wanted('sync')) {
  log('bench: 3. sync of 1,000 new records');
  results.sync = await runChild('sync');
}
if (wanted('url')) {
  log('bench: 4. buildUrl and getParams');
  results.url = await runChild('url');
}
if (wanted('live')) {
  log('bench: 6. a live UI: one edit until a subscriber is told; local sort, filter and group');
  results.live = await runChild('live');
}
if (wanted('associations')) {
  log('bench: 7. a 100k load of an associated model (bench/associations.mjs)');
  results.associations = await runChild('associations');
}
if (wanted('buffered')) {
  log('bench: 9. BufferedStore over 1,000,000 rows (bench/buffered.mjs)');
  results.buffered = await runChild('buffered', 600_000);
}
if (wanted('finders')) {
  log('bench: 10. finders, live summaries and chained stores at 100k (bench/finders.mjs)');
  results.finders = await runChild('finders');
}
if (wanted('outbox')) {
  log('bench: 8. the outbox replaying 1,000 queued creates (bench/outbox-replay.mjs)');
  const stdout = execFileSync(process.execPath, ['--expose-gc', join(benchDir, 'outbox-replay.mjs')], {
    env: { ...process.env, ...(quick ? { BENCH_RUNS: '3' } : {}) }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000,
  });
  results.outbox = JSON.parse(stdout);
}
if (wanted('fresh')) {
  log('bench: 9. reads that stay fresh: a 304 revalidation, a page restored from a ReadCache (bench/freshness.mjs)');
  const stdout = execFileSync(process.execPath, ['--expose-gc', join(benchDir, 'freshness.mjs')], {
    env: { ...process.env, ...(quick ? { BENCH_QUICK: '1' } : {}) }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000,
  });
  results.fresh = JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
}
if (wanted('size')) {
  log('bench: 5. bundle sizes');
  results.sizes = await measureAll();
}

/**
 * The load (when asked) and the live-UI section in headless Chromium, each in its own page: the
 * live UI's cross-origin isolated (bench/server.mjs), the load's as it was measured so far.
 */
async function runBrowser({ load }) {
  if (args.has('--no-browser')) return { skipped: 'skipped (--no-browser)' };
  if (!existsSync(CHROMIUM)) return { skipped: `skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)` };
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (error) {
    return { skipped: `skipped: playwright-core is not installed (npm i -D playwright-core): ${error.message}` };
  }
  let browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
    const version = browser.version();
    const open = async (query) => {
      const page = await browser.newPage();
      page.on('console', (message) => log(`  [chromium] ${message.text()}`));
      page.on('pageerror', (error) => log(`  [chromium] page error: ${error.message}`));
      page.setDefaultTimeout(240_000);
      await page.goto(`${base}/static/bench.html${query}`);
      await page.waitForFunction(() => window.benchReady === true, undefined, { timeout: 30_000 });
      return page;
    };
    let page = await open('');
    const gcExposed = await page.evaluate(() => typeof window.gc === 'function');
    const loaded = load ? await page.evaluate((config) => window.runBench(config), { sizes: [10_000, 100_000], quick }) : undefined;
    await page.close();
    // performance.now() in steps of 5 µs, not 100 µs.
    page = await open('?isolated');
    const isolated = await page.evaluate(() => window.crossOriginIsolated);
    return { version, gcExposed, isolated, load: loaded, live: await page.evaluate((config) => window.runLive(config), { quick, tanstack: process.env.BENCH_TANSTACK !== '0' }) };
  } catch (error) {
    return { skipped: `skipped: the browser run failed: ${error.message.split('\n')[0]}` };
  } finally {
    await browser?.close();
  }
}

// ---- targets -------------------------------------------------------------------------------

const targets = results.targets;
function target(name, value, limit, unit, detail, cpuValue) {
  const met = value <= limit;
  targets.push({ name, value, limit, unit, met, detail, cpuValue });
}
for (const env of ['node', 'browser']) {
  const load = results.load[env];
  if (!load || load.skipped) continue;
  const at100k = load[100000];
  const lib = at100k.untyped['rest-proxy'];
  const typed = at100k.typed['rest-proxy'];
  target(`load 100k untyped (${env})`, lib.load.ratio, 1.3, 'x floor', 'load', lib.cpuLoad?.ratio);
  target(`load 100k typed, load + read all (${env})`, typed.loadRead.ratio, 1.6, 'x floor', 'load + read every field', typed.cpuLoadRead?.ratio);
  target(`load 100k typed, load only (${env})`, typed.load.ratio, 1.6, 'x floor', 'load (lazy conversion not yet paid)', typed.cpuLoad?.ratio);
}
const plainHeap = results.heap.plain?.bytesPerRecord;
if (plainHeap !== undefined) {
  target('heap/record untyped', results.heap['rest-proxy untyped'].bytesPerRecord / plainHeap, 1.5, 'x plain array');
  target('heap/record typed, as loaded', results.heap['rest-proxy typed'].bytesPerRecord / plainHeap, 1.5, 'x plain array');
  target('heap/record typed, all read', results.heap['rest-proxy typed, all read'].bytesPerRecord / plainHeap, 1.5, 'x plain array');
}
if (results.sync) {
  const batched = results.sync.batched['rest-proxy batched'];
  const unbatched = results.sync.unbatched['rest-proxy unbatched'];
  const batchedCold = results.sync.batched['rest-proxy batched, collected before each run'];
  const unbatchedCold = results.sync.unbatched['rest-proxy unbatched, collected before each run'];
  target('sync batched (1 request)', batched.sync.ratio, 2, 'x raw bulk POST', 'wall time', batched.cpu.ratio);
  target('sync batched, records collected', batchedCold.sync.ratio, 2, 'x raw bulk POST', 'wall time', batchedCold.cpu.ratio);
  target('sync unbatched (4 in flight)', unbatched.sync.ratio, 1.15, 'x raw POSTs', 'wall time', unbatched.cpu.ratio);
  target('sync unbatched, records collected', unbatchedCold.sync.ratio, 1.15, 'x raw POSTs', 'wall time', unbatchedCold.cpu.ratio);
}
for (const [live, env] of [[results.live, ''], [results.liveBrowser, ' (browser)']]) {
  if (!live) continue;
  for (const [variant, summary] of Object.entries(live.edit[100000] ?? {})) {
    if (variant.startsWith('floor') || variant.startsWith(TANSTACK)) continue;
    target(`live edit 100k, ${variant}${env}`, summary.edit.ratio, 1.5, 'x one copy of the array', 'until a subscriber is told');
  }
  const query = live.query;
  target(`local sort of 100k${env}`, query.sort['rest-proxy'].ms.ratio, 2, 'x Array sort, key comparator');
  target(`local group of 100k${env}`, query.group['rest-proxy'].ms.ratio, 2, 'x Array sort + one pass');
  target(`local filter of 100k${env}`, query.filter['rest-proxy'].ms.ratio, 3, 'x Array filter, raw field');
}
const finders = results.finders;
if (finders) {
  target('100k: one edit, with a summary (sum, average, min, max, count) and a ChainedStore', finders.edit.ratio, 1.5, 'x one copy of the array', 'snapshots of store, chained store, summary');
  target('100k sorted: filter() and clearFilter() (each)', finders.filter.ratio, 3, 'x Array filter');
  target('100k: sum()', finders.sum.ratio, 2, 'x a plain loop');
  target('100k: ChainedStore construction, sorted and filtered', finders.chained.ratio, 2, 'x a sort of its records');
}
const assoc = results.associations?.associated;
if (assoc) target('load 100k, associated model (a Session)', assoc.load.ratio, 1.1, 'x unassociated', 'load', assoc.cpuLoad.ratio);
if (results.buffered) {
  const b = results.buffered;
  target('buffered: pages read while scrolling 1M rows', b.readsRatio, 1.05, 'x visible + zone pages not cached', `${b.reads} reads, ${b.toRead} pages visible or in a zone and not cached at their step, ${b.needed} distinct`);
  target('buffered: pages read again while cached', b.cachedReads, 0, 'reads');
  target('buffered: most pages held', b.mostHeld / b.bound, 1, 'x cacheSize', `${b.mostHeld} of ${b.bound} pages (${b.overBound} steps over)`);
  target('buffered: heap after the scroll', b.heapFullRatio, 1.2, 'x heap once the cache is full', `${b.heapRatio.toFixed(2)}x the heap at the first screen (3 pages held there, 20 after)`);
  target('buffered: getRange of a cached 50-row screen', b.getRangeRatio, 2, 'x array slice');
  target('buffered: edit of a visible record until told', b.editRatio, 1.5, 'x the same edit in a plain Store', `${b.perEditMs.toFixed(3)} / ${b.perPlainEditMs.toFixed(3)} ms per edit`);
}
if (results.outbox) {
  const replay = results.outbox['outbox replay of queued creates'];
  target('outbox: replay of 1,000 queued creates', replay.sync.ratio, 1.3, 'x unbatched sync', 'wall time, open() to flush()', replay.cpu.ratio);
}
if (results.fresh) {
  target('revalidation of an unchanged 100-row page answered 304 (records and snapshots kept)', results.fresh.revalidation['store.load() answered 304'].cpu.ratio, 1.2, 'x bare fetch answered 304', 'client CPU');
  target('a 1,000-row page restored from a ReadCache on MemoryStorage', results.fresh.restore['ReadCache restore (MemoryStorage)'].ms.ratio, 1.5, 'x MemoryProxy load');
}
if (results.sizes) {
  target('bundle: typical app, production build', results.sizes.typicalApp.gzip / 1024, TARGETS.typicalApp / 1024, 'KiB min+gzip');
  target('bundle: RestProxy alone, production build', results.sizes.restProxyOnly.gzip / 1024, TARGETS.restProxyOnly / 1024, 'KiB min+gzip');
}

/** Which code was measured: the commit, and a hash of src/ as it was (it may differ from the commit). */
function sourceVersion() {
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) hash.update(path.slice(root.length)).update(readFileSync(path));
    }
  };
  walk(join(root, 'src'));
  let commit = null;
  let dirty = null;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: root, encoding: 'utf8' }).trim() !== '';
  } catch {
    // not a git checkout
  }
  return { commit, srcModified: dirty, srcSha256: hash.digest('hex').slice(0, 16) };
}

results.meta = {
  date: new Date().toISOString(),
  source: sourceVersion(),
  node: process.version,
  chromium: chromiumVersion ?? null,
  cpus: cpus().length,
  loadAverage: { start: loadAtStart, end: loadavg()[0] },
  quick,
  seconds: Math.round((Date.now() - started) / 1000),
  method: 'medians of alternated runs (A B C, C B A, ...) after warm-up, gc before each run, each run holding what it made until its next run; ratio = median of per-round ratios to the baseline',
};
if (only === undefined) writeFileSync(join(benchDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);

// ---- the table -----------------------------------------------------------------------------

function table(headers, rows, align = []) {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => String(row[i]).length)));
  const cell = (value, i) => (align[i] === 'r' ? String(value).padStart(widths[i]) : String(value).padEnd(widths[i]));
  const line = (row) => `| ${row.map(cell).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (align[i] === 'r' ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}
const ms = (value) => (value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0));
const x = (value) => (value === undefined ? '' : `${value.toFixed(2)}x`);
const kib = (bytes) => `${(bytes / 1024).toFixed(2)} KiB`;
const out = [];
const runsOf = (summary) => summary.load?.runs?.length ?? summary.sync?.runs?.length;

const { source } = results.meta;
out.push(`rest-proxy bench: Node ${process.version}, ${chromiumVersion ? `Chromium ${chromiumVersion}` : 'no browser'}, ${cpus().length} cores (load average ${results.meta.loadAverage.start.toFixed(1)} at start, ${results.meta.loadAverage.end.toFixed(1)} at end), ${results.meta.date}${quick ? ' [QUICK: too few runs to trust]' : ''}`);
out.push(`src: ${source.commit ? `${source.commit.slice(0, 10)}${source.srcModified ? ' + uncommitted changes' : ''}` : 'no git'}, sha256 ${source.srcSha256}`);
out.push('Times are medians (ms) of alternated runs after warm-up, gc before each, each run holding what it made until its next run (as an app holds its data); "x" = median of the per-round ratios to the floor.');
for (const env of ['node', 'browser'].filter((name) => wanted(name === 'node' ? 'load' : 'browser'))) {
  const load = results.load[env];
  out.push('', `## 1. Load through a Store on a RestProxy (pageSize 0), ${env === 'node' ? 'Node' : 'headless Chromium'}`);
  if (!load || load.skipped) {
    out.push(`Browser rows ${load?.skipped ?? 'skipped'}`);
    continue;
  }
  const rows = [];
  for (const n of Object.keys(load).filter((key) => /^\d+$/.test(key))) {
    for (const mode of ['untyped', 'typed']) {
      for (const [variant, summary] of Object.entries(load[n][mode])) {
        const label = variant === 'floor' ? 'floor: fetch + res.json()' : variant === 'backbone' ? 'Backbone 1.6 Collection.fetch' : variant === 'rest-proxy' ? 'rest-proxy Store.load' : variant;
        const cpuX = (key) => (summary[key] === undefined ? '-' : variant === 'floor' ? '1.00x' : x(summary[key].ratio));
        rows.push([
          Number(n).toLocaleString('en-US'), mode, label, runsOf(summary),
          ms(summary.load.median), variant === 'floor' ? '1.00x' : x(summary.load.ratio),
          ms(summary.loadRead.median), variant === 'floor' ? '1.00x' : x(summary.loadRead.ratio),
          cpuX('cpuLoad'), cpuX('cpuLoadRead'),
        ]);
      }
    }
  }
  out.push(table(
    ['N', 'fields', 'variant', 'runs', 'load ms', 'load x', 'load + read all ms', 'load + read all x', 'CPU x load', 'CPU x load + read'],
    rows,
    ['r', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  ));
  if (env === 'node') out.push('CPU x: the same ratios on the CPU time of the bench process (process.cpuUsage), which other processes on the machine disturb less than the wall time.');
  out.push('read all: every field of every record read once (record.get / model.get / item[name]). Backbone: fetch({ reset: true }); typed = a parse() that converts the values.');
  const typed100k = load[100000]?.typed;
  const withDates = typed100k?.['floor, dates converted on read'];
  if (withDates && typed100k['rest-proxy']) {
    // Paired by round, as the other ratios are.
    const paired = medianOf(typed100k['rest-proxy'].loadRead.runs.map((value, i) => value / withDates.loadRead.runs[i]));
    out.push(`Typed, 100,000: rest-proxy load + read all is ${x(paired)} the floor that turns its dates into Dates as it reads them (a typed field's Dates are part of what is read).`);
  }
}

if (plainHeap !== undefined) {
out.push('', '## 2. Heap per loaded record, N = 100,000 (node --expose-gc, heapUsed after gc, holding the result)');
out.push(table(
  ['held', 'bytes/record', 'x plain array', 'x plain array with Dates'],
  Object.entries(results.heap).map(([variant, { bytesPerRecord }]) => [
    variant === 'plain' ? 'plain parsed array' : variant === 'plain, dates converted' ? 'plain parsed array, created -> Date' : variant,
    bytesPerRecord.toFixed(1),
    x(bytesPerRecord / plainHeap),
    x(bytesPerRecord / results.heap['plain, dates converted'].bytesPerRecord),
  ]),
  ['l', 'r', 'r', 'r'],
));

}
if (results.sync) {
out.push('', `## 3. Sync of ${results.sync.count.toLocaleString('en-US')} new records (unbatched: ${results.sync.concurrency} in flight)`);
const syncRows = [];
for (const [group, baseline] of [['batched', 'raw bulk POST'], ['unbatched', 'raw POSTs']]) {
  for (const [variant, summary] of Object.entries(results.sync[group])) {
    syncRows.push([
      group, variant, summary.sync.runs.length, ms(summary.sync.median), variant === baseline ? '1.00x' : x(summary.sync.ratio),
      ms(summary.cpu.median), variant === baseline ? '1.00x' : x(summary.cpu.ratio),
    ]);
  }
}
out.push(table(['kind', 'variant', 'runs', 'ms', 'x raw', 'client CPU ms', 'CPU x raw'], syncRows, ['l', 'l', 'r', 'r', 'r', 'r', 'r']));
out.push('client CPU: process.cpuUsage() of the bench process over the same span (the server is another process); the targets use the wall time of the typed model (its dates are written as ISO strings and read back from the answer); the untyped rows are for comparison.');
const withTimeout = results.sync.unbatched['raw POSTs with a timeout'];
const unbatchedLib = results.sync.unbatched['rest-proxy unbatched'];
if (withTimeout && unbatchedLib) {
  // Paired by round, as the other ratios are.
  const paired = (key) => medianOf(unbatchedLib[key].runs.map((value, i) => value / withTimeout[key].runs[i]));
  out.push(`Against raw POSTs that can time out (an AbortController and a timer per request, as every rest-proxy request has): rest-proxy unbatched ${x(paired('sync'))} wall, ${x(paired('cpu'))} CPU.`);
}

}
if (results.url) {
out.push('', '## 4. Url building (RestProxy with format, paging, 2 sorters, 2 filters), ops/s');
const urlRows = Object.entries(results.url)
  .filter(([name]) => name !== 'example')
  .map(([name, r]) => [name, Math.round(r.libOpsPerSecond).toLocaleString('en-US'), Math.round(r.handOpsPerSecond).toLocaleString('en-US'), x(r.slowdown)]);
out.push(table(['operation', 'rest-proxy ops/s', 'by hand ops/s', 'slower than by hand'], urlRows, ['l', 'r', 'r', 'r']));
out.push(`url: ${results.url.example}`);

}
for (const [live, env] of [[results.live, 'Node'], [results.liveBrowser, 'headless Chromium']]) {
if (!live) continue;
out.push('', `## 6. A live UI, ${env}: one edit until a subscriber has the new snapshot (µs per edit; one subscriber, as useStore has)`);
const liveRows = [];
for (const [n, variants] of Object.entries(live.edit)) {
  const floor = Object.entries(variants).find(([variant]) => variant.startsWith('floor'))[1];
  for (const [variant, summary] of Object.entries(variants)) {
    if (variant.startsWith('floor') || variant.startsWith(TANSTACK)) continue;
    const tanstack = variants[`${TANSTACK}${variant}`];
    liveRows.push([
      Number(n).toLocaleString('en-US'), variant, summary.edit.runs.length, floor.edit.median.toFixed(0), summary.edit.median.toFixed(0), x(summary.edit.ratio),
      tanstack ? tanstack.edit.runs.length : '-', tanstack ? Math.round(tanstack.edit.median).toLocaleString('en-US') : '-', tanstack ? x(tanstack.edit.ratio) : '-',
    ]);
  }
}
out.push(table(['N', 'store, edit', 'runs', 'floor µs', 'rest-proxy µs', 'x floor', 'TanStack DB runs', 'TanStack DB µs', 'x floor'], liveRows, ['r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r']));
out.push('Floor: one copy of the records array (section 8 wants a new `records` array for a visible change), handed over in a microtask. Sorted: `store.sort(\'name\')`; an edit of name moves the record.');
out.push('TanStack DB 0.15 (no target): a local-only collection of the same rows, a live query (sorted: `orderBy` name) and the observer `useLiveQuery` subscribes to, its snapshot read in the listener; `collection.update(key, draft => ...)` until then; one collection, each live query alone on it, in rounds of its own with the floor (x floor: against the floor of those rounds). At 100,000: one edit per run, 4 runs; at 1,000 a quarter as many edits per run as rest-proxy\'s, each timed alone.');
out.push('', `### Local sort, filter and group of 100,000 (ms), ${env}`);
out.push(table(
  ['operation', 'floor', 'rest-proxy', 'x floor'],
  Object.entries(live.query).map(([operation, summary]) => [operation, ms(summary.floor.ms.median), ms(summary['rest-proxy'].ms.median), x(summary['rest-proxy'].ms.ratio)]),
  ['l', 'r', 'r', 'r'],
));
out.push('Floors on the same rows as plain objects: sort = Array.prototype.sort with a key comparator on name; filter = Array.prototype.filter reading item.name; group = that sort and one pass cutting it into groups.');

}
if (results.sizes) {
out.push('', '## 5. Bundle size (esbuild --bundle --minify --format=esm, gzip -9; production: the `production` export condition)');
const dev = results.sizes.development ?? {};
const sizeRow = (label, name) => [label, kib(results.sizes[name].min), kib(results.sizes[name].gzip), dev[name] ? kib(dev[name].gzip) : ''];
out.push(table(
  ['bundle', 'min', 'min+gzip', 'development build, min+gzip'],
  [
    sizeRow('rest-proxy, whole library (src/index.ts)', 'library'),
    sizeRow('app importing only RestProxy (tree-shaken)', 'restProxyOnly'),
    sizeRow('typical app: Model, Store, RestProxy', 'typicalApp'),
    sizeRow('typical app with Model.define and two validators (presence, email)', 'typicalAppWithValidators'),
    sizeRow('typical app + the built-in presets (rest-proxy/presets)', 'typicalAppWithPresets'),
    sizeRow('typical app + rest-proxy/react (React itself not counted)', 'typicalAppWithReact'),
    sizeRow('typical app + rest-proxy/offline (Outbox, IndexedDBStorage)', 'typicalAppWithOffline'),
    sizeRow('typical app + rest-proxy/associations (hasMany, Session)', 'typicalAppWithAssociations'),
    sizeRow('app importing Model and MemoryProxy', 'modelMemory'),
    sizeRow('Backbone 1.6 + underscore', 'backbone'),
  ],
  ['l', 'r', 'r', 'r'],
));

}
if (results.sizes?.typicalAppWithOffline) {
  const over = (name) => kib(results.sizes[name].gzip - results.sizes.typicalApp.gzip);
  out.push(`Each subpath costs only when imported: rest-proxy/offline adds ${over('typicalAppWithOffline')}, rest-proxy/associations ${over('typicalAppWithAssociations')} (min+gzip, production) to the typical app, which is the same bundle without them.`);
}
if (results.outbox) {
  out.push('', '## 7. The outbox: 1,000 queued creates replayed (a new Outbox over the stored entries: open() to flush()) vs store.sync() of the same records, unbatched, 4 in flight');
  out.push(table(
    ['variant', 'runs', 'ms', 'x sync', 'client CPU ms', 'CPU x sync'],
    Object.entries(results.outbox).map(([variant, summary]) => [variant, summary.sync.runs.length, ms(summary.sync.median), x(summary.sync.ratio), ms(summary.cpu.median), x(summary.cpu.ratio)]),
    ['l', 'r', 'r', 'r', 'r', 'r'],
  ));
}
out.push('', '## Targets');
out.push(table(
  ['target', 'measured', 'limit', '', 'result', 'same on CPU time'],
  targets.map((t) => [t.name, t.value.toFixed(t.unit.startsWith('KiB') ? 2 : 3), `<= ${t.limit}`, t.unit, t.met ? 'met' : 'MISSED', t.cpuValue === undefined ? '' : `${t.cpuValue.toFixed(2)} (${t.cpuValue <= t.limit ? 'met' : 'missed'})`]),
  ['l', 'r', 'r', 'l', 'l', 'r'],
));
out.push('', `${targets.filter((t) => t.met).length} of ${targets.length} targets met; bench took ${results.meta.seconds} s; ${only ? 'partial run (--only): no results.json written' : 'results in bench/results.json'}${targets.some((t) => !t.met) ? '; see bench/FINDINGS.md for the misses' : ''}.`);
console.log(out.join('\n'));
process.exit(0);
