/**
 * rest-proxy/offline bundles for browsers: FileStorage imports Node's modules only when it is
 * opened, by a name bundlers leave alone, so a browser build neither fails on node:fs nor pulls
 * it in; and an app that does not use FileStorage does not carry it.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect, it } from 'vitest';

const offline = JSON.stringify(fileURLToPath(new URL('../../src/offline.ts', import.meta.url)));

async function bundle(contents: string): Promise<string> {
  const result = await build({ stdin: { contents, loader: 'ts', resolveDir: process.cwd() }, bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent', minify: true });
  return result.outputFiles[0]?.text ?? '';
}

it('bundles the whole of rest-proxy/offline for the browser platform, with no import of a Node module', async () => {
  const code = await bundle(`export * from ${offline};`);
  expect(code).toContain('FileStorage');
  expect(code).not.toMatch(/\bfrom\s*"node:|\brequire\(|import\("node:/);
});

it('leaves FileStorage out of an app that uses only the rest of rest-proxy/offline', async () => {
  const code = await bundle(`export { MemoryStorage, OutboxError } from ${offline};`);
  expect(code).toContain('MemoryStorage');
  expect(code).not.toContain('node:fs');
  expect(code).not.toContain('FileStorage');
});
