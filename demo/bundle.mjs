// Bundles the page's TypeScript (demo/app/main.ts, which imports the library from src/) with
// esbuild's JS API, in memory: nothing is written to disk and there is no build step to run.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./app/main.ts', import.meta.url));

/**
 * @returns {Promise<Map<string, { type: string, text: string }>>} the files, by url path
 *   (`/app.js` and its source map `/app.js.map`)
 */
export async function bundleApp() {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outfile: 'app.js', // only names the output; write: false keeps it in memory
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
