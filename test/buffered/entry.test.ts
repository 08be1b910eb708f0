/**
 * rest-proxy/buffered is its own entry: the package root exports nothing of it and an app that
 * does not import it bundles none of it; package.json maps it like the other subpaths.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect, it } from 'vitest';
import * as root from '../../src/index.js';
import * as buffered from '../../src/buffered.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function inputs(code: string): Promise<string[]> {
  const result = await build({
    stdin: { contents: code, resolveDir: ROOT, loader: 'ts' }, bundle: true, write: false, format: 'esm', platform: 'browser', minify: true, metafile: true,
    external: ['react', 'react-dom', 'vue'], logLevel: 'silent',
  });
  return Object.keys(result.metafile.inputs);
}

it('the root entry exports nothing of rest-proxy/buffered; the subpath exports BufferedStore and isPlaceholder', () => {
  expect(Object.keys(buffered).sort()).toEqual(['BufferedStore', 'isPlaceholder']);
  expect(Object.keys(root).filter((name) => /buffer|placeholder/i.test(name))).toEqual([]);
});

it('an app of Model, Store and RestProxy bundles nothing of src/buffered; the bindings do not either', async () => {
  const app = await inputs(`import { Model, Store, RestProxy } from './src/index.ts'; import { useStore } from './src/react.ts'; import { useStore as useVue } from './src/vue.ts'; console.log(Model, Store, RestProxy, useStore, useVue);`);
  expect(app.filter((input) => input.includes('src/buffered'))).toEqual([]);
  const withBuffered = await inputs(`import { BufferedStore } from './src/buffered.ts'; console.log(BufferedStore);`);
  expect(withBuffered.some((input) => input.includes('src/buffered/BufferedStore.ts'))).toBe(true);
  expect(withBuffered.filter((input) => /src\/(react|vue|offline|associations)/.test(input))).toEqual([]);
});

it('package.json maps rest-proxy/buffered to its own files (types, production, import)', () => {
  const manifest: unknown = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  expect(manifest).toMatchObject({ exports: { './buffered': { types: './dist/buffered.d.ts', production: './dist/prod/buffered.js', import: './dist/buffered.js' } } });
});
