// Builds an example (examples/react, examples/vue) with Vite's JS API. 'rest-proxy' and its
// entries point at the library's sources here; an app that installs the package needs no alias.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import vue from '@vitejs/plugin-vue';
import { build } from 'vite';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The examples, by name, with the Vite plugin of their framework. */
export const EXAMPLES = {
  react: () => react(),
  vue: () => vue(),
};

/** 'rest-proxy', 'rest-proxy/react', 'rest-proxy/vue' and 'rest-proxy/presets' from src/. */
export const LIBRARY_ALIASES = [
  { find: /^rest-proxy$/, replacement: join(ROOT, 'src', 'index.ts') },
  { find: /^rest-proxy\/(react|vue|presets)$/, replacement: join(ROOT, 'src', '$1.ts') },
];

/**
 * Build an example into `outDir`. `development: true` builds React's and Vue's development
 * versions (their warnings, and StrictMode running effects twice) instead of production ones.
 *
 * @param {keyof typeof EXAMPLES} name
 * @param {{ outDir: string, development?: boolean }} options
 */
export function buildExample(name, { outDir, development = false }) {
  const plugin = EXAMPLES[name];
  if (plugin === undefined) throw new Error(`no example "${name}": the examples are ${Object.keys(EXAMPLES).join(', ')}`);
  return buildPages({ root: join(ROOT, 'examples', name), plugins: [plugin()], outDir, development });
}

/**
 * Build the pages of `root` (its index.html, or the html files `pages` names) with Vite, the
 * library aliased to its sources.
 *
 * @param {{ root: string, outDir: string, plugins?: import('vite').PluginOption[], pages?: string[], development?: boolean }} options
 */
export async function buildPages({ root, outDir, plugins = [], pages, development = false }) {
  // Vite, React and Vue take production or development from NODE_ENV (which a test runner sets to 'test').
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = development ? 'development' : 'production';
  try {
    await build({
      root,
      configFile: false,
      logLevel: 'warn',
      mode: development ? 'development' : 'production',
      plugins,
      resolve: { alias: LIBRARY_ALIASES },
      build: {
        outDir,
        emptyOutDir: true,
        sourcemap: true,
        minify: !development,
        ...(pages === undefined ? {} : { rollupOptions: { input: pages.map((page) => join(root, page)) } }),
      },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}
