/**
 * Bundle sizes, min+gzip: esbuild --bundle --minify --format=esm, then zlib gzip level 9.
 * Used by bench/run.mjs and bench/size-budget.test.ts.
 */
import { gzipSync } from 'node:zlib';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const index = JSON.stringify(resolve(root, 'src/index.ts'));
const presets = JSON.stringify(resolve(root, 'src/presets.ts'));
const react = JSON.stringify(resolve(root, 'src/react.ts'));

/** An app made of these lines (TypeScript, bundled from the sources). */
function app(name, contents) {
  return { stdin: { contents, resolveDir: root, loader: 'ts', sourcefile: `${name}.ts` } };
}
const TYPICAL = `import { Model, Store, RestProxy } from ${index};
class User extends Model { static override fields = ['id', 'name']; static override proxy = new RestProxy({ url: '/api/users' }); }
export const users = new Store({ model: User });
`;

/**
 * The size targets of the issue "The transport as layers": 12 KiB for RestProxy alone, 24 KiB for
 * the whole library. Not met (bench/FINDINGS.md, "Bundle size", says where the bytes are); until
 * then the budgets are a ratchet just above today's sizes, so that CI catches any growth.
 */
export const TARGETS = { library: 24 * 1024, restProxyOnly: 12 * 1024 };
export const BUDGETS = { library: 36.55 * 1024, typicalApp: 33.6 * 1024, restProxyOnly: 18.6 * 1024 };

/** What is measured: the whole library, typical apps, an app that imports only RestProxy, Backbone + underscore. */
export const ENTRIES = {
  library: { entryPoints: [resolve(root, 'src/index.ts')] },
  typicalApp: app('typical-app', TYPICAL),
  typicalAppWithValidators: app('typical-app-validators', `import { Model, Store, presence, email } from ${index};
class User extends Model.define({ fields: { name: 'string', email: 'string' }, proxy: { type: 'rest', url: '/api/users' }, validators: { name: presence(), email: email() } }) {}
export const users = new Store({ model: User });
`),
  typicalAppWithPresets: app('typical-app-presets', `${TYPICAL}import ${presets};\n`),
  typicalAppWithReact: { ...app('typical-app-react', `${TYPICAL}export { useStore, useRecord } from ${react};\n`), external: ['react'] },
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

/** Bundle one entry and measure it: { min, gzip } in bytes. */
export async function measureBundle(name) {
  const contents = await bundleOf(name);
  return { min: contents.length, gzip: gzipSync(contents, { level: 9 }).length };
}

/** The minified bundle of one entry, as bytes. */
export async function bundleOf(name) {
  const entry = ENTRIES[name];
  if (!entry) throw new Error(`unknown bundle ${name}`);
  const result = await build({
    ...entry,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    absWorkingDir: root,
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error(`esbuild wrote nothing for ${name}`);
  return file.contents;
}

export async function measureAll() {
  const out = {};
  for (const name of Object.keys(ENTRIES)) out[name] = await measureBundle(name);
  return out;
}
