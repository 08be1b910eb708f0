/**
 * The bench cases, shared by Node (bench/node-bench.mjs) and the browser page
 * (bench/browser-entry.mjs, bundled by esbuild). No Node or DOM specifics here: the caller
 * passes the library, Backbone, the base url, gc (when exposed) and a CPU clock in ms (Node).
 */
import { FIELD_NAMES } from './data.mjs';

// ---- statistics -----------------------------------------------------------------------------

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Run the variants after `warmup` rounds, `runs` rounds each, alternating the order from round
 * to round (A B C, C B A, ...), with a gc before each run when gc is exposed. Each run returns
 * an object of named timings (ms). Returns, per variant, the list of each timing.
 *
 * A run may also return `keep`: what it made (its store, its list), held until the variant's
 * next run, as an app holds its data. Without it, the forced gc before every run collects every
 * object of the shapes the run made, V8 then drops the optimized code that depends on those
 * shapes ("weak objects" in --trace-deopt), and each run pays for compiling it again; an app
 * whose records stay alive does not.
 */
export async function alternate(variants, { warmup, runs, gc }) {
  const kept = new Map();
  const run = async (variant) => {
    const { keep, ...timings } = await variant.run();
    kept.set(variant.name, keep);
    return timings;
  };
  for (let i = 0; i < warmup; i++) for (const variant of variants) await run(variant);
  const samples = Object.fromEntries(variants.map((variant) => [variant.name, []]));
  for (let round = 0; round < runs; round++) {
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    for (const variant of order) {
      gc?.();
      samples[variant.name].push(await run(variant));
    }
  }
  return samples;
}

/** Per timing of a variant: the median, and the median of the per-round ratios to a baseline. */
export function summarize(samples, baselineName) {
  const out = {};
  const base = samples[baselineName];
  for (const [name, runs] of Object.entries(samples)) {
    const keys = Object.keys(runs[0]).filter((key) => typeof runs[0][key] === 'number');
    out[name] = {};
    for (const key of keys) {
      const values = runs.map((run) => run[key]);
      const entry = { median: median(values), runs: values };
      if (base && base[0] && typeof base[0][key] === 'number') {
        entry.ratio = median(runs.map((run, i) => run[key] / base[i][key]));
      }
      out[name][key] = entry;
    }
  }
  return out;
}

// ---- models ---------------------------------------------------------------------------------

export const TYPED_FIELDS = [
  { name: 'id', type: 'int' },
  { name: 'name', type: 'string' },
  { name: 'email', type: 'string' },
  { name: 'age', type: 'int' },
  { name: 'active', type: 'boolean' },
  { name: 'created', type: 'date' },
];

export function libModels(lib) {
  class UntypedUser extends lib.Model {
    static fields = FIELD_NAMES;
  }
  class TypedUser extends lib.Model {
    static fields = TYPED_FIELDS;
  }
  return { untyped: UntypedUser, typed: TypedUser };
}

/** Backbone.ajax on fetch: what a Backbone app without jQuery would write. */
export function installBackboneAjax(Backbone) {
  Backbone.ajax = (params) => {
    const headers = { Accept: 'application/json' };
    if (params.contentType) headers['Content-Type'] = params.contentType;
    const init = { method: params.type ?? 'GET', headers };
    if (params.data !== undefined && params.type !== 'GET') init.body = params.data;
    const promise = fetch(params.url, init).then(async (response) => {
      if (!response.ok) throw new Error(`${params.type} ${params.url}: ${response.status}`);
      return response.status === 204 ? undefined : response.json();
    });
    promise.then(
      (data) => params.success?.(data),
      (error) => params.error?.(error),
    );
    return promise;
  };
}

export function backboneModels(Backbone) {
  const UntypedUser = Backbone.Model.extend({});
  // Backbone has no field types: the usual way is a parse that converts the values.
  const TypedUser = Backbone.Model.extend({
    parse(raw) {
      return {
        id: Math.trunc(Number(raw.id)),
        name: String(raw.name),
        email: String(raw.email),
        age: Math.trunc(Number(raw.age)),
        active: raw.active === true || raw.active === 'true',
        created: new Date(raw.created),
      };
    },
  });
  return { untyped: UntypedUser, typed: TypedUser };
}

/** A Backbone fetch as a promise (reset: true, the fast path for a full load). */
export function backboneFetch(collection) {
  return new Promise((resolve, reject) => {
    collection.fetch({ reset: true, success: resolve, error: (_c, error) => reject(error) });
  });
}

// ---- the load cases ------------------------------------------------------------------------

function readAllPlain(items) {
  let sink = 0;
  for (const item of items) for (const name of FIELD_NAMES) if (item[name] != null) sink++;
  return sink;
}

/** Read every field, turning the ISO date into a Date as a typed field does: the floor of a typed read. */
function readAllPlainDates(items) {
  let sink = 0;
  for (const item of items) {
    for (const name of FIELD_NAMES) {
      const value = name === 'created' ? (item.created = new Date(item.created)) : item[name];
      if (value != null) sink++;
    }
  }
  return sink;
}

function readAllRecords(records) {
  let sink = 0;
  for (const record of records) for (const name of FIELD_NAMES) if (record.get(name) != null) sink++;
  return sink;
}

function check(count, n, sink) {
  if (count !== n || sink !== n * FIELD_NAMES.length) throw new Error(`bench: loaded ${count} of ${n} records (read ${sink} values)`);
}

/** Wall times (ms) of load and load + read all, and the CPU times (ms) when `cpu` is given. */
function timings(t0, t1, t2, c0, c1, c2) {
  const out = { load: t1 - t0, loadRead: t2 - t0 };
  if (c0 !== undefined) {
    out.cpuLoad = c1 - c0;
    out.cpuLoadRead = c2 - c0;
  }
  return out;
}

/** The load variants of one size and mode: floor, library, Backbone. `url(n)` gives the data url. */
export function loadVariants({ lib, Backbone, url, n, mode, now, cpu }) {
  const models = libModels(lib);
  const bbModels = backboneModels(Backbone);
  const LibModel = models[mode];
  const BbModel = bbModels[mode];
  const proxy = new lib.RestProxy({ url: url(n) });
  const BbCollection = Backbone.Collection.extend({ model: BbModel, url: url(n) });
  /** The floor: fetch + res.json(), then every field read with `readAll`. */
  const floor = (name, readAll) => ({
    name,
    async run() {
      const c0 = cpu?.();
      const t0 = now();
      const response = await fetch(url(n));
      const data = await response.json();
      const t1 = now();
      const c1 = cpu?.();
      const sink = readAll(data);
      const t2 = now();
      check(data.length, n, sink);
      return { ...timings(t0, t1, t2, c0, c1, cpu?.()), keep: data };
    },
  });
  return [
    // Typed only, for reference: the floor that also turns its dates into Dates as it reads them.
    ...(mode === 'typed' ? [floor('floor, dates converted on read', readAllPlainDates)] : []),
    floor('floor', readAllPlain),
    {
      name: 'rest-proxy',
      async run() {
        const c0 = cpu?.();
        const t0 = now();
        const store = new lib.Store({ model: LibModel, proxy, pageSize: 0 });
        await store.load();
        const t1 = now();
        const c1 = cpu?.();
        const sink = readAllRecords(store);
        const t2 = now();
        check(store.getCount(), n, sink);
        return { ...timings(t0, t1, t2, c0, c1, cpu?.()), keep: store };
      },
    },
    {
      name: 'backbone',
      async run() {
        const c0 = cpu?.();
        const t0 = now();
        const collection = new BbCollection();
        await backboneFetch(collection);
        const t1 = now();
        const c1 = cpu?.();
        const sink = readAllRecords(collection.models);
        const t2 = now();
        check(collection.length, n, sink);
        return { ...timings(t0, t1, t2, c0, c1, cpu?.()), keep: collection };
      },
    },
  ];
}

/**
 * The whole load section: for each size, each mode (untyped, typed), the three variants
 * alternated. Returns { [n]: { [mode]: summary } } with ratios to the floor.
 */
export async function runLoad({ lib, Backbone, url, sizes, runsFor, warmup = 2, gc, now, cpu, log = () => {} }) {
  installBackboneAjax(Backbone);
  const out = {};
  for (const n of sizes) {
    out[n] = {};
    for (const mode of ['untyped', 'typed']) {
      const variants = loadVariants({ lib, Backbone, url, n, mode, now, cpu });
      const samples = await alternate(variants, { warmup, runs: runsFor(n), gc });
      out[n][mode] = summarize(samples, 'floor');
      log(`load n=${n} ${mode}: ${Object.entries(out[n][mode]).map(([name, s]) => `${name} ${s.load.median.toFixed(1)}/${s.loadRead.median.toFixed(1)} ms`).join(', ')}`);
    }
  }
  return out;
}
