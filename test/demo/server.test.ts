/**
 * The demo server (demo/server.mjs, started by `npm start` through demo/start.mjs), without a
 * browser: the page, the json-server API, the `.json` rewrites, the batch endpoints, the
 * simulated failure, and the start script's messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DB, startDemo, type Demo } from '../../demo/server.mjs';

const START = fileURLToPath(new URL('../../demo/start.mjs', import.meta.url));

interface User {
  id: number;
  name: string;
  email: string;
  age: number | null;
  active: boolean;
  created: string;
}

function digest(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

describe('the demo server', () => {
  let demo: Demo;
  const repoDb = digest(DEMO_DB);

  beforeAll(async () => {
    demo = await startDemo({ port: 0 });
  });

  afterAll(async () => {
    await demo?.close();
  });

  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; data: unknown }> {
    const response = await fetch(new URL(path, demo.url), {
      method,
      headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, data: text === '' ? undefined : JSON.parse(text) };
  }

  async function users(query: string): Promise<User[]> {
    const { status, data } = await call('GET', `/api/users${query}`);
    expect(status).toBe(200);
    return data as User[];
  }

  it('listens on 127.0.0.1, on a free port when asked for port 0', () => {
    expect(demo.host).toBe('127.0.0.1');
    expect(demo.port).toBeGreaterThan(0);
    expect(demo.url).toBe(`http://127.0.0.1:${demo.port}/`);
  });

  it('serves the page: index.html, the bundled app.js (with the library in it) and the CSS', async () => {
    const page = await fetch(demo.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('<script type="module" src="/app.js"></script>');
    expect(html).toContain('href="/style.css"');

    const script = await fetch(new URL('/app.js', demo.url));
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    const code = await script.text();
    // esbuild names each module it bundled: the library from src/, the page from demo/app/.
    expect(code).toContain('// src/proxy/RestProxy.ts');
    expect(code).toContain('// demo/app/main.ts');
    expect(code).not.toMatch(/^import /m); // one bundle, nothing left to resolve

    const css = await fetch(new URL('/style.css', demo.url));
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/text\/css/);
  });

  it('serves about 300 realistic users, paged by json-server with X-Total-Count', async () => {
    const { status, headers, data } = await call('GET', '/api/users?_page=2&_limit=20');
    expect(status).toBe(200);
    expect(headers.get('x-total-count')).toBe('300');
    const page = data as User[];
    expect(page.map((user) => user.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 21));
    for (const user of page) {
      expect(user).toEqual({
        id: expect.any(Number),
        name: expect.stringMatching(/^\S.* \S+$/),
        email: expect.stringMatching(/^[a-z0-9.-]+@[a-z.]+$/),
        age: expect.any(Number),
        active: expect.any(Boolean),
        created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
      });
    }
  });

  it('sorts and filters the json-server way (_sort/_order, name_like)', async () => {
    const sorted = await users('?_page=1&_limit=20&_sort=name&_order=asc');
    const names = sorted.map((user) => user.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const filtered = await users('?name_like=ann');
    expect(filtered.length).toBeGreaterThan(0);
    for (const user of filtered) expect(user.name).toMatch(/ann/i);
  });

  it("answers /api/users.json and /api/users/7.json like the same urls without '.json' (format: 'json')", async () => {
    const { headers, data } = await call('GET', '/api/users.json?_page=1&_limit=5&_sort=id&_order=desc');
    expect(headers.get('x-total-count')).toBe('300');
    expect((data as User[]).map((user) => user.id)).toEqual([300, 299, 298, 297, 296]);
    expect((await call('GET', '/api/users/7.json')).data).toEqual((await call('GET', '/api/users/7')).data);
    const created = await call('POST', '/api/users.json', { name: 'Json Format', email: 'json.format@example.com', age: 40, active: true });
    expect(created.status).toBe(201);
    const id = (created.data as User).id;
    expect((await call('PUT', `/api/users/${id}.json`, { id, name: 'Json Format 2', email: 'json.format@example.com', age: 41, active: true })).status).toBe(200);
    expect((await call('GET', `/api/users/${id}`)).data).toEqual(expect.objectContaining({ name: 'Json Format 2', age: 41 }));
    expect((await call('DELETE', `/api/users/${id}.json`)).status).toBe(200);
    expect((await call('GET', `/api/users/${id}`)).status).toBe(404);
  });

  it('has batch endpoints: an array POSTed, PUT or DELETEd on the collection', async () => {
    const created = await call('POST', '/api/users', [
      { name: 'Batch One', email: 'batch.one@example.com', age: 31, active: true },
      { name: 'Batch Two', email: 'batch.two@example.com', age: 32, active: false },
    ]);
    expect(created.status).toBe(201);
    const [one, two] = created.data as User[];
    expect(one).toEqual(expect.objectContaining({ id: expect.any(Number), name: 'Batch One' }));
    expect(two).toEqual(expect.objectContaining({ id: (one?.id ?? 0) + 1, name: 'Batch Two' }));
    expect((await call('GET', `/api/users/${two?.id}`)).data).toEqual(expect.objectContaining({ email: 'batch.two@example.com' }));

    const updated = await call('PUT', '/api/users.json', [
      { ...one, age: 41 },
      { ...two, age: 42 },
    ]);
    expect(updated.status).toBe(200);
    expect((updated.data as User[]).map((user) => user.age)).toEqual([41, 42]);
    expect((await call('GET', `/api/users/${one?.id}`)).data).toEqual(expect.objectContaining({ age: 41 }));

    // An unknown id: 404 and nothing changed.
    const missing = await call('PUT', '/api/users', [{ ...one, age: 99 }, { id: 999999, name: 'Nobody', email: 'no@example.com' }]);
    expect(missing.status).toBe(404);
    expect((await call('GET', `/api/users/${one?.id}`)).data).toEqual(expect.objectContaining({ age: 41 }));

    const removed = await call('DELETE', '/api/users', [{ id: one?.id }, { id: two?.id }]);
    expect(removed.status).toBe(200);
    expect((await call('GET', `/api/users/${one?.id}`)).status).toBe(404);
    expect((await call('GET', `/api/users/${two?.id}`)).status).toBe(404);
  });

  it('validates users like a real API: 422 with messages per field', async () => {
    const single = await call('POST', '/api/users', { name: ' ', email: 'not-an-email', age: 3.5 });
    expect(single.status).toBe(422);
    expect(single.data).toEqual({
      message: 'the user is not valid',
      errors: { name: ['is required'], email: [expect.stringMatching(/email address/)], age: [expect.stringMatching(/whole number/)] },
    });
    const batch = await call('POST', '/api/users', [{ name: 'Fine', email: 'fine@example.com' }, { name: '', email: 'x@example.com' }]);
    expect(batch.status).toBe(422);
    expect(batch.data).toEqual({ message: expect.stringMatching(/^user 2 of 2 is not valid: name is required; nothing was saved$/) });
    expect(await users('?name=Fine')).toEqual([]);
  });

  it('simulates a failing server: 503 to every write, reads still work, until it is turned off', async () => {
    demo.setFailWrites(true);
    try {
      const write = await call('PUT', '/api/users/1', { id: 1, name: 'X', email: 'x@example.com' });
      expect(write.status).toBe(503);
      expect(write.data).toEqual({ message: expect.stringMatching(/simulating a failure/) });
      expect((await call('POST', '/api/users', [{ name: 'A', email: 'a@example.com' }])).status).toBe(503);
      expect((await call('DELETE', '/api/users/1')).status).toBe(503);
      expect((await call('GET', '/api/users/1')).status).toBe(200);
      expect((await call('GET', '/demo/state')).data).toEqual({ failWrites: true });
    } finally {
      demo.setFailWrites(false);
    }
    // The page's switch uses the control endpoint.
    expect((await call('PUT', '/demo/state', { failWrites: true })).data).toEqual({ failWrites: true });
    expect((await call('DELETE', '/api/users/1')).status).toBe(503);
    expect((await call('PUT', '/demo/state', { failWrites: false })).data).toEqual({ failWrites: false });
    expect((await call('PUT', '/demo/state', { failWrites: 'yes' })).status).toBe(400);
  });

  it('checks a PATCH on the fields it sends: 422 for an empty name, 200 for a valid age alone', async () => {
    expect(await call('PATCH', '/api/users/6', { name: ' ' })).toMatchObject({ status: 422, data: { errors: { name: ['is required'] } } });
    expect(await call('PATCH', '/api/users/6', { age: 33 })).toMatchObject({ status: 200, data: { id: 6, age: 33 } });
  });

  it("serves a user's posts on json-server's nested route; a post by id under it too; a POST there gets a numeric userId", async () => {
    const listed = await call('GET', '/api/users/4/posts');
    expect(listed.status).toBe(200);
    const posts = listed.data as { id: number; userId: number; title: string }[];
    expect(posts.length).toBeGreaterThan(0);
    for (const post of posts) expect(post.userId).toBe(4);

    const created = await call('POST', '/api/users/4/posts', { title: 'Nested', userId: 99 });
    expect(created.status).toBe(201);
    const { id } = created.data as { id: number };
    expect(created.data).toEqual({ id, title: 'Nested', userId: 4 });
    expect((await call('PUT', `/api/users/4/posts/${id}`, { id, title: 'Renamed', userId: 4 })).data).toEqual({ id, title: 'Renamed', userId: 4 });
    expect((await call('GET', `/api/posts/${id}`)).data).toEqual({ id, title: 'Renamed', userId: 4 });
    expect((await call('DELETE', `/api/users/4/posts/${id}`)).status).toBe(200);
    expect((await call('GET', `/api/posts/${id}`)).status).toBe(404);
    expect((await call('POST', '/api/users/4/posts', { title: ' ' })).data).toEqual({ message: 'the post is not valid', errors: { title: ['is required'] } });
    expect((await call('GET', '/api/users/4/posts')).data).toEqual(posts);
  });

  it('resets its data on POST /demo/reset', async () => {
    expect((await call('DELETE', '/api/users/2')).status).toBe(200);
    expect((await call('GET', '/api/users/2')).status).toBe(404);
    expect((await call('POST', '/demo/reset')).data).toEqual({ users: 300, posts: 771 });
    expect((await call('GET', '/api/users/2')).status).toBe(200);
  });

  it('works on a temporary copy: demo/db.json is never changed, the copy goes with close()', async () => {
    expect(demo.dbFile).not.toBe(DEMO_DB);
    expect(existsSync(demo.dbFile)).toBe(true);
    expect(digest(DEMO_DB)).toBe(repoDb);
    const other = await startDemo({ port: 0 });
    await other.close();
    expect(existsSync(dirname(other.dbFile))).toBe(false);
  });
});

// ---- demo/start.mjs, as `npm start` runs it ----------------------------------------------------

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function startScript(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [START], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Run the script to its end, or kill it after `ms`. */
function finish(child: ChildProcess, ms = 15_000): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Wait for the printed address. */
function address(child: ChildProcess, ms = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no address printed within ${ms} ms: ${seen}`)), ms);
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /open (http:\/\/127\.0\.0\.1:\d+\/)/.exec(seen);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
}

describe('demo/start.mjs (npm start)', () => {
  let blocker: Server | undefined;

  afterAll(async () => {
    await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
  });

  it('with PORT=0, prints the address it listens on, serves the page, and stops on SIGTERM', async () => {
    const child = startScript({ PORT: '0' });
    const done = finish(child);
    try {
      const url = await address(child);
      expect(url).not.toBe('http://127.0.0.1:0/');
      const page = await fetch(url);
      expect(page.status).toBe(200);
      const api = await fetch(new URL('/api/users?_page=1&_limit=1', url));
      expect(api.headers.get('x-total-count')).toBe('300');
    } finally {
      child.kill('SIGTERM');
    }
    const outcome = await done;
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/SIGTERM: stopping the demo server/);
  });

  it('says in one line that a taken port is taken, and exits with code 1', async () => {
    blocker = createServer();
    const server = blocker;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const taken = server.address();
    const port = typeof taken === 'object' && taken !== null ? taken.port : 0;
    const outcome = await finish(startScript({ PORT: String(port) }));
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe('');
    const lines = outcome.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Port ${port} on 127\\.0\\.0\\.1 is already in use: .*PORT=0`));
    expect(outcome.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a PORT that is not a port number, in one line', async () => {
    const outcome = await finish(startScript({ PORT: 'http' }));
    expect(outcome.code).toBe(1);
    expect(outcome.stderr.trim()).toBe('PORT must be a port number from 0 to 65535 (0 picks a free one), got "http"');
  });
});
