/**
 * Edits inside a buffered store: new records go on top, removed rows leave at once, and every
 * later row shifts by local offsets (no re-read); reject and commit as a Store's.
 */
import type { DataOf, Model, ModelInit } from '../model/Model.js';
import type { LocalOffsets } from './offsets.js';
import type { BufferedReads, BufferedStoreEvents } from './reads.js';
import { unsaved, type BufferedRecords } from './records.js';

export interface EditsHost<M extends Model> {
  readonly store: object;
  readonly offsets: LocalOffsets<M>;
  readonly records: BufferedRecords<M>;
  readonly reads: BufferedReads<M>;
  /** Rows moved: the zones follow, a grid hears of it. */
  shifted(): void;
  /** An edit happened: sync soon when autoSync is on. */
  edited(): void;
  fire<N extends 'add' | 'remove'>(name: N, payload: BufferedStoreEvents<M>[N]): void;
}

export class BufferedEdits<M extends Model> {
  constructor(private readonly host: EditsHost<M>) {}

  add(items: M | ModelInit<DataOf<M>> | ReadonlyArray<M | ModelInit<DataOf<M>>>): M[] {
    const { offsets, records } = this.host;
    const added = records.toRecords(items).filter((record) => !offsets.added.includes(record));
    if (added.length === 0) return added;
    for (const record of added) {
      records.removed.delete(record);
      records.hold(record);
    }
    offsets.added = [...added, ...offsets.added];
    this.host.shifted();
    this.host.fire('add', { store: this.host.store, records: added, index: 0 });
    this.host.edited();
    return added;
  }

  remove(records: M | readonly M[]): M[] {
    const { offsets, reads } = this.host;
    const taken: M[] = [];
    for (const record of Array.isArray(records) ? records : [records]) {
      const top = offsets.added.indexOf(record);
      if (top !== -1) offsets.added.splice(top, 1);
      const server = top === -1 ? reads.serverIndexOf(record) : undefined;
      if (top === -1 && (server === undefined || offsets.removed(server))) continue;
      if (server !== undefined) offsets.remove(server);
      this.host.records.remove(record, server);
      taken.push(record);
    }
    if (taken.length === 0) return taken;
    this.host.shifted();
    this.host.fire('remove', { store: this.host.store, records: taken });
    this.host.edited();
    return taken;
  }

  /** A record was destroyed on the server (its own destroy(), or a sync): its row leaves. */
  erased(record: M): void {
    const { offsets, reads } = this.host;
    const top = offsets.added.indexOf(record);
    if (top !== -1) offsets.added.splice(top, 1);
    const server = top === -1 ? reads.serverIndexOf(record) : undefined;
    if (server !== undefined) offsets.remove(server);
    if (top !== -1 || server !== undefined) this.host.shifted();
  }

  /** A record's write ended: let it go when no row shows it (on top, on a page) and it has nothing unsaved. */
  settled(record: M): void {
    const { offsets, records, reads } = this.host;
    if (!unsaved(record) && !offsets.added.includes(record) && reads.serverIndexOf(record) === undefined) records.release(record);
  }

  /** A removed record's destroy was dropped (an outbox entry discarded): its row is back, as after a reject. */
  relist(record: M): void {
    const server = this.host.records.removed.get(record);
    this.host.records.removed.delete(record);
    this.#back(record, server);
    this.host.shifted();
  }

  /** New records: a sync creates them. */
  news(): M[] {
    return this.host.offsets.added.filter((record) => record.phantom && !record.erased);
  }

  commit(): void {
    const { records } = this.host;
    for (const record of records.updated()) record.commit();
    for (const record of records.forgetRemoved()) records.release(record);
  }

  reject(): void {
    const { offsets, records } = this.host;
    const news = this.news().filter((record) => !record.saving);
    offsets.added = offsets.added.filter((record) => !news.includes(record));
    for (const record of news) records.release(record);
    for (const record of records.updated()) record.reject();
    for (const [record, server] of records.restore()) this.#back(record, server);
    this.host.shifted();
  }

  /** A removed row back (`server`: its index when removed, as BufferedRecords.removed keeps it). */
  #back(record: M, server: number | undefined): void {
    const { offsets, reads } = this.host;
    if (server === undefined) {
      // Removed from the top: back on top, unless a page now holds it.
      if (!record.phantom && reads.serverIndexOf(record) === undefined) offsets.added.unshift(record);
    } else if (server >= 0) offsets.restore(server);
    else reads.letGo([record]); // a row of an earlier generation no page shows: its page brings it back
  }
}
