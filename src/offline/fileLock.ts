/// <reference types="node" />
/**
 * The lock file beside a FileStorage's log: `<path>.lock` holds the pid of the process that has
 * the log open. A lock whose process is dead (SIGKILL, a crash) is taken over; one held by a live
 * process makes the opening reject with OutboxError 'unavailable' naming that pid. Node only:
 * the modules come from file.ts, which imports them when a FileStorage is opened.
 */
import type * as Fs from 'node:fs/promises';
import { OutboxError } from './errors.js';

/** The lock files this process holds (a second FileStorage on one path in one process is refused too). */
const held = new Set<string>();

export const errorCode = (error: unknown): unknown => (error instanceof Error && 'code' in error ? error.code : undefined);

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The pid in a lock file; undefined when it is gone, empty or unreadable (being written, or torn by a crash). */
async function holder(fs: typeof Fs, lock: string): Promise<number | null | undefined> {
  try {
    const text = await fs.readFile(lock, 'utf8');
    return /^\d+\n$/.test(text) ? Number(text.trim()) : undefined;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM'; // it exists, under another user
  }
}

/** Remove the lock `seen` was read from, if it still says that: one process at a time, under a short guard file. */
async function breakLock(fs: typeof Fs, lock: string, seen: number | undefined): Promise<void> {
  const guard = `${lock}.takeover`;
  try {
    await fs.writeFile(guard, '', { flag: 'wx' });
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
    // A guard older than a few seconds was left by a process that died holding it.
    const stat = await fs.stat(guard).catch(() => undefined);
    if (stat && Date.now() - stat.mtimeMs > 5000) await fs.rm(guard, { force: true });
    return pause(10);
  }
  try {
    if ((await holder(fs, lock)) === seen) await fs.rm(lock, { force: true });
  } finally {
    await fs.rm(guard, { force: true });
  }
}

/** Take `<path>.lock` for this process, or reject with OutboxError 'unavailable' naming the live holder. */
export async function acquireLock(fs: typeof Fs, lock: string, path: string): Promise<void> {
  let unreadableSince = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.writeFile(lock, `${process.pid}\n`, { flag: 'wx' });
      held.add(lock);
      return;
    } catch (error) {
      if (errorCode(error) !== 'EEXIST' || attempt > 200) throw error;
    }
    const pid = await holder(fs, lock);
    if (pid === null) continue;
    if (pid === undefined) {
      // Being written by a process that just created it, or left empty by one killed right then.
      unreadableSince ||= Date.now();
      if (Date.now() - unreadableSince < 500) {
        await pause(20);
        continue;
      }
    } else if (pid === process.pid ? held.has(lock) : alive(pid)) {
      // The same pid in a lock this process does not hold: left by an earlier process that had this pid (a restarted container).
      throw new OutboxError('unavailable', `FileStorage: ${path} is in use by process ${pid} (lock file ${lock})`);
    }
    await breakLock(fs, lock, pid);
  }
}

/** Let the lock go, if it is still ours. */
export async function releaseLock(fs: typeof Fs, lock: string): Promise<void> {
  held.delete(lock);
  if ((await holder(fs, lock).catch(() => undefined)) === process.pid) await fs.rm(lock, { force: true });
}
