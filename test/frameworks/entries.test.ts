/**
 * The bindings cost nothing to an app that does not import them: they are separate entries
 * (rest-proxy/react, rest-proxy/vue) that the package root never imports, and each needs only
 * its framework and the core. Checked by bundling with esbuild, as an app's bundler would.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Bundle `code` (an app's entry) with the library from src/; react and vue stay external, as peer dependencies. */
async function bundle(code: string): Promise<{ inputs: string[]; imports: string[]; bytes: number }> {
  const result = await build({
    stdin: { contents: code, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    minify: true,
    metafile: true,
    external: ['react', 'react-dom', 'vue'],
    alias: { 'rest-proxy': './src/index.ts', 'rest-proxy/react': './src/react.ts', 'rest-proxy/vue': './src/vue.ts' },
    logLevel: 'silent',
  });
  const metafile: Metafile = result.metafile;
  const outputs = Object.values(metafile.outputs);
  return {
    inputs: Object.keys(metafile.inputs),
    imports: outputs.flatMap((output) => output.imports.filter((entry) => entry.external).map((entry) => entry.path)),
    bytes: result.outputFiles.reduce((sum, file) => sum + file.contents.byteLength, 0),
  };
}

describe('the framework bindings are separate entries', () => {
  it('an app that imports rest-proxy bundles neither binding nor any framework', async () => {
    const app = await bundle(`import { Store, Model } from 'rest-proxy'; console.log(Store, Model);`);
    expect(app.inputs.filter((input) => /src\/(react|vue)\.ts$/.test(input))).toEqual([]);
    expect(app.imports).toEqual([]);
  });

  it('rest-proxy/react needs react and the core only; rest-proxy/vue needs vue and the core only', async () => {
    const core = await bundle(`import { Store, Model } from 'rest-proxy'; console.log(Store, Model);`);
    const react = await bundle(`import { useStore, useRecord } from 'rest-proxy/react'; console.log(useStore, useRecord);`);
    const vue = await bundle(`import { useStore, useRecord } from 'rest-proxy/vue'; console.log(useStore, useRecord);`);
    expect([...new Set(react.imports)]).toEqual(['react']);
    expect([...new Set(vue.imports)]).toEqual(['vue']);
    expect(react.inputs.filter((input) => input.endsWith('vue.ts'))).toEqual([]);
    expect(vue.inputs.filter((input) => input.endsWith('react.ts'))).toEqual([]);
    // Each binding adds little over the core it uses (minified, before gzip).
    expect(react.bytes - core.bytes).toBeLessThan(2_000);
    expect(vue.bytes - core.bytes).toBeLessThan(2_500);
  });

  it('package.json maps rest-proxy/react and rest-proxy/vue to their own files, with no side effects', () => {
    const manifest: unknown = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      exports: {
        './react': { types: './dist/react.d.ts', import: './dist/react.js' },
        './vue': { types: './dist/vue.d.ts', import: './dist/vue.js' },
      },
      peerDependencies: { react: expect.any(String), vue: expect.any(String) },
      peerDependenciesMeta: { react: { optional: true }, vue: { optional: true } },
    });
    const sideEffects = typeof manifest === 'object' && manifest !== null ? Reflect.get(manifest, 'sideEffects') : undefined;
    expect(Array.isArray(sideEffects) ? sideEffects.filter((file: unknown) => typeof file === 'string' && /react|vue/.test(file)) : sideEffects).toEqual([]);
  });
});
