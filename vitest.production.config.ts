/**
 * The unit suites against the production build (dist/prod/, the `production` export condition):
 * every import of src/ is served from dist/prod/ instead, so that the same tests run against the
 * code a production bundle contains (messages without explanations).
 *
 *   npm run build && npx vitest run --config vitest.production.config.ts test/store test/model test/contract test/proxy
 *
 * Not part of `npm test`. Expected to fail there: the tests that assert a development explanation
 * (6 of 608 at 7ac9551: the unsafe-id advice, the relative url, the redirect's fix, a record of
 * another model, destroy()).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));
const src = `${root}src/`;

const production: Plugin = {
  name: 'src-to-dist-prod',
  enforce: 'pre',
  async resolveId(source, importer) {
    if (importer === undefined || importer.startsWith(`${root}dist/`)) return null;
    const resolved = await this.resolve(source, importer, { skipSelf: true });
    if (resolved === null || !resolved.id.startsWith(src) || !resolved.id.endsWith('.ts')) return null;
    const built = `${root}dist/prod/${resolved.id.slice(src.length, -3)}.js`;
    if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build first`);
    return built;
  },
};

export default defineConfig({
  plugins: [production],
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/soak/**', 'node_modules/**', '**/*.browser.test.ts', 'test/build/**', 'test/architecture.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
