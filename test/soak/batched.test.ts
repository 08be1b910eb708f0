/**
 * The soak's batched and discarding runs at full size (npm run soak; the others in soak.test.ts,
 * graph.test.ts and outbox.test.ts).
 */
import { describe, it } from 'vitest';
import { expectUserIntent, runSoak } from '../resilience/soakRun.js';
import { SEED, soakServer } from './server.js';

const server = soakServer();

describe('soak', () => {
  it.each([
    // One request per action, replayed under its key; the user reloads, discards and rejects.
    // Batched runs send a handful of requests: half of them get a fault.
    { seed: SEED + 5, concurrency: 1, etag: false, batchActions: true, rate: 0.5 },
    { seed: SEED + 6, concurrency: 1, etag: false, batchActions: true, interleave: true, discards: true, rate: 0.2 },
    { seed: SEED + 7, concurrency: 8, etag: false, interleave: true, discards: true, rate: 0.2 },
    { seed: SEED + 8, concurrency: 8, etag: true, discards: true, rate: 0.2 },
  ])('1,000 records, seed $seed, concurrency $concurrency, etag $etag, interleaved $interleave, batched $batchActions, discards $discards, faults in $rate of requests', async ({ seed, concurrency, etag, interleave = false, batchActions = false, discards = false, rate }) => {
    const result = await runSoak(server(), { count: 1_000, seed, rate, concurrency, maxRounds: 30, maxMs: 60_000, etag, interleave, batchActions, discards });
    console.log(result.summary);
    for (const history of result.histories) console.log(history);

    expectUserIntent(result);
  });
});
