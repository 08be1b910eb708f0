/**
 * The outbox soak of parents with children across reloads (issue 28): per seed, rounds of a
 * page (new model classes, a new Outbox over the same storage) that makes new authors with new
 * books and syncs them through a session, while the test server resets connections before or
 * after applying a share of requests (it honours Idempotency-Key); each page is closed at a
 * random moment (a reload), the next one replays what is stored. At the end, online, the server
 * must hold each author and each book once, each book under its own author: 0 lost, 0 created
 * twice, 0 keyless children. Bounded: a few rounds per seed, at most 60 flushes at the end.
 */
import { describe, expect, it } from 'vitest';
import type { OutboxStorage } from '../../src/offline.js';
import { graphPages } from '../offline/helpers/graph.js';
import { ReopenableStorage } from '../offline/helpers.js';

const SEED = Number(process.env['SOAK_SEED'] ?? 42);
const SEEDS = 12;
const ROUNDS = 4;

const pages = graphPages();
/** A seeded random number generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One page: fresh classes (a reload makes them again), attached to an outbox over `storage`, opened. */
const page = (storage: OutboxStorage, nested: boolean) => pages.page(storage, { nested, name: 'soak' });

describe('outbox soak: parents with children across reloads', () => {
  it.each(Array.from({ length: SEEDS }, (_, i) => ({ seed: SEED + i, nested: i % 2 === 1 })))('seed $seed (nested url: $nested)', async ({ seed, nested }) => {
    const server = pages.server();
    const rand = random(seed);
    const storage = new ReopenableStorage();
    /** Each book's title -> its author's name. */
    const intended = new Map<string, string>();
    const authorNames: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const current = await page(storage, nested);
      server.chaos(rand() < 0.7 ? { rate: 0.4, seed: seed * 100 + round, types: ['reset-before', 'reset-after'] } : null);
      for (let a = 0; a < 3; a++) {
        const name = `a${seed}-${round}-${a}`;
        authorNames.push(name);
        const titles = [`${name}-b0`, `${name}-b1`];
        current.author(name, titles);
        for (const title of titles) intended.set(title, name);
      }
      void current.session.sync().catch(() => undefined);
      if (rand() < 0.5) await current.outbox.flush();
      await sleep(Math.floor(rand() * 40));
      // The reload: the page goes (at any moment), its entries stay stored.
      await pages.gone(current);
    }
    server.chaos(null);
    const last = await page(storage, nested);
    for (let i = 0; i < 60; i++) {
      await last.outbox.flush();
      const { pending, sending } = last.outbox.getSnapshot();
      if (pending + sending === 0) break;
      await sleep(200);
    }
    const authors = server.db['authors'] ?? [];
    const books = server.db['books'] ?? [];
    const idOf = new Map(authors.map((row) => [row['name'], row['id']]));
    const lost = authorNames.filter((name) => !idOf.has(name)).length + [...intended.keys()].filter((title) => !books.some((row) => row['title'] === title)).length;
    const twice = authors.length - new Set(authors.map((row) => row['name'])).size + books.length - new Set(books.map((row) => row['title'])).size;
    const keyless = books.filter((row) => row['authorId'] === null || row['authorId'] === undefined).length;
    const misfiled = books.filter((row) => row['authorId'] !== undefined && row['authorId'] !== null && idOf.get(intended.get(String(row['title']))) !== row['authorId']).length;
    console.log(`outbox graph soak seed ${seed}${nested ? ' nested' : ''}: ${authors.length} authors, ${books.length} books; lost ${lost}, twice ${twice}, keyless ${keyless}, misfiled ${misfiled}, failed ${last.outbox.failed.length}`);
    expect({ lost, twice, keyless, misfiled, failed: last.outbox.failed.map((entry) => entry.error.message) }).toEqual({ lost: 0, twice: 0, keyless: 0, misfiled: 0, failed: [] });
  });
});
