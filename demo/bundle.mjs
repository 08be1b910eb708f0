// Bundles the page's TypeScript (demo/app/main.ts, which imports the library from src/) with
// esbuild's JS API, in memory: nothing is written to disk and there is no build step to run.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./app/main.ts', import.meta.url));
// The page of a million orders (orders.html): a virtual grid over a BufferedStore.
const ORDERS_ENTRY = fileURLToPath(new URL('./app/orders.ts', import.meta.url));

/**
 * @returns {Promise<Map<string, { type: string, text: string }>>} the files, by url path
 *   (`/app.js`, `/orders.js` and their source maps `/app.js.map`, `/orders.js.map`)
 */
export async function bundleApp() {
  const result = await build({
    entryPoints: { app: ENTRY, orders: ORDERS_ENTRY },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outdir: 'out', // only names the outputs (app.js, orders.js); write: false keeps them in memory
    sourcemap: 'linked',
    sourceRoot: '/',
    logLevel: 'silent',
  });
  const files = new Map();
  for (const file of result.outputFiles) {
    const name = file.path.split(/[\\/]/).pop();
    const type = name.endsWith('.map') ? 'application/json' : 'text/javascript';
    files.set(`/${name}`, { type, text: file.text });
  }
  return files;
}
