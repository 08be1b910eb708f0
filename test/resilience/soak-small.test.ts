/**
 * A small copy of the soak (test/soak/soak.test.ts) for the normal suite: 150 records in seeded
 * chaos, synced until the store's sync resolves, then the server must hold exactly what the user
 * did. See soakRun.ts.
 */
import { afterEach, beforeEach, describe, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/index.js';
import { expectUserIntent, runSoak } from './soakRun.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [] } });
});

afterEach(async () => {
  await server.close();
});

describe('soak (small)', () => {
  it.each([
    { seed: 7, concurrency: 1, etag: false, interleave: false },
    { seed: 11, concurrency: 4, etag: false, interleave: false },
    { seed: 13, concurrency: 4, etag: true, interleave: false },
    // Saves racing syncs, removals during saves, loads racing syncs.
    { seed: 17, concurrency: 4, etag: false, interleave: true },
    { seed: 19, concurrency: 4, etag: true, interleave: true },
    // One request per action, replayed under its key; the user reloads, discards and rejects.
    { seed: 23, concurrency: 1, etag: false, interleave: false, batchActions: true },
    { seed: 29, concurrency: 1, etag: false, interleave: true, batchActions: true, discards: true },
    { seed: 31, concurrency: 4, etag: false, interleave: true, discards: true },
  ])('150 records, 20% faults, seed $seed, concurrency $concurrency, etag $etag, interleaved $interleave, batched $batchActions, discards $discards: the server ends equal to the user\'s intent', async ({ seed, concurrency, etag, interleave, batchActions = false, discards = false }) => {
    const result = await runSoak(server, { count: 150, seed, rate: 0.2, concurrency, maxRounds: 15, maxMs: 10_000, etag, interleave, batchActions, discards });
    console.log(result.summary);
    for (const history of result.histories) console.log(history);

    expectUserIntent(result);
  }, 15_000);

  // A control run: it avoids the three triggers of the bugs the runs above find (records edited
  // or removed before their create is confirmed, and DELETEs under chaos), so it shows that the
  // harness itself finds nothing when the library does everything right.
  it('control: only confirmed records touched, DELETEs spared by chaos: converges, nothing lost or doubled', async () => {
    const result = await runSoak(server, {
      count: 150, seed: 5, rate: 0.2, concurrency: 4, maxRounds: 15, maxMs: 10_000, touchNewRecords: false, chaosMethods: ['POST', 'PUT'],
    });
    console.log(`control: ${result.summary}`);

    expectUserIntent(result);
  }, 15_000);
});
