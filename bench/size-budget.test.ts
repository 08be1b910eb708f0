/**
 * Size budgets: the whole library, a typical app (Model, Store, RestProxy) and an app importing only RestProxy, bundled with
 * esbuild (--bundle --minify --format=esm) and gzipped at level 9. Deterministic: no timing.
 */
import { describe, expect, it } from 'vitest';
import { BUDGETS, bundleOf, measureBundle } from './bundle-size.mjs';

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(2)} KiB`;

describe('bundle size budgets (min+gzip)', () => {
  it(`the whole library (src/index.ts) is at most ${kib(BUDGETS.library)}`, async () => {
    const { gzip } = await measureBundle('library');
    expect(gzip, `the library bundle is ${kib(gzip)} min+gzip (budget ${kib(BUDGETS.library)}); node bench/size-breakdown.mjs shows what it is made of`).toBeLessThanOrEqual(BUDGETS.library);
  });

  it(`a typical app (Model, Store, RestProxy) is at most ${kib(BUDGETS.typicalApp)}`, async () => {
    const { gzip } = await measureBundle('typicalApp');
    expect(gzip, `the typical app bundle is ${kib(gzip)} min+gzip (budget ${kib(BUDGETS.typicalApp)})`).toBeLessThanOrEqual(BUDGETS.typicalApp);
  });

  it('the framework bindings cost an app nothing unless imported, and little when they are', async () => {
    const [typical, withReact] = [await measureBundle('typicalApp'), await measureBundle('typicalAppWithReact')];
    expect(withReact.gzip - typical.gzip, 'rest-proxy/react added to the typical app (React itself not counted)').toBeLessThan(1024);
  });

  it('the validators cost an app nothing unless imported, and each only what it is', async () => {
    const has = (text: string, pattern: RegExp): boolean => pattern.test(text);
    const typical = new TextDecoder().decode(await bundleOf('typicalApp'));
    expect(has(typical, /is too short|e-mail address|is reserved/), 'a validator in an app that imports none').toBe(false);
    const withTwo = new TextDecoder().decode(await bundleOf('typicalAppWithValidators'));
    expect(has(withTwo, /e-mail address/)).toBe(true);
    expect(has(withTwo, /give min, max or both|has the g or y flag|list must be a non-empty array/), 'length, range, format or inclusion in an app that imports presence and email only').toBe(false);
    const [plain, validated] = [await measureBundle('typicalApp'), await measureBundle('typicalAppWithValidators')];
    expect(validated.gzip - plain.gzip, 'Model.define with presence() and email() added to the typical app').toBeLessThan(600);
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
