/// <reference types="node" />
/**
 * FileStorage: an outbox's entries in a file, for Node. The file is a log of JSON lines, one per
 * commit (`{"put":[...],"delete":[...]}`), each written and flushed to disk (fdatasync) before its
 * commit resolves. Loading replays the log; a torn last line (a process killed in the middle of a
 * write) is ignored and cut off. When the log grows past a few times what it holds, it is
 * compacted: the live entries are written to `<path>.tmp`, flushed, and renamed over the log. A
 * lock file, `<path>.lock`, keeps a second process out (fileLock.ts).
 *
 * Node's modules are imported when a storage is opened, by a name the bundlers leave alone, so
 * that a browser build of rest-proxy/offline does not pull them in.
 */
import type * as Fs from 'node:fs/promises';
import type * as Path from 'node:path';
import { OutboxError } from './errors.js';
import { acquireLock, errorCode, releaseLock } from './fileLock.js';
import type { OutboxStorage, StorageCommit, StoredObject } from './storage.js';

export interface FileStorageOptions {
  /** The log file (created when missing; its folder must exist). `<path>.lock` and `<path>.tmp` are made beside it. */
  readonly path: string;
}

interface Open {
  fs: typeof Fs;
  file: Fs.FileHandle;
  /** The bytes of the log that hold whole commits. */
  size: number;
  /**
   * Each live entry by id: its JSON text, or the object read from the log (no one else has it, so
   * the first load hands it out and keeps its text instead: one parse of the log, not two).
   */
  entries: Map<string, string | StoredObject>;
  /** The bytes each entry takes in a compacted log (estimated for one read from a line of several). */
  sizes: Map<string, number>;
  /** Their sum. */
  live: number;
  lock: string;
}

const FS = 'node:fs/promises';
const PATH = 'node:path';
/** Compact when the log is past this many times its live bytes (plus 64 KiB, so that a small log is left alone). */
const SLACK = 4;
const NEWLINE = 10;

const isEntry = <E extends StoredObject>(value: unknown): value is E =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && typeof Reflect.get(value, 'id') === 'string';

/** One line of the log, checked: the puts as [id, JSON text] and the deleted ids. */
function parseLine(line: string): { put: StoredObject[]; delete: string[] } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const put: unknown = Reflect.get(value, 'put') ?? [];
  const del: unknown = Reflect.get(value, 'delete') ?? [];
  if (!Array.isArray(put) || !Array.isArray(del) || !put.every((entry) => isEntry(entry)) || !del.every((id) => typeof id === 'string')) return undefined;
  return { put, delete: del };
}

/** Apply one commit to the entries, keeping the live byte count: deletes first, then puts (the last put of an id wins). */
function apply(open: Open, put: readonly (readonly [string, string | StoredObject, number])[], del: readonly string[]): void {
  const drop = (id: string) => {
    open.live -= open.sizes.get(id) ?? 0;
    open.entries.delete(id);
    open.sizes.delete(id);
  };
  for (const id of del) drop(id);
  for (const [id, value, size] of put) {
    drop(id);
    open.entries.set(id, value);
    open.sizes.set(id, size);
    open.live += size;
  }
}

/** `{"put":[` and `]}` and a newline: what a compacted log adds to an entry's JSON. */
const LINE = 11;

/** Write all of `bytes` at `position` (a write may be short). */
async function writeAll(file: Fs.FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < bytes.length; ) done += (await file.write(bytes, done, bytes.length - done, position + done)).bytesWritten;
}

/** Commits durable across a killed process: a JSON-lines log flushed to disk per commit. Node only. */
export class FileStorage<E extends StoredObject = StoredObject> implements OutboxStorage<E> {
  readonly durable = true;
  readonly path: string;
  #open: Promise<Open> | undefined;
  /** Commits, loads, compactions and the close run one at a time, in the order they were asked for. */
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** Set when a failed write could not be undone: the log's end is unknown, so nothing more is written. */
  #broken: unknown;
  #compactAt = 0;

  constructor(options: FileStorageOptions) {
    const path: unknown = options?.path;
    if (typeof path !== 'string' || path === '' || path.includes('\0')) throw new TypeError(`FileStorage: path must be a file name, got ${JSON.stringify(path) ?? String(path)}`);
    this.path = path;
  }

  load(): Promise<E[]> {
    return this.#run((open) =>
      [...open.entries].map(([id, value]) => {
        const entry: unknown = typeof value === 'string' ? JSON.parse(value) : value;
        if (typeof value !== 'string') open.entries.set(id, JSON.stringify(value));
        if (!isEntry<E>(entry)) throw new TypeError('FileStorage: not an entry');
        return entry;
      }),
    );
  }

  commit(change: StorageCommit<E>): Promise<void> {
    let put: [string, string, number][];
    let del: string[];
    let line: Uint8Array;
    try {
      // Serialised now: an entry changed after this call is stored as it was.
      put = (change.put ?? []).map((entry) => {
        if (!isEntry(entry)) throw new TypeError('FileStorage: commit() puts objects with a string id');
        const text = JSON.stringify(entry);
        return [entry.id, text, text.length + LINE];
      });
      del = [...(change.delete ?? [])];
      if (!del.every((id) => typeof id === 'string')) throw new TypeError('FileStorage: commit() deletes string ids');
      line = new TextEncoder().encode(`{"put":[${put.map(([, text]) => text).join(',')}],"delete":${JSON.stringify(del)}}\n`);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#run(async (open) => {
      if (this.#broken !== undefined) throw new OutboxError('unavailable', `FileStorage: ${this.path} could not be restored after a failed write`, { cause: this.#broken });
      try {
        await writeAll(open.file, line, open.size);
        await open.file.datasync();
      } catch (error) {
        await this.#undo(open);
        const code = errorCode(error);
        throw code === 'ENOSPC' || code === 'EDQUOT' ? new OutboxError('quota', `FileStorage: no space left for ${this.path}`, { cause: error }) : error;
      }
      open.size += line.length;
      apply(open, put, del);
      if (open.size > this.#compactAt && open.size > SLACK * open.live + 65536) void this.#run((o) => this.#compact(o)).catch(() => undefined);
    });
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    const opening = this.#open;
    const done = this.#queue.then(async () => {
      const open = await opening?.catch(() => undefined);
      if (!open) return;
      try {
        await open.file.close();
      } finally {
        await releaseLock(open.fs, open.lock);
      }
    });
    this.#queue = done.catch(() => undefined);
    return done;
  }

  /** Run `task` after everything asked for before it, opening the log first. */
  #run<T>(task: (open: Open) => T | Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new TypeError(`FileStorage: ${this.path} is closed`));
    // A storage that could not be opened (a live holder of the lock) tries again on the next call.
    const opening = (this.#open ??= this.#opening().catch((error: unknown) => {
      this.#open = undefined;
      throw error;
    }));
    const result = this.#queue.then(async () => task(await opening));
    this.#queue = result.catch(() => undefined);
    return result;
  }

  async #opening(): Promise<Open> {
    let fs: typeof Fs;
    let resolve: typeof Path.resolve;
    try {
      [fs, { resolve }] = await Promise.all([import(/* @vite-ignore */ /* webpackIgnore: true */ FS), import(/* @vite-ignore */ /* webpackIgnore: true */ PATH)]);
    } catch (error) {
      throw new OutboxError('unavailable', 'FileStorage needs Node (node:fs)', { cause: error });
    }
    const path = resolve(this.path);
    const lock = `${path}.lock`;
    try {
      await acquireLock(fs, lock, this.path);
    } catch (error) {
      throw error instanceof OutboxError ? error : new OutboxError('unavailable', `FileStorage: cannot lock ${this.path}`, { cause: error });
    }
    let file: Fs.FileHandle | undefined;
    try {
      // A compaction that a killed process left half done: the log itself is whole.
      await fs.rm(`${path}.tmp`, { force: true });
      file = await fs.open(path, fs.constants.O_RDWR | fs.constants.O_CREAT);
      const open: Open = { fs, file, size: 0, entries: new Map(), sizes: new Map(), live: 0, lock };
      await this.#read(open);
      await syncFolder(fs, path);
      if (open.size > SLACK * open.live + 65536) await this.#compact(open);
      return open;
    } catch (error) {
      await file?.close().catch(() => undefined);
      await releaseLock(fs, lock).catch(() => undefined);
      throw error instanceof OutboxError ? error : new OutboxError('unavailable', `FileStorage: cannot open ${this.path}`, { cause: error });
    }
  }

  /** Replay the log into `open.entries`; cut off a torn last line. */
  async #read(open: Open): Promise<void> {
    const { size } = await open.file.stat();
    const bytes = Buffer.alloc(size);
    for (let done = 0; done < size; ) {
      const { bytesRead } = await open.file.read(bytes, done, size - done, done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    const whole = bytes.lastIndexOf(NEWLINE) + 1;
    const lines = bytes.toString('utf8', 0, whole).split('\n');
    lines.pop();
    lines.forEach((line, index) => {
      const commit = parseLine(line);
      if (!commit) throw new OutboxError('unavailable', `FileStorage: ${this.path} line ${index + 1} is not a commit (the file is damaged)`);
      const size = line.length / Math.max(1, commit.put.length);
      apply(
        open,
        commit.put.map((entry) => [entry.id, entry, size]),
        commit.delete,
      );
    });
    open.size = whole;
    if (whole < size) {
      await open.file.truncate(whole);
      await open.file.datasync();
    }
  }

  /** After a failed write: cut the log back to its last whole commit, or stop writing if that fails. */
  async #undo(open: Open): Promise<void> {
    try {
      await open.file.truncate(open.size);
    } catch (error) {
      // A device that cannot be truncated (/dev/full) but was not written to is fine.
      const { size } = await open.file.stat().catch(() => ({ size: -1 }));
      if (size !== open.size) this.#broken = error;
    }
  }

  /** Write the live entries to `<path>.tmp`, flush it, and rename it over the log. */
  async #compact(open: Open): Promise<void> {
    const { fs } = open;
    const path = open.lock.slice(0, -'.lock'.length);
    const temp = `${path}.tmp`;
    const texts = [...open.entries.values()].map((value) => (typeof value === 'string' ? value : JSON.stringify(value)));
    const bytes = Buffer.from(texts.map((text) => `{"put":[${text}]}\n`).join(''));
    let file: Fs.FileHandle | undefined;
    try {
      file = await fs.open(temp, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_TRUNC);
      await writeAll(file, bytes, 0);
      await file.datasync();
      await fs.rename(temp, path);
    } catch {
      // No room for the copy: keep the log as it is, and try again when it has grown as much again.
      await file?.close().catch(() => undefined);
      await fs.rm(temp, { force: true }).catch(() => undefined);
      this.#compactAt = open.size * 2;
      return;
    }
    await open.file.close().catch(() => undefined);
    open.file = file;
    open.size = bytes.length;
    await syncFolder(fs, path);
  }
}

/** Flush the folder, so that a created or renamed file is found after a power cut (best effort: not every platform can). */
async function syncFolder(fs: typeof Fs, path: string): Promise<void> {
  const folder = path.slice(0, Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1) || '.';
  const handle = await fs.open(folder, 'r').catch(() => undefined);
  await handle?.sync().catch(() => undefined);
  await handle?.close().catch(() => undefined);
}
