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

/** The size budgets (bytes, min+gzip). */
/**
 * The targets are 10 KiB for the whole library and 6 KiB for RestProxy alone. They are
 * not met (26.0 and 15.6 KiB at the time of writing; bench/FINDINGS.md, "Bundle size", says what the
 * bytes are and what meeting them would take). Until then these budgets are a ratchet just above
 * today's sizes, so that CI catches any growth; lower them as the bundle shrinks.
 */
export const TARGETS = { library: 10 * 1024, restProxyOnly: 6 * 1024 };
export const BUDGETS = { library: 26.1 * 1024, restProxyOnly: 15.6 * 1024 };

/** What is measured: the whole library, an app that imports only RestProxy, Backbone + underscore. */
export const ENTRIES = {
  library: { entryPoints: [resolve(root, 'src/index.ts')] },
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
  return { min: file.contents.length, gzip: gzipSync(file.contents, { level: 9 }).length };
}

export async function measureAll() {
  const out = {};
  for (const name of Object.keys(ENTRIES)) out[name] = await measureBundle(name);
  return out;
}
