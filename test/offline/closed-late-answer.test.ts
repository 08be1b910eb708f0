/**
 * An outbox closed while a request is in flight (a reload in the same process: sign-out, a
 * remount, the soak's pages) must not write to its storage when that answer lands: the storage
 * is the next outbox's by then. Found by the outbox graph soak (test/soak/outboxGraph.test.ts,
 * seeds 49, 58, 70...: 2 to 6 books lost): the closed page's late answer deleted the author's
 * create and rewrote its books with the author's id, then the next page's open committed the
 * copies it had loaded before (still waiting for the author): books waiting for a parent no
 * entry creates any more, never sent.
 */
import { describe, expect, it } from 'vitest';
import type { OutboxStorage } from '../../src/offline.js';
import { graphPages } from './helpers/graph.js';
import { ReopenableStorage } from './helpers.js';

const pages = graphPages();
/** One page of new authors and books (nested book urls), its outbox over `storage` opened. */
const page = (storage: OutboxStorage) => pages.page(storage, { nested: true, name: 'late', timeout: 2_000 });

describe('an outbox closed with a request in flight', () => {
  it("writes nothing when the answer lands: the next page's entries stay whole, the book is created under its author", async () => {
    const shared = new ReopenableStorage();
    const commits: string[] = [];
    let closed = false;
    const first = await page({
      durable: false,
      load: () => shared.load(),
      commit: (change) => {
        if (closed) commits.push(JSON.stringify(change));
        return shared.commit(change);
      },
      close: () => shared.close(),
    });
    pages.server().inject({ type: 'delay', ms: 300, match: { method: 'POST', path: '/authors' } });
    first.author('ann', ['one']);
    const answered = new Promise<void>((resolve) => first.outbox.on('sent', () => resolve()));
    void first.session.sync().catch(() => undefined);
    await new Promise<void>((resolve) => {
      const check = () => (first.outbox.getSnapshot().sending === 1 ? resolve() : undefined);
      first.outbox.subscribe(check);
      check();
    });
    // The reload: the first page goes with its author's POST in flight.
    await pages.gone(first);
    closed = true;
    // The next page reads the storage before the late answer lands, and claims what it read after.
    const next = await page({
      durable: false,
      load: async () => {
        const rows = await shared.load();
        await answered;
        return rows;
      },
      commit: (change) => shared.commit(change),
      close: () => shared.close(),
    });

    // That page goes too before it sends anything; the one after replays what is stored.
    await pages.gone(next);
    const last = await page(shared);
    await last.outbox.flush();
    const annId = pages.server().db['authors']?.[0]?.['id'];
    expect(pages.server().db['authors']).toEqual([expect.objectContaining({ name: 'ann' })]);
    expect(pages.server().db['books']).toEqual([expect.objectContaining({ title: 'one', authorId: annId })]);
    expect(last.outbox.getSnapshot()).toMatchObject({ pending: 0, sending: 0, failed: 0 });
    expect(commits).toEqual([]);
  });
});
