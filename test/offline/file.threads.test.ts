/**
 * FileStorage across worker threads of one process: a log is held by one opener at a time, so of
 * two threads that open one log together, one opens it and the other gets OutboxError
 * 'unavailable' (the lock holds this process's pid: the other thread must not take it for a dead
 * process's); every commit that resolved is in the log.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FileStorage } from '../../src/offline.js';
import { bundleChild, removeBundles } from './helpers/child.js';

type Message = { type: string; id?: string; kind?: string; message?: string; name?: string };

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rest-proxy-threads-'));
});
afterAll(async () => {
  await removeBundles();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Run the worker on `path` until it says it is done (at most 15 s); its messages. It keeps the
 * log open until `release` resolves.
 */
function run(script: string, path: string, name: string, commits: number, release: Promise<unknown> = Promise.resolve()): { ready: Promise<void>; done: Promise<Message[]> } {
  const worker = new Worker(script, { workerData: { path, commits, name } });
  const messages: Message[] = [];
  let ready = (): void => undefined;
  const readied = new Promise<void>((resolve) => (ready = resolve));
  const done = new Promise<Message[]>((resolve, reject) => {
    const timer = setTimeout(() => void worker.terminate().then(() => reject(new Error(`${name} did not finish: ${JSON.stringify(messages)}`))), 15_000);
    worker.on('message', (message: Message) => {
      messages.push(message);
      if (message.type === 'committed') void release.then(() => worker.postMessage('close'));
      if (message.type === 'committed' || message.type === 'refused') ready();
      if (message.type === 'done') {
        clearTimeout(timer);
        void worker.terminate().then(() => resolve(messages));
      }
    });
    worker.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  return { ready: readied, done };
}

it('of two worker threads opening one log, one opens it and the other gets unavailable; no commit that resolved is lost', async () => {
  const script = await bundleChild(fileURLToPath(new URL('./helpers/fileStorageWorker.ts', import.meta.url)));
  for (let round = 0; round < 3; round++) {
    const path = join(dir, `log-${round}.jsonl`);
    // Both hold the log until both have committed or been refused.
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const runs = [run(script, path, 'a', 15, released), run(script, path, 'b', 15, released)];
    await Promise.all(runs.map((one) => one.ready));
    release();
    const [a = [], b = []] = await Promise.all(runs.map((one) => one.done));
    const opened = [a, b].filter((messages) => messages.some((message) => message.type === 'opened'));
    const refused = [a, b].flatMap((messages) => messages.filter((message) => message.type === 'refused'));
    expect(opened).toHaveLength(1);
    expect(refused).toEqual([expect.objectContaining({ kind: 'unavailable', message: expect.stringContaining(`in use by process ${process.pid}`) })]);
    const acked = [...a, ...b].flatMap((message) => (message.type === 'ack' && message.id !== undefined ? [message.id] : [])).sort();
    expect(acked).toHaveLength(15);
    const storage = new FileStorage({ path });
    const stored = (await storage.load()).map((entry) => entry.id).sort();
    await storage.close();
    expect(stored).toEqual(acked);
  }
});

it('a log a worker thread holds is refused to the main thread, and opens once the worker closed it', async () => {
  const script = await bundleChild(fileURLToPath(new URL('./helpers/fileStorageWorker.ts', import.meta.url)));
  const path = join(dir, 'main.jsonl');
  const main = new FileStorage({ path });
  await main.load();
  const worker = await run(script, path, 'w', 1).done;
  expect(worker.find((message) => message.type === 'refused')).toMatchObject({ kind: 'unavailable' });
  await main.close();
  expect(await run(script, path, 'w', 1).done).toContainEqual({ type: 'ack', id: 'w-0' });
});
