/**
 * A bench child process (run with --expose-gc by bench/run.mjs):
 *
 *   node --expose-gc bench/node-bench.mjs <section> <base url> <library bundle>
 *
 * section: load | sync | url | live | heap:<variant>. The result goes to the parent over IPC (or to
 * stdout as JSON when run by hand).
 */
import { pathToFileURL } from 'node:url';
import Backbone from 'backbone';
import { associationsSection } from './associations.mjs';
import { bufferedSection } from './buffered.mjs';
import { alternate, backboneFetch, backboneModels, installBackboneAjax, libModels, median, runLoad, summarize } from './cases.mjs';
import { FIELD_NAMES, makeUsers } from './data.mjs';
import { findersSection } from './finders.mjs';
import { liveSection } from './live.mjs';

const [section = 'load', base = 'http://127.0.0.1:3000', libPath] = process.argv.slice(2);
if (!libPath) throw new Error('usage: node --expose-gc bench/node-bench.mjs <section> <base url> <library bundle>');
// The parent went away (killed, Ctrl-C): stop too.
process.on('disconnect', () => process.exit(1));
const lib = await import(pathToFileURL(libPath).href);
const gc = typeof globalThis.gc === 'function' ? () => globalThis.gc() : undefined;
const now = () => performance.now();
const url = (n) => `${base}/users/${n}`;
const quick = process.env.BENCH_QUICK === '1';
const log = (line) => process.stderr.write(`  ${line}\n`);

/** Milliseconds of CPU this process used since `start` (user + system). */
function cpuMs(start) {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

function done(result) {
  if (process.send) process.send(result, () => process.exit(0));
  else {
    console.log(JSON.stringify(result, null, 2));
    process.exit(0);
  }
}

// ---- 1. load ---------------------------------------------------------------------------------

async function loadSection() {
  const sizes = (process.env.BENCH_LOAD_SIZES ?? '10000,100000').split(',').map(Number);
  return runLoad({
    lib,
    Backbone,
    url,
    sizes,
    runsFor: (n) => (quick ? 3 : n >= 100_000 ? 13 : 15),
    warmup: quick ? 1 : 2,
    gc,
    now,
    cpu: () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    },
    log,
  });
}

// ---- 2. heap ---------------------------------------------------------------------------------

async function heapSection(variant) {
  const n = 100_000;
  installBackboneAjax(Backbone);
  const models = libModels(lib);
  const bbModels = backboneModels(Backbone);
  const readAll = (list, get) => {
    let sink = 0;
    for (const item of list) for (const name of FIELD_NAMES) if (get(item, name) != null) sink++;
    return sink;
  };
  const loaders = {
    plain: async () => (await fetch(url(n))).json(),
    'plain, dates converted': async () => {
      const items = await (await fetch(url(n))).json();
      for (const item of items) item.created = new Date(item.created);
      return items;
    },
    'rest-proxy untyped': async () => {
      const store = new lib.Store({ model: models.untyped, proxy: new lib.RestProxy({ url: url(n) }), pageSize: 0 });
      await store.load();
      return store;
    },
    'rest-proxy typed': async () => {
      const store = new lib.Store({ model: models.typed, proxy: new lib.RestProxy({ url: url(n) }), pageSize: 0 });
      await store.load();
      return store;
    },
    'rest-proxy typed, all read': async () => {
      const store = new lib.Store({ model: models.typed, proxy: new lib.RestProxy({ url: url(n) }), pageSize: 0 });
      await store.load();
      readAll(store, (record, name) => record.get(name));
      return store;
    },
    'backbone untyped': async () => {
      const collection = new (Backbone.Collection.extend({ model: bbModels.untyped, url: url(n) }))();
      await backboneFetch(collection);
      return collection;
    },
    'backbone typed': async () => {
      const collection = new (Backbone.Collection.extend({ model: bbModels.typed, url: url(n) }))();
      await backboneFetch(collection);
      return collection;
    },
  };
  const load = loaders[variant];
  if (!load) throw new Error(`unknown heap variant ${variant}`);
  if (!gc) throw new Error('the heap section needs --expose-gc');
  const settle = async () => {
    for (let i = 0; i < 4; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  await load(); // warm up: compile, open the connection, allocate what stays anyway
  const samples = [];
  for (let i = 0; i < 3; i++) {
    await settle();
    const before = process.memoryUsage().heapUsed;
    let held = await load();
    await settle();
    const after = process.memoryUsage().heapUsed;
    samples.push((after - before) / n);
    if (!held) throw new Error('nothing held');
    held = undefined;
  }
  return { variant, bytesPerRecord: median(samples), samples };
}

// ---- 3. sync ---------------------------------------------------------------------------------

async function syncSection() {
  installBackboneAjax(Backbone);
  const count = 1000;
  const concurrency = 4;
  const items = () => makeUsers(count).map(({ id: _id, ...rest }) => rest);
  const { typed: User, untyped: UntypedUser } = libModels(lib);
  const postUrl = `${base}/users`;
  const batchedProxy = new lib.RestProxy({ url: postUrl, batchActions: true });
  const singleProxy = new lib.RestProxy({ url: postUrl });
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const BbUser = Backbone.Model.extend({ urlRoot: postUrl });

  const pool = async (list, work) => {
    let next = 0;
    const worker = async () => {
      while (next < list.length) {
        const index = next++;
        await work(list[index], index);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };
  const storeWith = (proxy, model = User) => {
    const store = new lib.Store({ model, proxy, pageSize: 0 });
    store.add(items());
    return store;
  };
  const checkStore = (store) => {
    const bad = store.getRange().filter((record) => record.phantom || typeof record.getId() !== 'number').length;
    if (bad > 0 || store.getCount() !== count) throw new Error(`sync left ${bad} records unsaved`);
  };
  /**
   * A rest-proxy variant: a store of new records synced through `proxy`, timed. `cold`: the store
   * is not kept, so the gc before the next run collects its records and V8 drops the code
   * optimised for their shapes: each run meets cold code, as the first sync of an app session does.
   */
  const storeSyncCase = (name, proxy, model, options, cold = false) => ({
    name,
    async run() {
      const store = storeWith(proxy, model);
      const c0 = process.cpuUsage();
      const t0 = now();
      await store.sync(options);
      const t1 = now();
      checkStore(store);
      return { sync: t1 - t0, cpu: cpuMs(c0), keep: cold ? undefined : store };
    },
  });

  const batched = [
    {
      name: 'raw bulk POST',
      async run() {
        const list = items();
        const c0 = process.cpuUsage();
        const t0 = now();
        const response = await fetch(postUrl, { method: 'POST', headers, body: JSON.stringify(list) });
        const saved = await response.json();
        for (let i = 0; i < list.length; i++) list[i].id = saved[i].id;
        const t1 = now();
        if (saved.length !== count) throw new Error('raw bulk POST: wrong count');
        return { sync: t1 - t0, cpu: cpuMs(c0), keep: list };
      },
    },
    storeSyncCase('rest-proxy batched', batchedProxy),
    storeSyncCase('rest-proxy batched, collected before each run', batchedProxy, User, undefined, true),
    storeSyncCase('rest-proxy batched, untyped model', batchedProxy, UntypedUser),
  ];
  /** One raw POST per item, `concurrency` in flight; `post` sends one body and gives the saved item. */
  const rawPostsCase = (name, post) => ({
    name,
    async run() {
      const list = items();
      const c0 = process.cpuUsage();
      const t0 = now();
      await pool(list, async (item) => {
        const saved = await post(JSON.stringify(item));
        item.id = saved.id;
      });
      const t1 = now();
      if (list.some((item) => typeof item.id !== 'number')) throw new Error(`${name}: missing ids`);
      return { sync: t1 - t0, cpu: cpuMs(c0), keep: list };
    },
  });
  const unbatched = [
    rawPostsCase('raw POSTs', async (body) => {
      const response = await fetch(postUrl, { method: 'POST', headers, body });
      return response.json();
    }),
    // What a request costs once it can time out (as every rest-proxy request can: timeout
    // defaults to 30 s): an AbortController, its signal handed to fetch, and a timer.
    rawPostsCase('raw POSTs with a timeout', async (body) => {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 30_000);
      try {
        const response = await fetch(postUrl, { method: 'POST', headers, body, signal: controller.signal });
        return await response.json();
      } finally {
        clearTimeout(timer);
      }
    }),
    storeSyncCase('rest-proxy unbatched', singleProxy, User, { concurrency }),
    storeSyncCase('rest-proxy unbatched, collected before each run', singleProxy, User, { concurrency }, true),
    storeSyncCase('rest-proxy unbatched, untyped model', singleProxy, UntypedUser, { concurrency }),
    {
      name: 'backbone save all',
      async run() {
        const collection = new Backbone.Collection(items(), { model: BbUser });
        const c0 = process.cpuUsage();
        const t0 = now();
        await pool(collection.models, (model) => new Promise((resolve, reject) => {
          model.save(null, { success: resolve, error: (_m, error) => reject(error) });
        }));
        const t1 = now();
        if (collection.models.some((model) => model.isNew())) throw new Error('backbone: unsaved models');
        return { sync: t1 - t0, cpu: cpuMs(c0), keep: collection };
      },
    },
  ];
  const runs = quick ? 3 : 9;
  const batchedSamples = await alternate(batched, { warmup: 3, runs: quick ? 5 : 21, gc });
  const unbatchedSamples = await alternate(unbatched, { warmup: 1, runs, gc });
  return {
    count,
    concurrency,
    batched: summarize(batchedSamples, 'raw bulk POST'),
    unbatched: summarize(unbatchedSamples, 'raw POSTs'),
  };
}

// ---- 4. buildUrl and getParams -----------------------------------------------------------------

async function urlSection() {
  const proxy = new lib.RestProxy({ url: `${base}/users`, format: 'json' });
  const sorters = [{ property: 'name', direction: 'ASC' }, { property: 'age', direction: 'DESC' }];
  const filters = [{ property: 'active', value: true }, { property: 'age', operator: '>=', value: 18 }];
  const operation = () => new lib.Operation({ action: 'read', page: 3, start: 50, limit: 25, sorters, filters });
  const op = operation();
  // The query string is the transport's (private since the http layers); both sides encode it the same way.
  const encode = (params) =>
    Object.entries(params)
      .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
      .join('&');

  // By hand: the same params and the same string.
  const handParams = (o) => ({
    page: o.page,
    start: o.start,
    limit: o.limit,
    sort: JSON.stringify(o.sorters.map((s) => ({ property: s.property, direction: s.direction ?? 'ASC' }))),
    filter: JSON.stringify(o.filters.map((f) => (f.operator === undefined ? { property: f.property, value: f.value } : { property: f.property, value: f.value, operator: f.operator }))),
  });
  const handBuildUrl = () => `${base}/users.json?_dc=${Date.now()}`;
  const handFullUrl = (o) => `${handBuildUrl()}&${encode(handParams(o))}`;
  const libFullUrl = (o) => {
    const request = proxy.buildRequest(o);
    return `${request.url}&${encode(request.params)}`;
  };
  const libBuildUrl = (o) => proxy.buildUrl(new lib.Request({ operation: o, params: {} }));

  // The strings must be the same (but for the cache buster's time).
  const strip = (text) => text.replace(/_dc=\d+/, '_dc=T');
  if (strip(libFullUrl(operation())) !== strip(handFullUrl(op))) {
    throw new Error(`url bench: the hand-built url differs:\n  ${libFullUrl(operation())}\n  ${handFullUrl(op)}`);
  }
  if (JSON.stringify(proxy.getParams(op)) !== JSON.stringify(handParams(op))) throw new Error('url bench: the hand-built params differ');
  if (strip(libBuildUrl(op)) !== strip(handBuildUrl())) throw new Error(`url bench: buildUrl differs: ${libBuildUrl(op)}`);

  const opsPerSecond = (fn) => {
    let sink = 0;
    let iterations = 0;
    const t0 = now();
    let t1 = t0;
    while (t1 - t0 < 150) {
      for (let i = 0; i < 1000; i++) {
        const value = fn(op);
        sink += typeof value === 'string' ? value.length : Object.keys(value).length;
      }
      iterations += 1000;
      t1 = now();
    }
    if (sink === 0) throw new Error('nothing built');
    return { opsPerSecond: (iterations / (t1 - t0)) * 1000 };
  };
  const pairs = {
    getParams: [() => proxy.getParams(op), () => handParams(op)],
    buildUrl: [() => libBuildUrl(op), () => handBuildUrl()],
    'full url (buildRequest + query)': [() => libFullUrl(op), () => handFullUrl(op)],
  };
  const out = {};
  for (const [name, [libFn, handFn]] of Object.entries(pairs)) {
    const samples = await alternate(
      [
        { name: 'by hand', run: async () => opsPerSecond(handFn) },
        { name: 'rest-proxy', run: async () => opsPerSecond(libFn) },
      ],
      { warmup: 1, runs: quick ? 3 : 7, gc },
    );
    const summary = summarize(samples, 'by hand');
    out[name] = {
      libOpsPerSecond: summary['rest-proxy'].opsPerSecond.median,
      handOpsPerSecond: summary['by hand'].opsPerSecond.median,
      // How many times slower than by hand (hand ops/s over library ops/s, per round).
      slowdown: 1 / summary['rest-proxy'].opsPerSecond.ratio,
    };
  }
  out.example = libFullUrl(operation());
  return out;
}

// ---- main ------------------------------------------------------------------------------------

let result;
if (section === 'load') result = await loadSection();
else if (section === 'sync') result = await syncSection();
else if (section === 'url') result = await urlSection();
else if (section === 'buffered') result = await bufferedSection({ libPath, base, quick, gc, now, log });
else if (section === 'associations') result = await associationsSection({ libPath, url, quick, gc, now, cpu: () => cpuMs(), log });
else if (section === 'finders') result = findersSection({ lib, quick, gc, log });
else if (section === 'live') result = await liveSection({ lib, url, quick, gc, log, tanstack: process.env.BENCH_TANSTACK !== '0' });
else if (section.startsWith('heap:')) result = await heapSection(section.slice('heap:'.length));
else throw new Error(`unknown section ${section}`);
done(result);
