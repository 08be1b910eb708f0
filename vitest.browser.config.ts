// The library's suites again, in headless Chromium (Debian's /usr/bin/chromium), so the browser's
// fetch, Headers, AbortSignal and redirect handling are what the proxies run on. `npm run test:browser`.
import { fileURLToPath } from 'node:url';
import { playwright } from '@vitest/browser-playwright';
import { configDefaults, defineConfig } from 'vitest/config';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'];

export default defineConfig({
  resolve: {
    // Test files import the Node test server; in the browser they get the same interface backed by the hub.
    alias: [{ find: /^(\.\.\/)+server\/index\.js$/, replacement: fileURLToPath(new URL('./test/server/remote.ts', import.meta.url)) }],
  },
  test: {
    include: ['test/{proxy,resilience,model,store,reader,writer,errors,integration,presets}/**/*.test.ts', 'test/server/interface.test.ts', 'test/offline/**/*.browser.test.ts', 'test/associations/**/*.test.ts'],
    // json-server runs as a Node child process; server rendering (AsyncLocalStorage), the raw
    // servers that count the bytes they wrote or never answer, and the garbage collector are
    // Node's; the store corners hold requests at the server with functions that share promises
    // with the test (in the browser run such a function runs in the hub, apart from the test).
    exclude: [
      ...configDefaults.exclude, 'test/presets/json-server.e2e.test.ts', 'test/resilience/sharing-credentials.test.ts', 'test/resilience/max-response-bytes.test.ts',
      'test/resilience/unreachable.test.ts', 'test/store/release.test.ts', 'test/store/corners.test.ts',
      // The remote summaries' route reads the server's db in Node (test/server/summary.ts); a kept summary needs the collector.
      'test/store/remoteSummary.test.ts', 'test/store/summaryKept.test.ts',
      'test/associations/servers.e2e.test.ts', 'test/associations/collect.test.ts', 'test/associations/hostilePending.test.ts',
    ],
    // The hub: runs in Node, starts and drives the real test servers for the browser tests.
    globalSetup: ['test/server/hub.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Its own JSON report: test-results.json is the Node run's, read by .ci/run for its summary line.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results.browser.json' },
    browser: {
      enabled: true,
      headless: true,
      provider: playwright({ launchOptions: { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS } }),
      instances: [{ browser: 'chromium' }],
      screenshotFailures: false,
    },
  },
});
