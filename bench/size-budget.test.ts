/**
 * Size budgets: the whole library, a typical app (Model, Store, RestProxy) and an app importing only RestProxy, bundled with
 * esbuild (--bundle --minify --format=esm) and gzipped at level 9, as a bundler resolves the package for production (the
 * `production` export condition: bench/bundle-size.mjs) and in the development build. Deterministic: no timing.
 */
import { describe, expect, it } from 'vitest';
import { BUDGETS, DEV_BUDGETS, bundleOf, measureBundle, type BuildKind } from './bundle-size.mjs';

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(2)} KiB`;

for (const [kind, budgets] of [['production', BUDGETS], ['development', DEV_BUDGETS]] as const satisfies readonly (readonly [BuildKind, typeof BUDGETS])[]) {
  describe(`bundle size budgets (min+gzip), ${kind} build`, () => {
    it(`the whole library (src/index.ts) is at most ${kib(budgets.library)}`, async () => {
      const { gzip } = await measureBundle('library', kind);
      expect(gzip, `the library bundle is ${kib(gzip)} min+gzip (budget ${kib(budgets.library)}); node bench/size-breakdown.mjs shows what it is made of`).toBeLessThanOrEqual(budgets.library);
    });

    it(`a typical app (Model, Store, RestProxy) is at most ${kib(budgets.typicalApp)}`, async () => {
      const { gzip } = await measureBundle('typicalApp', kind);
      expect(gzip, `the typical app bundle is ${kib(gzip)} min+gzip (budget ${kib(budgets.typicalApp)})`).toBeLessThanOrEqual(budgets.typicalApp);
    });

    it(`an app importing only RestProxy (tree-shaken) is at most ${kib(budgets.restProxyOnly)}`, async () => {
      const { gzip } = await measureBundle('restProxyOnly', kind);
      expect(gzip, `the RestProxy-only bundle is ${kib(gzip)} min+gzip (budget ${kib(budgets.restProxyOnly)}); node bench/size-breakdown.mjs shows what it is made of`).toBeLessThanOrEqual(budgets.restProxyOnly);
    });
  });
}

describe('bundle size', () => {
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

  it('the live summaries\' engine and ChainedStore cost an app nothing unless imported (issue 30)', async () => {
    const engine = /must be an aggregator/;
    const chained = /ChainedStore: source must be/;
    const typical = new TextDecoder().decode(await bundleOf('typicalApp'));
    expect(engine.test(typical), 'the summaries\' engine in an app that imports no aggregator').toBe(false);
    expect(chained.test(typical), 'ChainedStore in an app that imports none').toBe(false);
    const summary = new TextDecoder().decode(await bundleOf('typicalAppWithSummary'));
    expect(engine.test(summary)).toBe(true);
    expect(chained.test(summary), 'ChainedStore in an app that imports sum and count only').toBe(false);
    const withChained = new TextDecoder().decode(await bundleOf('typicalAppWithChained'));
    expect(chained.test(withChained)).toBe(true);
    expect(engine.test(withChained), 'the summaries\' engine in an app that imports ChainedStore only').toBe(false);
  });

  it('the production build is smaller than the development build, by its explanations', async () => {
    const [production, development] = [await measureBundle('restProxyOnly'), await measureBundle('restProxyOnly', 'development')];
    expect(development.gzip - production.gzip).toBeGreaterThan(1024);
  });

  it('the measurement is deterministic', async () => {
    const [a, b] = [await measureBundle('restProxyOnly'), await measureBundle('restProxyOnly')];
    expect(a).toEqual(b);
  });
});
