/**
 * FileStorage under SIGKILL: a child process commits in a loop (helpers/fileStorageChild.ts,
 * `writer`) while this test kills it at random moments, in the middle of a commit or right after
 * one resolved, again and again (at most 40 kills or 20 s). After each kill the next process
 * loads the log and says what it found: every commit that resolved is there, no commit is there
 * in part, no entry twice, a torn last line (left by the kill, or added here) is ignored, a
 * compaction's temp file (likewise) is dropped, and the dead process's lock is taken over. Commit k puts parts k-0 .. k-(of-1) and deletes those of
 * commit k - WINDOW, so the log is compacted now and then, and kills land in compactions too.
 */
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleChild, lockPid, removeBundles, startChild } from './helpers/child.js';
import type { ChildMessage } from './helpers/child.js';

const WINDOW = 20;
const MAX_KILLS = 40;
const MAX_MS = 32_000; // 20 s gave 8 kills (of the 10 asked) at load average 18; quiet, MAX_KILLS ends it first

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rest-proxy-kill-'));
});
afterAll(async () => {
  await removeBundles();
  await rm(dir, { recursive: true, force: true });
});

interface Part {
  id: string;
  k: number;
  part: number;
  of: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const highest = (messages: readonly ChildMessage[], type: string) => Math.max(0, ...messages.filter((message) => message.type === type).map((message) => Number(message['k'])));

it('loses no commit that resolved and applies none in part, across SIGKILLs at random moments', async () => {
  const script = await bundleChild(fileURLToPath(new URL('./helpers/fileStorageChild.ts', import.meta.url)));
  const path = join(dir, 'outbox.jsonl');
  const tally = { kills: 0, midCommit: 0, afterCommit: 0, commits: 0, lost: 0, doubled: 0, inPart: 0, tornByKill: 0, tornByHand: 0, locksTakenOver: 0, tempFilesLeft: 0, tempFilesByHand: 0, compactedLogsSeen: 0, slowestLoadMs: 0 };
  const problems: string[] = [];
  let acked = 0; // the highest commit that resolved in any process
  let begun = 0; // the highest commit any process began
  let lastPid = 0;

  /** What a process found on loading, against what the processes before it were told. */
  const check = (loaded: ChildMessage, round: number) => {
    const parts = loaded['entries'] as Part[];
    const say = (count: 'lost' | 'inPart', problem: string, by = 1) => {
      tally[count] += by;
      problems.push(`round ${round}: ${problem}`);
    };
    tally.doubled += parts.length - new Set(parts.map((part) => part.id)).size;
    const commits = new Map<number, Part[]>();
    for (const part of parts) commits.set(part.k, [...(commits.get(part.k) ?? []), part]);
    const top = Math.max(0, ...commits.keys());
    for (const [k, list] of commits) {
      const whole = list.length === list[0]?.of && list.every((part) => part.of === list.length) && new Set(list.map((part) => part.part)).size === list.length;
      if (!whole) say('inPart', `commit ${k} is there in part: ${list.map((part) => part.id).join(', ')}`);
      if (k <= top - WINDOW) say('inPart', `commit ${k} should have been deleted by commit ${k + WINDOW}`);
    }
    for (let k = Math.max(1, top - WINDOW + 1); k <= top; k++) if (!commits.has(k)) say('lost', `commit ${k} is missing`);
    if (top < acked) say('lost', `commits ${top + 1} to ${acked} resolved but are gone`, acked - top);
    if (top > begun) problems.push(`round ${round}: commit ${top} was never made`);
    tally.slowestLoadMs = Math.max(tally.slowestLoadMs, Number(loaded['loadMs']));
  };

  const started = Date.now();
  for (let round = 1; tally.kills < MAX_KILLS && Date.now() - started < MAX_MS; round++) {
    if (round > 1) {
      // What the killed process left: its lock, maybe a torn line, maybe a compaction's temp file.
      if ((await lockPid(path)) !== lastPid) problems.push(`round ${round}: the lock of ${lastPid} is not there`);
      const log = await readFile(path, 'utf8');
      if (log !== '' && !log.endsWith('\n')) tally.tornByKill++;
      if (existsSync(`${path}.tmp`)) tally.tempFilesLeft++;
      if (log.startsWith('{"put":[') && !log.slice(0, log.indexOf('\n')).includes('"delete"')) tally.compactedLogsSeen++;
      if (round % 4 === 0) {
        // A torn line of a commit that never resolved, as a kill in the middle of a big write leaves.
        await appendFile(path, `{"put":[{"id":"${begun + 1}-0","k":${begun + 1},"part":0,"of":1,"pad":"xxxx`);
        tally.tornByHand++;
      }
      if (round % 5 === 0) {
        // Half a compaction's copy, as a kill before its rename leaves.
        await appendFile(`${path}.tmp`, '{"put":[{"id":"1-0","k":1,"part":0,"of":3}]}\n{"put":[{"id"');
        tally.tempFilesByHand++;
      }
    }
    const child = startChild(script, ['writer', path, String(WINDOW)]);
    const loaded = await child.next('loaded', 15_000);
    check(loaded, round);
    if (round > 1 && (await lockPid(path)) === child.pid) tally.locksTakenOver++;
    lastPid = child.pid;

    if (Math.random() < 0.5) {
      await sleep(Math.random() * 150);
      child.kill();
    } else {
      // Right after the n-th commit resolved (the child may be in the next one already).
      const n = 1 + Math.floor(Math.random() * 15);
      let acks = 0;
      child.on((message) => {
        if (message.type === 'ack' && ++acks === n) child.kill();
      });
      setTimeout(() => child.kill(), 3000);
    }
    const { signal } = await child.exited;
    if (signal !== 'SIGKILL') problems.push(`round ${round}: the child ended with ${signal ?? 'no signal'}: ${child.stderr()}`);
    const last = child.messages.at(-1);
    if (last?.type === 'begin') tally.midCommit++;
    else tally.afterCommit++;
    tally.commits += child.messages.filter((message) => message.type === 'ack').length;
    acked = Math.max(acked, highest(child.messages, 'ack'));
    begun = Math.max(begun, highest(child.messages, 'begin'));
    tally.kills++;
  }

  // One last process: it finds everything, then lets the file go.
  const final = startChild(script, ['hold', path]);
  check(await final.next('loaded', 15_000), tally.kills + 1);
  if ((await lockPid(path)) === final.pid) tally.locksTakenOver++;
  final.kill();
  await final.exited;

  console.info(`FileStorage kill loop, ${((Date.now() - started) / 1000).toFixed(1)} s:`, tally);
  expect(problems).toEqual([]);
  expect(tally).toMatchObject({ lost: 0, doubled: 0, inPart: 0, locksTakenOver: tally.kills });
  expect(tally.kills).toBeGreaterThanOrEqual(10);
  expect(tally.midCommit).toBeGreaterThan(0);
  expect(tally.tornByHand).toBeGreaterThan(0);
  expect(existsSync(`${path}.tmp`)).toBe(false);
}, 75_000);
