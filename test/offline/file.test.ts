/**
 * FileStorage beyond the shared contract (storage.suite.ts): the log on disk, a torn last line,
 * a damaged one, compaction, the lock file against a second process and its takeover, a full disk.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FileStorage, OutboxError } from '../../src/offline.js';
import type { StoredObject } from '../../src/offline.js';
import { bundleChild, lockPid, removeBundles, startChild } from './helpers/child.js';

let dir = '';
let n = 0;
const opened: FileStorage[] = [];
/** A new log path in the test folder. */
const newPath = () => join(dir, `log-${++n}.jsonl`);
const storageAt = (path: string) => {
  const storage = new FileStorage({ path });
  opened.push(storage);
  return storage;
};
const ids = (entries: readonly StoredObject[]) => entries.map((entry) => entry.id).sort();
const rejection = async (promise: Promise<unknown>): Promise<unknown> => promise.then(() => new Error('it resolved'), (error: unknown) => error);
/** A pid that no process has now: one of a child that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid ?? 999_999;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rest-proxy-file-'));
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((storage) => storage.close().catch(() => undefined)));
});
afterAll(async () => {
  await removeBundles();
  await rm(dir, { recursive: true, force: true });
});

describe('FileStorage', () => {
  it('refuses a path that is not a file name, at construction', () => {
    for (const path of [undefined, '', 42, 'a\0b', null]) {
      expect(() => new FileStorage({ path: path as string })).toThrow(/FileStorage: path must be a file name/);
    }
  });

  it('writes one JSON line per commit, durable: true', async () => {
    const path = newPath();
    const storage = storageAt(path);
    expect(storage.durable).toBe(true);
    await storage.commit({ put: [{ id: 'a', v: 1 }] });
    await storage.commit({ put: [{ id: 'b', v: 'two\nlines' }], delete: ['a'] });
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines).toEqual(['{"put":[{"id":"a","v":1}],"delete":[]}', '{"put":[{"id":"b","v":"two\\nlines"}],"delete":["a"]}', '']);
  });

  it('ignores a torn last line (a process killed mid-write) and cuts it off, so that the next commit is read back', async () => {
    const path = newPath();
    const whole = '{"put":[{"id":"a","v":1}],"delete":[]}\n{"put":[{"id":"b","v":1}],"delete":[]}\n';
    await writeFile(path, `${whole}{"put":[{"id":"c","v":1},{"id":"d","v":"é`);
    const storage = storageAt(path);
    expect(ids(await storage.load())).toEqual(['a', 'b']);
    expect(await readFile(path, 'utf8')).toBe(whole);
    await storage.commit({ put: [{ id: 'e', v: 1 }] });
    await storage.close();
    expect(ids(await storageAt(path).load())).toEqual(['a', 'b', 'e']);
  });

  it.each(['not json', '[]', 'null', '"text"', '{"put":[{"no id":1}]}', '{"put":[{"id":7}]}', '{"put":{"id":"a"}}', '{"put":[["id"]]}', '{"delete":[1]}', '{"delete":"a"}'])(
    'refuses a log damaged before its last line (%s) with OutboxError unavailable naming the line, and leaves the file as it is',
    async (damaged) => {
      const path = newPath();
      const text = `{"put":[{"id":"a"}],"delete":[]}\n${damaged}\n{"put":[{"id":"b"}],"delete":[]}\n`;
      await writeFile(path, text);
      const error = await rejection(storageAt(path).load());
      expect(error).toBeInstanceOf(OutboxError);
      expect(error).toMatchObject({ kind: 'unavailable', message: expect.stringContaining('line 2') });
      expect(await readFile(path, 'utf8')).toBe(text);
    },
  );

  it('lets go of the lock of a damaged log, so that it opens once repaired', async () => {
    const path = newPath();
    await writeFile(path, 'damaged\n');
    await expect(storageAt(path).load()).rejects.toMatchObject({ kind: 'unavailable' });
    expect(existsSync(`${path}.lock`)).toBe(false);
    // Its lock was let go: once the file is repaired, it opens.
    await writeFile(path, '{"put":[{"id":"a"}],"delete":[]}\n');
    expect(ids(await storageAt(path).load())).toEqual(['a']);
  });

  it('compacts a log that grew past a few times what it holds: a temp file beside it, renamed over it', async () => {
    const path = newPath();
    const storage = storageAt(path);
    await storage.commit({ put: [{ id: 'keep', v: 'k'.repeat(1000) }] });
    let largest = 0;
    for (let v = 0; v < 150; v++) {
      await storage.commit({ put: [{ id: 'hot', v, pad: 'p'.repeat(2000) }], delete: v % 2 ? [`gone${v - 1}`] : [] });
      if (v % 2 === 0) await storage.commit({ put: [{ id: `gone${v}` }] });
      largest = Math.max(largest, (await stat(path)).size);
    }
    // 225 commits, 300 KB, never made a log over 64 KiB + 4 x the 3.2 KB it holds + one line.
    expect(largest).toBeLessThan(65_536 + 4 * 3200 + 2100);
    expect(existsSync(`${path}.tmp`)).toBe(false);
    const expected = [{ id: 'hot', v: 149, pad: 'p'.repeat(2000) }, { id: 'keep', v: 'k'.repeat(1000) }];
    expect(await storage.load()).toEqual(expect.arrayContaining(expected));
    expect(await storage.load()).toHaveLength(2);
    // Commits after a compaction go to the new file.
    await storage.commit({ put: [{ id: 'after' }] });
    await storage.close();
    expect(ids(await storageAt(path).load())).toEqual(['after', 'hot', 'keep']);
  });

  it('removes a temp file left by a compaction that was killed, and keeps the log', async () => {
    const path = newPath();
    await writeFile(path, '{"put":[{"id":"a"}],"delete":[]}\n');
    await writeFile(`${path}.tmp`, '{"put":[{"id":"half');
    expect(ids(await storageAt(path).load())).toEqual(['a']);
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });

  it('refuses a second storage on the same file in this process with OutboxError unavailable naming the pid, until the first is closed', async () => {
    const path = newPath();
    const first = storageAt(path);
    await first.commit({ put: [{ id: 'a' }] });
    expect(await lockPid(path)).toBe(process.pid);
    const second = storageAt(path);
    const error = await rejection(second.load());
    expect(error).toBeInstanceOf(OutboxError);
    expect(error).toMatchObject({ kind: 'unavailable', message: expect.stringContaining(`in use by process ${process.pid}`) });
    await expect(second.commit({ put: [{ id: 'b' }] })).rejects.toMatchObject({ kind: 'unavailable' });
    await first.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
    // The same storage tries again on its next call.
    expect(ids(await second.load())).toEqual(['a']);
  });

  it('refuses a file another live process has open, naming its pid; takes it over once that process is killed', async () => {
    const path = newPath();
    const script = await bundleChild(fileURLToPath(new URL('./helpers/fileStorageChild.ts', import.meta.url)));
    const child = startChild(script, ['hold', path]);
    try {
      await child.next('loaded');
      const storage = storageAt(path);
      const error = await rejection(storage.load());
      expect(error).toBeInstanceOf(OutboxError);
      expect(error).toMatchObject({ kind: 'unavailable', message: expect.stringContaining(`in use by process ${child.pid}`) });
      child.kill('SIGKILL');
      await child.exited;
      expect(await lockPid(path)).toBe(child.pid);
      expect(await storage.load()).toEqual([]);
      expect(await lockPid(path)).toBe(process.pid);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('lets exactly one of two processes that start together take over a dead process\'s lock', async () => {
    const script = await bundleChild(fileURLToPath(new URL('./helpers/fileStorageChild.ts', import.meta.url)));
    for (let round = 0; round < 3; round++) {
      const path = newPath();
      await writeFile(path, '{"put":[{"id":"a"}],"delete":[]}\n');
      await writeFile(`${path}.lock`, `${deadPid()}\n`);
      const children = [startChild(script, ['hold', path]), startChild(script, ['hold', path])];
      try {
        const bothOpen = new Promise<undefined>((resolve) => setTimeout(resolve, 8000));
        const loser = await Promise.race([bothOpen, ...children.map((child) => child.exited.then(() => child))]);
        if (!loser) throw new Error(`both processes opened the file: ${JSON.stringify(children.map((child) => child.messages))}`);
        const winner = children.find((child) => child !== loser);
        expect(loser.messages.at(-1)).toMatchObject({ type: 'error', kind: 'unavailable', message: expect.stringContaining(`in use by process ${winner?.pid}`) });
        expect(await winner?.next('loaded')).toMatchObject({ count: 1 });
        expect(await lockPid(path)).toBe(winner?.pid);
      } finally {
        for (const child of children) child.kill();
      }
    }
  });

  it('takes over a lock left by a dead process, by an earlier process with this pid (a restarted container), or left empty', async () => {
    for (const holder of [`${deadPid()}\n`, `${process.pid}\n`, `${process.pid} ${performance.timeOrigin - 60_000}\n`, '']) {
      const path = newPath();
      await writeFile(path, '{"put":[{"id":"a"}],"delete":[]}\n');
      await writeFile(`${path}.lock`, holder);
      const storage = storageAt(path);
      expect(ids(await storage.load())).toEqual(['a']);
      expect(await lockPid(path)).toBe(process.pid);
      await storage.close();
    }
  });

  it('rejects with OutboxError unavailable when the file cannot be opened (a folder, a missing folder)', async () => {
    const folder = join(dir, `folder-${++n}`);
    await mkdir(folder);
    for (const path of [folder, join(dir, 'missing', 'log.jsonl')]) {
      const error = await rejection(storageAt(path).load());
      expect(error).toBeInstanceOf(OutboxError);
      expect(error).toMatchObject({ kind: 'unavailable' });
    }
  });

  it.runIf(existsSync('/dev/full'))('rejects a commit the disk has no room for with OutboxError quota, and applies nothing of it', async () => {
    // /dev/full: every write fails with ENOSPC, as on a full disk.
    const path = join(dir, `full-${++n}.jsonl`);
    await symlink('/dev/full', path);
    const storage = storageAt(path);
    expect(await storage.load()).toEqual([]);
    const error = await rejection(storage.commit({ put: [{ id: 'a' }] }));
    expect(error).toBeInstanceOf(OutboxError);
    expect(error).toMatchObject({ kind: 'quota', cause: expect.objectContaining({ code: 'ENOSPC' }) });
    expect(await storage.load()).toEqual([]);
  });

  it('opens the log on a commit made before any load, cutting a torn line off first', async () => {
    const path = newPath();
    const storage = storageAt(path);
    await storage.commit({ put: [{ id: 'a' }] });
    await storage.close();
    await appendFile(path, '{"put":[{"id":"torn"');
    const again = storageAt(path);
    await again.commit({ put: [{ id: 'b' }] });
    await again.close();
    expect(ids(await storageAt(path).load())).toEqual(['a', 'b']);
  });
});
