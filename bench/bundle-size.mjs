/**
 * Bundle sizes, min+gzip: esbuild --bundle --minify --format=esm, then zlib gzip level 9.
 * Used by bench/run.mjs and bench/size-budget.test.ts.
 *
 * Two builds of the package: 'production', what a bundler resolves for a production build (the
 * package's `production` export condition, dist/prod/: the sources through tools/production.mjs,
 * whose messages keep what happened and drop the long explanations), and 'development' (dist/, the
 * sources as they are: what Node, tests and dev servers load). Both are measured from src/, through
 * the same change as `npm run build` makes, so no build is needed; test/build/production.test.ts
 * checks that the built package resolves that way.
 */
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { toProduction } from '../tools/production.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const index = JSON.stringify(resolve(root, 'src/index.ts'));
const presets = JSON.stringify(resolve(root, 'src/presets.ts'));
const react = JSON.stringify(resolve(root, 'src/react.ts'));
const offline = JSON.stringify(resolve(root, 'src/offline.ts'));
const associations = JSON.stringify(resolve(root, 'src/associations.ts'));

/** An app made of these lines (TypeScript, bundled from the sources). */
function app(name, contents) {
  return { stdin: { contents, resolveDir: root, loader: 'ts', sourcefile: `${name}.ts` } };
}
const TYPICAL = `import { Model, Store, RestProxy } from ${index};
class User extends Model { static override fields = ['id', 'name']; static override proxy = new RestProxy({ url: '/api/users' }); }
export const users = new Store({ model: User });
`;

/**
 * The size targets of issue 20 ("Decisions"): what a user's production build contains, the typical
 * app at most 26 KiB and RestProxy alone at most 14 KiB. BUDGETS (production build) and
 * DEV_BUDGETS (development build) are a ratchet just above today's sizes, so that CI catches any
 * growth; bench/FINDINGS.md, "Bundle size", says where the bytes are.
 */
export const TARGETS = { typicalApp: 26 * 1024, restProxyOnly: 14 * 1024 };
export const BUDGETS = { library: 43.1 * 1024, typicalApp: 37.27 * 1024, restProxyOnly: 16.36 * 1024 };
export const DEV_BUDGETS = { library: 46.44 * 1024, typicalApp: 40.42 * 1024, restProxyOnly: 18.85 * 1024 };

/** What is measured: the whole library, typical apps, an app that imports only RestProxy, Backbone + underscore. */
export const ENTRIES = {
  library: { entryPoints: [resolve(root, 'src/index.ts')] },
  typicalApp: app('typical-app', TYPICAL),
  typicalAppWithSummary: app('typical-app-summary', `import { Model, Store, RestProxy, sum, count } from ${index};
class User extends Model { static override fields = ['id', 'name', 'age']; static override proxy = new RestProxy({ url: '/api/users' }); }
export const users = new Store({ model: User });
export const totals = users.summarize({ age: sum('age'), n: count() });
`),
  typicalAppWithChained: app('typical-app-chained', `import { Model, Store, RestProxy, ChainedStore } from ${index};
class User extends Model { static override fields = ['id', 'name', 'age']; static override proxy = new RestProxy({ url: '/api/users' }); }
export const users = new Store({ model: User });
export const adults = new ChainedStore({ source: users, filters: [{ property: 'age', operator: '>=', value: 18 }] });
`),
  typicalAppWithValidators: app('typical-app-validators', `import { Model, Store, presence, email } from ${index};
class User extends Model.define({ fields: { name: 'string', email: 'string' }, proxy: { type: 'rest', url: '/api/users' }, validators: { name: presence(), email: email() } }) {}
export const users = new Store({ model: User });
`),
  typicalAppWithPresets: app('typical-app-presets', `${TYPICAL}import ${presets};\n`),
  typicalAppWithReact: { ...app('typical-app-react', `${TYPICAL}export { useStore, useRecord } from ${react};\n`), external: ['react'] },
  typicalAppWithOffline: app('typical-app-offline', `${TYPICAL}import { Outbox, IndexedDBStorage } from ${offline};
export const outbox = new Outbox({ name: 'app', storage: new IndexedDBStorage(), models: [User] });
`),
  typicalAppWithAssociations: app('typical-app-associations', `${TYPICAL}import { hasMany, Session } from ${associations};
export const session = new Session();
export const posts = hasMany(() => User, { foreignKey: 'userId' });
`),
  modelMemory: app('model-memory-app', `import { Model, MemoryProxy } from ${index};
class User extends Model { static override fields = ['id', 'name']; static override proxy = new MemoryProxy({ data: [] }); }
export const user = new User({ name: 'Ed' });
`),
  restProxyOnly: {
    stdin: {
      contents: `import { RestProxy } from ${index};\nexport const users = new RestProxy({ url: '/api/users' });\n`,
      resolveDir: root,
      loader: 'ts',
      sourcefile: 'rest-proxy-only-app.ts',
    },
  },
  backbone: {
    stdin: { contents: `import Backbone from 'backbone';\nexport default Backbone;\n`, resolveDir: root, loader: 'js', sourcefile: 'backbone-app.js' },
  },
};

/** The sources as the production build has them. */
export const productionPlugin = {
  name: 'production',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => ({ contents: toProduction(await readFile(args.path, 'utf8'), args.path), loader: 'ts' }));
  },
};

/** The esbuild options that bundle one entry of one build, minified; `plugins` run before the production build's. */
export function bundleOptions(name, kind = 'production', plugins = []) {
  const entry = ENTRIES[name];
  if (!entry) throw new Error(`unknown bundle ${name}`);
  return {
    ...entry,
    plugins: kind === 'production' ? [...plugins, productionPlugin] : plugins,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    absWorkingDir: root,
  };
}

/** Bundle one entry of one build ('production' unless told) and measure it: { min, gzip } in bytes. */
export async function measureBundle(name, kind = 'production') {
  const contents = await bundleOf(name, kind);
  return { min: contents.length, gzip: gzipSync(contents, { level: 9 }).length };
}

/** The minified bundle of one entry of one build, as bytes. */
export async function bundleOf(name, kind = 'production') {
  const result = await build(bundleOptions(name, kind));
  const file = result.outputFiles[0];
  if (!file) throw new Error(`esbuild wrote nothing for ${name}`);
  return file.contents;
}

/** Every entry, production build; the development build under `development`. */
export async function measureAll() {
  const out = { development: {} };
  for (const name of Object.keys(ENTRIES)) {
    out[name] = await measureBundle(name);
    if (name !== 'backbone') out.development[name] = await measureBundle(name, 'development');
  }
  return out;
}
