/**
 * The outbox soak at full size (npm run soak): sessions ended by reloads and kills, offline
 * flips, in chaos. See test/resilience/offlineSoakRun.ts.
 */
import { describe, expect, it } from 'vitest';
import { offlineSoakProblems, runOfflineSoak } from '../resilience/offlineSoakRun.js';
import { SEED, soakServer } from './server.js';

const server = soakServer();

describe('soak', () => {
  // The outbox: 30 sessions of 60 actions in chaos, offline flips, reloads (a new Outbox over the stored entries) and kills.
  it.each([{ seed: SEED + 12 }, { seed: SEED + 13 }])('the outbox, seed $seed: sessions ended by reloads and kills, offline flips; once quiet, the server equals the client', async ({ seed }) => {
    const report = await runOfflineSoak(server(), { sessions: 30, actions: 60, seed, rate: 0.2, maxMs: 120_000 });
    console.log(`outbox soak, seed ${seed}: ${report.writes} writes, ${report.kills} kills, ${report.reloads} reloads, ${report.offlineFlips} offline flips, ${report.server.size} records on the server`);
    expect(offlineSoakProblems(report)).toEqual([]);
  }, 300_000);
});
