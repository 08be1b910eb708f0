/**
 * Bench section `buffered` (issue 31): a BufferedStore over the 1,000,000 rows bench/server.mjs
 * computes on request (GET /rows).
 *
 * - Scrolling top to bottom at a steady pace (50 rows on screen, 1,000 rows a step, each step's
 *   visible pages and prefetch awaited), then jumping back and forth: pages read against the
 *   pages each step needed (visible or in a prefetch zone) that were not cached at that step (a
 *   purged page needed again is read again); reads of a page while it was cached
 *   (must be 0); the most pages held against the bound; the heap after the scroll against the
 *   heap at the first screen, and against the heap once the cache first held `cacheSize` pages
 *   (all after gc: the second tells whether what is purged is collected).
 * - getRange of a cached 50-row screen against a slice of an array of the same 50 records.
 * - An edit of a visible record until a subscriber is told, against the same edit in a plain
 *   Store of the same records (section 8's measure).
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { alternate, median } from './cases.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The library with rest-proxy/buffered, bundled once next to the core bundle (one copy of Model for both). */
async function bundle(libPath) {
  const outfile = join(dirname(libPath), 'lib-buffered.mjs');
  await build({
    stdin: { contents: `export * from ${JSON.stringify(join(root, 'src/index.ts'))}; export * from ${JSON.stringify(join(root, 'src/buffered.ts'))};`, resolveDir: root, loader: 'ts' },
    bundle: true, format: 'esm', platform: 'node', target: 'node20', outfile, logLevel: 'error',
  });
  return import(pathToFileURL(outfile).href);
}

export async function bufferedSection({ libPath, base, quick, gc, now, log }) {
  const lib = await bundle(libPath);
  const { BufferedStore, Model, Store, MemoryProxy } = lib;
  class Row extends Model {
    static fields = ['id', 'title', 'amount'];
    static entityName = 'rows';
  }
  const pageSize = 100;
  const leading = 200;
  const trailing = 50;
  const cacheSize = 20;
  const screen = 50;
  const total = 1_000_000;
  let cachedReads = 0;
  let requests = 0;
  let reads = 0;
  let store;
  // Requests as sent (a retry of the transport counts again), and pages read as the store takes them in.
  const fetching = (input, init) => {
    const page = Number(new URL(String(input)).searchParams.get('page'));
    requests++;
    if (store?.getCachedPages().includes(page)) cachedReads++;
    return fetch(input, init);
  };
  store = new BufferedStore({
    model: Row, pageSize, leadingBufferZone: leading, trailingBufferZone: trailing, cacheSize,
    proxy: { url: `${base}/rows`, noCache: false, reader: { totalHeader: 'X-Total-Count' }, fetch: fetching },
  });
  store.on('pageload', () => reads++);
  const needed = new Set();
  let toRead = 0;
  const pagesOf = (from, to) => {
    const pages = [];
    for (let page = Math.floor(Math.max(0, from) / pageSize) + 1; page <= Math.floor(Math.min(total - 1, to) / pageSize) + 1; page++) pages.push(page);
    return pages;
  };
  let previous;
  let mostHeld = 0;
  let overBound = 0;
  /** One step of the grid: the range shown, its pages read, the prefetch let finish. */
  async function show(start) {
    const forward = previous === undefined || start >= previous;
    previous = start;
    const end = start + screen - 1;
    // What this step needs: the visible pages and the zones; those not cached now are to be read.
    const cached = new Set(store.getCachedPages());
    for (const page of new Set([...pagesOf(start, end), ...pagesOf(start - (forward ? trailing : leading), start - 1), ...pagesOf(end + 1, end + (forward ? leading : trailing))])) {
      needed.add(page);
      if (!cached.has(page)) toRead++;
    }
    store.setVisibleRange(start, end);
    await store.loadRange(start, end);
    // The prefetch of this step lands before the next (a steady pace): the zones' pages, awaited.
    const ahead = forward ? [end + 1, Math.min(total - 1, end + leading)] : [Math.max(0, start - leading), start - 1];
    const behind = forward ? [Math.max(0, start - trailing), start - 1] : [end + 1, Math.min(total - 1, end + trailing)];
    for (const [from, to] of [ahead, behind]) if (from <= to) await store.loadRange(from, to);
    const held = store.getCachedPages().length;
    mostHeld = Math.max(mostHeld, held);
    if (held > Math.max(cacheSize, Math.ceil(screen / pageSize) + 1)) overBound++;
  }
  const step = quick ? 5000 : 1000;
  await show(0);
  gc?.();
  const heapFirst = process.memoryUsage().heapUsed;
  const started = now();
  let heapFull;
  for (let start = step; start + screen <= total; start += step) {
    await show(start);
    if (heapFull === undefined && store.getCachedPages().length >= cacheSize) {
      // The cache at its bound: from here on, what is purged must be collected.
      gc?.();
      heapFull = process.memoryUsage().heapUsed;
    }
  }
  // Jumping back and forth between far rows (seeded), and back to where it was.
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let jump = 0; jump < (quick ? 20 : 200); jump++) {
    const at = Math.floor(random() * (total - screen));
    await show(at);
    await show(Math.max(0, at - 3 * pageSize));
  }
  const seconds = (now() - started) / 1000;
  gc?.();
  await new Promise((resolveTurn) => setTimeout(resolveTurn, 10));
  gc?.();
  const heapAfter = process.memoryUsage().heapUsed;
  log(`scroll: ${reads} pages read (${requests} requests), ${toRead} visible or in a zone and not cached at their step (${needed.size} distinct), ${cachedReads} read while cached, at most ${mostHeld} held, ${seconds.toFixed(1)} s`);

  // getRange of a cached screen against a slice of an array of the same records.
  store.setVisibleRange(0, screen - 1);
  await store.loadRange(0, screen - 1);
  const array = [...store.getRange(0, 999)];
  const iterations = 20_000;
  let sink = 0;
  const timed = (work) => async () => {
    const t = now();
    for (let i = 0; i < iterations; i++) sink += work().length;
    return { ms: now() - t };
  };
  const timings = await alternate([
    { name: 'slice', run: timed(() => array.slice(10, 10 + screen)) },
    { name: 'getRange', run: timed(() => store.getRange(10, 9 + screen)) },
  ], { warmup: 3, runs: quick ? 5 : 15, gc });
  const getRangeRatio = median(timings.getRange.map((value, round) => value.ms / timings.slice[round].ms));

  // One edit of a visible record until a subscriber is told, against a plain Store of the same rows.
  const plain = new Store({ model: Row, pageSize: 0, proxy: new MemoryProxy({ data: array.slice(0, screen).map((record) => record.getData()) }) });
  await plain.load();
  const told = (target) => {
    let wake;
    target.subscribe(() => wake?.());
    return () => new Promise((resolveTold) => {
      wake = resolveTold;
    });
  };
  const bufferedTold = told(store);
  const plainTold = told(plain);
  const edits = quick ? 200 : 2000;
  let value = 0;
  const editOf = (target, next) => async () => {
    const t = now();
    for (let i = 0; i < edits; i++) {
      const waiting = next();
      target.getAt(i % screen).set('title', `v${value++}`);
      await waiting;
    }
    return { ms: now() - t };
  };
  const editTimings = await alternate([
    { name: 'plain', run: editOf(plain, plainTold) },
    { name: 'buffered', run: editOf(store, bufferedTold) },
  ], { warmup: 2, runs: quick ? 5 : 11, gc });
  const editRatio = median(editTimings.buffered.map((value, round) => value.ms / editTimings.plain[round].ms));
  if (sink < 0) log('unreachable');
  store.destroy();
  return {
    reads, requests, needed: needed.size, toRead, readsRatio: reads / toRead, cachedReads, mostHeld, bound: cacheSize, overBound,
    heapFirst, heapFull, heapAfter, heapRatio: heapAfter / heapFirst, heapFullRatio: heapAfter / (heapFull ?? heapFirst), getRangeRatio, editRatio, seconds,
    perEditMs: median(editTimings.buffered.map((value) => value.ms)) / edits, perPlainEditMs: median(editTimings.plain.map((value) => value.ms)) / edits,
  };
}
