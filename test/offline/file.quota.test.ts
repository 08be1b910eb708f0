/**
 * A disk that fills up in the middle of a commit's line: the write stores part of it, then fails
 * with ENOSPC (or EDQUOT, over a quota). The commit rejects with OutboxError 'quota', the part
 * written is cut off, and the storage goes on. node:fs/promises is wrapped for this file only.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { FileStorage, OutboxError } from '../../src/offline.js';

/** The error code the next write fails with, after writing half its bytes; none when undefined. */
const fault: { code: string | undefined } = vi.hoisted(() => ({ code: undefined }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const open = async (...args: Parameters<typeof fs.open>): Promise<FileHandle> => {
    const handle = await fs.open(...args);
    const write = handle.write.bind(handle);
    return new Proxy(handle, {
      get(target, key) {
        if (key !== 'write') return Reflect.get(target, key, target);
        return async (buffer: Uint8Array, offset: number, length: number, position: number) => {
          const code = fault.code;
          if (code === undefined) return write(buffer, offset, length, position);
          fault.code = undefined;
          await write(buffer, offset, Math.floor(length / 2), position);
          throw Object.assign(new Error(`${code}: no space left on device, write`), { code });
        };
      },
    });
  };
  return { ...fs, default: { ...fs, open }, open };
});

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rest-proxy-quota-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

it.each(['ENOSPC', 'EDQUOT'])('a commit the disk fills up in the middle of (%s) rejects with OutboxError quota, and nothing of it stays', async (code) => {
  const path = join(dir, `${code}.jsonl`);
  const storage = new FileStorage({ path });
  await storage.commit({ put: [{ id: 'a', v: 1 }] });
  const before = await readFile(path, 'utf8');
  fault.code = code;
  const error = await storage.commit({ put: [{ id: 'a', v: 2 }, { id: 'b', v: 'x'.repeat(1000) }], delete: ['c'] }).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(OutboxError);
  expect(error).toMatchObject({ kind: 'quota', cause: expect.objectContaining({ code }) });
  expect(await readFile(path, 'utf8')).toBe(before);
  expect(await storage.load()).toEqual([{ id: 'a', v: 1 }]);
  // Room again: the next commit is stored, and read back by the next process.
  await storage.commit({ put: [{ id: 'd' }] });
  await storage.close();
  const again = new FileStorage({ path });
  expect(await again.load()).toEqual([{ id: 'a', v: 1 }, { id: 'd' }]);
  await again.close();
});
