import { defineConfig } from 'vitest/config';

// The soak (npm run soak): full-size chaos runs against the test server, kept out of the
// normal suite (vitest.config.ts excludes test/soak/**).
export default defineConfig({
  test: {
    include: ['test/soak/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two of the four files (records, batched, graph, outbox) side by side: the runs mostly wait on stalls,
    // timeouts and retries (~70 s of CPU in ~11 min under load), so they overlap well on 2 cores.
    maxWorkers: 2,
  },
});
