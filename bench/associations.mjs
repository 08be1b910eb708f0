/**
 * Section 7 of npm run bench (issue 22): a 100k load of an associated model against the same
 * model without associations, both through a Store on a RestProxy from the bench server, in one
 * process with rest-proxy/associations imported (so the only difference is the model's
 * declarations: its store uses a Session, the other per-store identity). Alternated rounds,
 * medians, ratio = median of the per-round ratios (cases.mjs).
 *
 * The same pair through a MemoryProxy (no HTTP, no JSON: the session's share weighs more) is
 * measured after it and reported beside it (`memory`), not as a target.
 *
 * The associated store is given a new Session per run: the default session is one (as
 * `Session.default` is made), but the previous run's records, kept alive as an app keeps its
 * data (see alternate), would turn every run after the first into a reload of records it holds.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { alternate, summarize, TYPED_FIELDS } from './cases.mjs';
import { FIELD_NAMES, makeUsers } from './data.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The library with rest-proxy/associations, bundled once next to the core bundle (`libPath`). */
async function bundle(libPath) {
  const outfile = join(dirname(libPath), 'lib-associations.mjs');
  await build({
    stdin: { contents: `export * from ${JSON.stringify(join(root, 'src/index.ts'))}; export * from ${JSON.stringify(join(root, 'src/associations.ts'))};`, resolveDir: root, loader: 'ts' },
    bundle: true, format: 'esm', platform: 'node', target: 'node20', outfile, logLevel: 'error',
  });
  return import(pathToFileURL(outfile).href);
}

export async function associationsSection({ libPath, url, n = 100_000, quick, gc, now, cpu, log }) {
  const lib = await bundle(libPath);
  class Plain extends lib.Model {
    static fields = TYPED_FIELDS;
  }
  class Post extends lib.Model {
    static fields = ['id', 'userId', 'title'];
    static associations = { user: lib.belongsTo(() => User, { foreignKey: 'userId', inverse: 'posts' }) };
  }
  class User extends lib.Model {
    static fields = TYPED_FIELDS;
    static associations = { posts: lib.hasMany(() => Post, { foreignKey: 'userId', inverse: 'user' }) };
  }
  if (new lib.Store({ model: User }).session !== lib.Session.default) throw new Error('bench: the associated store does not use Session.default');
  const variant = (name, model, session, proxy) => ({
    name,
    async run() {
      const c0 = cpu();
      const t0 = now();
      const store = new lib.Store({ model, proxy, pageSize: 0, ...(session ? { session: new lib.Session() } : {}) });
      await store.load();
      const t1 = now();
      const c1 = cpu();
      let sink = 0;
      for (const record of store) for (const field of FIELD_NAMES) if (record.get(field) != null) sink++;
      const t2 = now();
      if (store.getCount() !== n || sink !== n * FIELD_NAMES.length) throw new Error(`bench: loaded ${store.getCount()} of ${n}`);
      if (session && store.getAt(0)?.session === undefined) throw new Error('bench: the associated records have no session');
      return { load: t1 - t0, loadRead: t2 - t0, cpuLoad: c1 - c0, cpuLoadRead: cpu() - c0, keep: store };
    },
  });
  // A proxy per variant: a proxy reads records of the model it was first used with (proxy.model),
  // so a shared one would make the associated store copy every row into a record of its own model.
  const pair = async (proxy, suffix) => {
    const variants = [variant(`unassociated${suffix}`, Plain, false, proxy()), variant(`associated${suffix}`, User, true, proxy())];
    return summarize(await alternate(variants, { warmup: quick ? 1 : 2, runs: quick ? 3 : 13, gc }), `unassociated${suffix}`);
  };
  const summary = await pair(() => new lib.RestProxy({ url: url(n) }), '');
  const rows = makeUsers(n);
  const memory = await pair(() => new lib.MemoryProxy({ data: rows }), ' (memory)');
  const line = (s) => `${Object.entries(s).map(([name, t]) => `${name} ${t.load.median.toFixed(1)} ms`).join(', ')}; ratio ${Object.values(s)[1].load.ratio.toFixed(3)}`;
  log(`associations n=${n}: ${line(summary)}; MemoryProxy: ${line(memory)}`);
  return { n, ...summary, memory };
}
