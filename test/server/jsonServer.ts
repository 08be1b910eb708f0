// startJsonServer: the REAL json-server 0.17.4 CLI in a child process, on a temp copy of a db.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface JsonServer<T extends object = Record<string, unknown>> {
  /** 'http://127.0.0.1:PORT' */
  url: string;
  /** the temp db file json-server reads and writes */
  dbFile: string;
  /** json-server's data (GET /db while running, the db file after close), typed as the db it started from */
  readDb(): Promise<T>;
  /** kills the child process and removes the temp file; safe to call twice */
  close(): Promise<void>;
}

const requireHere = createRequire(import.meta.url);
const BIN = join(dirname(requireHere.resolve('json-server/package.json')), 'lib', 'cli', 'bin.js');
const WATCHDOG = new URL('./json-server-watchdog.mjs', import.meta.url).href;
const START_ATTEMPTS = 5;
const READY_TIMEOUT_MS = 10_000;
const KILL_GRACE_MS = 2_000;

// Children still running, with their temp dirs: killed and removed if the test process exits.
const live = new Map<ChildProcess, string>();
let exitHooked = false;

function hookProcessExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const [child, dir] of live) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** A port that was free a moment ago (json-server may still lose the race: we retry). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** setTimeout as a promise that is always cleared (no timer outlives its wait). */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function stop(child: ChildProcess): Promise<void> {
  if (exited(child)) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const stopWaiting = new AbortController();
  await Promise.race([gone, pause(KILL_GRACE_MS, stopWaiting.signal)]);
  stopWaiting.abort();
  if (!exited(child)) {
    child.kill('SIGKILL');
    await gone;
  }
}

/** Polls GET / until json-server answers, the child dies, or the time is up. */
async function waitUntilReady(url: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && !exited(child)) {
    const attempt = new AbortController();
    const timer = setTimeout(() => attempt.abort(), 1000);
    try {
      const response = await fetch(`${url}/`, { signal: attempt.signal });
      await response.arrayBuffer();
      if (response.ok) return true;
    } catch {
      // not listening yet
    } finally {
      clearTimeout(timer);
    }
    await pause(50);
  }
  return false;
}

export async function startJsonServer<T extends object>(db: T): Promise<JsonServer<T>> {
  const dir = await mkdtemp(join(tmpdir(), 'rest-proxy-json-server-'));
  const dbFile = join(dir, 'db.json');
  await writeFile(dbFile, JSON.stringify(db, null, 2));
  hookProcessExit();
  let log = '';
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt += 1) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // cwd = the temp dir, so json-server finds no ./public or snapshots of the project.
    const child = spawn(process.execPath, ['--import', WATCHDOG, BIN, dbFile, '--host', '127.0.0.1', '--port', String(port)], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_UPDATE_NOTIFIER: '1', FORCE_COLOR: '0' },
    });
    live.set(child, dir);
    const collect = (chunk: Buffer): void => {
      log = (log + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.on('error', (error) => collect(Buffer.from(String(error))));
    if (await waitUntilReady(url, child)) {
      let closing: Promise<void> | undefined;
      return {
        url,
        dbFile,
        // json-server saves the file asynchronously after answering (lowdb FileAsync), so while it
        // runs, its GET /db is the up-to-date state; once closed, the file is all there is.
        readDb: async () => {
          if (!closing && !exited(child)) {
            const response = await fetch(`${url}/db`);
            if (response.ok) return (await response.json()) as T;
          }
          return JSON.parse(await readFile(dbFile, 'utf8')) as T;
        },
        close: () =>
          (closing ??= (async () => {
            await stop(child);
            live.delete(child);
            await rm(dir, { recursive: true, force: true });
          })()),
      };
    }
    await stop(child);
    live.delete(child);
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`json-server did not start after ${START_ATTEMPTS} attempts:\n${log}`);
}
