/**
 * Size budgets (issue 7): the whole library and an app importing only RestProxy, bundled with
 * esbuild (--bundle --minify --format=esm) and gzipped at level 9. Deterministic: no timing.
 */
import { describe, expect, it } from 'vitest';
import { BUDGETS, measureBundle } from './bundle-size.mjs';

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(2)} KiB`;

describe('bundle size budgets (min+gzip)', () => {
  it(`the whole library (src/index.ts) is at most ${kib(BUDGETS.library)}`, async () => {
    const { gzip } = await measureBundle('library');
    expect(gzip, `the library bundle is ${kib(gzip)} min+gzip (budget ${kib(BUDGETS.library)}); node bench/size-breakdown.mjs shows what it is made of`).toBeLessThanOrEqual(BUDGETS.library);
  });

  it(`an app importing only RestProxy (tree-shaken) is at most ${kib(BUDGETS.restProxyOnly)}`, async () => {
    const { gzip } = await measureBundle('restProxyOnly');
    expect(gzip, `the RestProxy-only bundle is ${kib(gzip)} min+gzip (budget ${kib(BUDGETS.restProxyOnly)}); node bench/size-breakdown.mjs shows what it is made of`).toBeLessThanOrEqual(BUDGETS.restProxyOnly);
  });

  it('the measurement is deterministic', async () => {
    const [a, b] = [await measureBundle('restProxyOnly'), await measureBundle('restProxyOnly')];
    expect(a).toEqual(b);
  });
});
