/**
 * The soak with associated records at full size (npm run soak): users -> posts -> comments, all
 * new, created together under faults. See test/resilience/graphSoakRun.ts.
 */
import { describe, it } from 'vitest';
import { expectGraphIntact, runGraphSoak } from '../resilience/graphSoakRun.js';
import { SEED, soakServer } from './server.js';

const server = soakServer();

describe('soak', () => {
  // Associated records: users -> posts -> comments (about 1,000 records), all new, created together under faults.
  it.each([
    { seed: SEED + 9, concurrency: 8, batchActions: false, interleave: false, rate: 0.2 },
    { seed: SEED + 11, concurrency: 8, batchActions: false, interleave: true, rate: 0.2 },
    { seed: SEED + 10, concurrency: 1, batchActions: true, interleave: true, rate: 0.5 },
  ])('associated records (200 users with posts and comments), seed $seed, concurrency $concurrency, batched $batchActions, interleaved $interleave: each once, every child on its parent', { timeout: 150_000 }, async ({ seed, concurrency, batchActions, interleave, rate }) => {
    // Bounded by rounds; the clock bound is only a backstop. Alone these converge in 5 rounds,
    // 13 s; under a load average of 18 on 2 cores a round took 15 s, and 60 s stopped seeds 51
    // and 53 after 4 rounds with their comments not yet created ("missing"): not a loss.
    const result = await runGraphSoak(server(), { users: 200, seed, rate, concurrency, batchActions, interleave, maxRounds: 30, maxMs: 110_000 });
    console.log(result.summary);
    expectGraphIntact(result);
  });
});
