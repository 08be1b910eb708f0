import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'bench/**/*.test.ts'],
    // *.browser.test.ts: only for the browser run (vitest.browser.config.ts).
    exclude: ['test/soak/**', 'node_modules/**', '**/*.browser.test.ts'],
    typecheck: {
      include: ['test/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
    // An empty directory for the package compiled once per run (test/build/compiled.ts).
    globalSetup: ['test/build/compiled.setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default on two cores is one file at a time (cores - 1), and most files mostly wait:
    // on their servers, child processes, timeouts and Chromium. Three at a time keep both cores busy.
    maxWorkers: 3,
    // The JSON report lets .ci/run print a one-line summary.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results.json' },
  },
});
