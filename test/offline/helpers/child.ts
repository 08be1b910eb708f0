/**
 * Child processes for the crash tests: a TypeScript entry (which may import src/) bundled by
 * esbuild into one .mjs, run with `node`, talking to the parent in JSON lines on its stdout
 * (`report(message)` of ./report.ts in the child). The parent reads them as they come (`child.on`, `child.next`),
 * kills the child when it likes (SIGKILL: no handler, no flush, no exit hooks), and waits for it
 * to be gone. Used by the FileStorage kill loop; meant for the outbox's too (a child that writes
 * through an Outbox to a test server, killed after the server read a POST).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { build } from 'esbuild';

/** A message from a child: a JSON object with a `type`. */
export interface ChildMessage {
  readonly type: string;
  readonly [key: string]: unknown;
}

export interface Child {
  readonly pid: number;
  /** Calls `listener` with each message, synchronously as it is read (to kill the child right after one). */
  on(listener: (message: ChildMessage) => void): void;
  /** The next message of this type (the ones read before and not yet taken count), rejecting if the child exits first or after `timeoutMs`. */
  next(type: string, timeoutMs?: number): Promise<ChildMessage>;
  /** Every message read so far. */
  readonly messages: readonly ChildMessage[];
  /** What the child wrote to stderr. */
  readonly stderr: () => string;
  /** Send a signal (SIGKILL unless told). */
  kill(signal?: NodeJS.Signals): void;
  /** Resolves once the child has exited and its output has been read to the end. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The pid a lock file names (its first word: `<pid> <when that process started>`). */
export const lockPid = async (path: string): Promise<number> => Number((await readFile(`${path}.lock`, 'utf8')).split(/[ \n]/)[0]);

let work: Promise<string> | undefined;
const built = new Map<string, Promise<string>>();

/** Bundle `entry` (a path to a .ts file) for Node, once per test file; resolves to the .mjs path. */
export function bundleChild(entry: string): Promise<string> {
  let script = built.get(entry);
  if (!script) {
    work ??= mkdtemp(join(tmpdir(), 'rest-proxy-child-'));
    script = work.then(async (dir) => {
      const outfile = join(dir, `${basename(entry, '.ts')}.mjs`);
      await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, logLevel: 'error' });
      return outfile;
    });
    built.set(entry, script);
  }
  return script;
}

/** Remove the bundles (call in afterAll). */
export async function removeBundles(): Promise<void> {
  const dir = await work;
  work = undefined;
  built.clear();
  if (dir) await rm(dir, { recursive: true, force: true });
}

/** Run a bundled child script with `args`. */
export function startChild(script: string, args: readonly string[], env: Record<string, string> = {}): Child {
  const proc = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  if (proc.pid === undefined) throw new Error(`could not start ${script}`);
  const messages: ChildMessage[] = [];
  const listeners: ((message: ChildMessage) => void)[] = [];
  const waiting: { type: string; resolve: (message: ChildMessage) => void }[] = [];
  const taken = new Set<ChildMessage>();
  let rest = '';
  let errors = '';
  let gone = false;
  const failWaiting: ((error: Error) => void)[] = [];

  const deliver = (message: ChildMessage) => {
    messages.push(message);
    for (const listener of listeners) listener(message);
    const index = waiting.findIndex((wait) => wait.type === message.type);
    if (index >= 0) {
      taken.add(message);
      waiting[index]?.resolve(message);
    }
  };
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      const value: unknown = JSON.parse(line);
      if (typeof value === 'object' && value !== null && typeof Reflect.get(value, 'type') === 'string') deliver({ type: String(Reflect.get(value, 'type')), ...value });
    }
  });
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (chunk: string) => (errors += chunk));

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on('close', (code, signal) => {
      gone = true;
      for (const fail of failWaiting.splice(0)) fail(new Error(`the child exited (${signal ?? code}) first, after ${JSON.stringify(messages.at(-1))}: ${errors.slice(-2000)}`));
      resolve({ code, signal });
    });
  });

  return {
    pid: proc.pid,
    messages,
    stderr: () => errors,
    exited,
    on: (listener) => void listeners.push(listener),
    kill: (signal = 'SIGKILL') => void proc.kill(signal),
    next(type, timeoutMs = 10_000) {
      const ready = messages.find((message) => message.type === type && !taken.has(message));
      if (ready) {
        taken.add(ready);
        return Promise.resolve(ready);
      }
      if (gone) return Promise.reject(new Error(`the child exited before sending ${type}: ${errors.slice(-2000)}`));
      return new Promise((resolve, reject) => {
        const wait = {
          type,
          resolve: (message: ChildMessage) => {
            settle();
            resolve(message);
          },
        };
        const fail = (error: Error) => {
          settle();
          reject(error);
        };
        const timer = setTimeout(() => fail(new Error(`no ${type} from the child in ${timeoutMs} ms: ${errors.slice(-2000)}`)), timeoutMs);
        const settle = () => {
          clearTimeout(timer);
          if (waiting.includes(wait)) waiting.splice(waiting.indexOf(wait), 1);
          if (failWaiting.includes(fail)) failWaiting.splice(failWaiting.indexOf(fail), 1);
        };
        failWaiting.push(fail);
        waiting.push(wait);
      });
    },
  };
}
