/// <reference types="node" />
/**
 * The lock file beside a FileStorage's log: `<path>.lock` holds the pid of the process that has
 * the log open and when that process started (`<pid> <performance.timeOrigin>`). A lock whose
 * process is dead (SIGKILL, a crash) is taken over; one held by a live process, or by another
 * thread of this one (same pid, same start), makes the opening reject with OutboxError
 * 'unavailable' naming that pid. Node only: the modules come from file.ts, which imports them
 * when a FileStorage is opened.
 */
import type * as Fs from 'node:fs/promises';
import { OutboxError } from './errors.js';

/** The lock files this thread holds. */
const held = new Set<string>();

/** This process's start: the same in each of its worker threads, another in a later process that got this pid. */
const started = (): string => String(performance.timeOrigin);
/** What this process writes in a lock (read when a lock is taken: the module loads in browsers too). */
const mine = (): string => `${process.pid} ${started()}\n`;

export const errorCode = (error: unknown): unknown => (error instanceof Error && 'code' in error ? error.code : undefined);

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Holder {
  readonly pid: number;
  /** When it started (older locks hold only the pid). */
  readonly started: string | undefined;
  readonly text: string;
}

/** Who holds a lock file: null when it is gone, undefined when empty or unreadable (being written, or torn by a crash). */
async function holder(fs: typeof Fs, lock: string): Promise<Holder | null | undefined> {
  try {
    const text = await fs.readFile(lock, 'utf8');
    const match = /^(\d+)(?: ([\d.]+))?\n$/.exec(text);
    return match === null ? undefined : { pid: Number(match[1]), started: match[2], text };
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
}

/** Whether the lock's holder lives: another live process, or a thread of this one. */
function holds(found: Holder, lock: string): boolean {
  if (found.pid !== process.pid) return alive(found.pid);
  // This pid: a thread of this process, else an earlier process that had this pid (a restarted container).
  return held.has(lock) || found.started === started();
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
async function breakLock(fs: typeof Fs, lock: string, seen: string | undefined): Promise<void> {
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
    if ((await holder(fs, lock))?.text === seen) await fs.rm(lock, { force: true });
  } finally {
    await fs.rm(guard, { force: true });
  }
}

/** Take `<path>.lock` for this process, or reject with OutboxError 'unavailable' naming the live holder. */
export async function acquireLock(fs: typeof Fs, lock: string, path: string): Promise<void> {
  let unreadableSince = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.writeFile(lock, mine(), { flag: 'wx' });
      held.add(lock);
      return;
    } catch (error) {
      if (errorCode(error) !== 'EEXIST' || attempt > 200) throw error;
    }
    const found = await holder(fs, lock);
    if (found === null) continue;
    if (found === undefined) {
      // Being written by a process that just created it, or left empty by one killed right then.
      unreadableSince ||= Date.now();
      if (Date.now() - unreadableSince < 500) {
        await pause(20);
        continue;
      }
    } else if (holds(found, lock)) {
      throw new OutboxError('unavailable', `FileStorage: ${path} is in use by process ${found.pid}${found.pid === process.pid ? ' (this process)' : ''} (lock file ${lock})`);
    }
    await breakLock(fs, lock, found?.text);
  }
}

/** Let the lock go, if it is still ours. */
export async function releaseLock(fs: typeof Fs, lock: string): Promise<void> {
  if (!held.delete(lock)) return;
  if ((await holder(fs, lock).catch(() => undefined))?.text === mine()) await fs.rm(lock, { force: true });
}
