// globalSetup of vitest.browser.config.ts, run in Node: a small HTTP API on 127.0.0.1 through which
// the browser tests (remote.ts) start and drive real test servers. Teardown closes every one of them.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { TestProject } from 'vitest/node';
import { encode, reviver, type HubCall, type WireRequest } from './hubProtocol.js';
import { startTestServer } from './index.js';
import { sameId } from './store.js';
import type { Db, RecordedRequest, Row, ScriptedAnswer, ScriptedRoute, TestServer } from './types.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The hub's url ('http://127.0.0.1:PORT'), read by remote.ts. */
    testServerHub: string;
  }
}

interface Entry {
  server: TestServer;
  routes: Map<number, ScriptedRoute>;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A function given to `server.respond()` in the browser, rebuilt from its source. It runs here in
 * Node, so it can only use its argument: a variable of the test would be undefined (answered as a 500).
 */
function makeResponder(source: string): (req: RecordedRequest) => Promise<ScriptedAnswer> {
  const fn: unknown = new Function(`return (${source});`)();
  return async (req) => {
    try {
      if (typeof fn !== 'function') throw new TypeError(`not a function: ${source}`);
      return await fn(req);
    } catch (error) {
      return { status: 500, body: { message: `respond(): the function failed in the hub (functions run in Node and must be self-contained): ${message(error)}` } };
    }
  };
}

/** Replaces a collection; a row whose id is already stored is updated in place, so it keeps its ETag version. */
function setRows(db: Db, collection: string, rows: Row[] | null): void {
  if (rows === null) {
    delete db[collection];
    return;
  }
  const old = db[collection] ?? [];
  const next = rows.map((row) => {
    const same = old.find((candidate) => sameId(candidate['id'], row['id']));
    if (!same) return row;
    for (const key of Object.keys(same)) delete same[key];
    return Object.assign(same, row);
  });
  old.splice(0, old.length, ...next);
  db[collection] = old;
}

function wireRequest(request: RecordedRequest): WireRequest {
  return { ...request, query: [...request.query] };
}

function readText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const servers = new Map<number, Entry>();
  let lastId = 0;

  function entry(id: number): Entry {
    const found = servers.get(id);
    if (!found) throw new Error(`no test server ${id} (closed already?)`);
    return found;
  }

  async function run(call: HubCall): Promise<unknown> {
    if (call.op === 'start') {
      // No keep-alive unless the test asks for it: Chromium silently re-sends a request whose reused
      // connection is dropped before any answer (or that is answered 408), which would use up injected
      // faults and deliver writes twice. On a new connection it never does (see types.ts, keepAlive).
      const server = await startTestServer({ keepAlive: false, ...call.options });
      lastId += 1;
      servers.set(lastId, { server, routes: new Map() });
      return { id: lastId, url: server.url };
    }
    if (call.op === 'close') {
      // Closing twice is allowed, as with the Node server.
      const found = servers.get(call.id);
      servers.delete(call.id);
      await found?.server.close();
      return null;
    }
    const { server, routes } = entry(call.id);
    switch (call.op) {
      case 'db':
        return server.db;
      case 'requests':
        return server.requests.map(wireRequest);
      case 'stats':
        return server.stats;
      case 'reset':
        server.reset();
        return null;
      case 'setRows':
        setRows(server.db, call.collection, call.rows);
        return null;
      case 'inject':
        server.inject(call.fault);
        return null;
      case 'respond': {
        const route = server.respond(call.method, call.path, call.answer, { times: call.times });
        lastId += 1;
        routes.set(lastId, route);
        return { route: lastId };
      }
      case 'routeCalls':
        return routes.get(call.route)?.calls ?? 0;
      case 'removeRoute':
        routes.get(call.route)?.remove();
        return null;
      case 'chaos':
        server.chaos(call.options);
        return null;
    }
  }

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // remote.ts posts text/plain: a simple request, so the browser sends no preflight.
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method !== 'POST') {
      res.writeHead(204).end();
      return;
    }
    let status = 200;
    let body: string;
    try {
      const call: HubCall = JSON.parse(await readText(req), reviver(makeResponder));
      body = encode({ value: (await run(call)) ?? null });
    } catch (error) {
      status = 500;
      body = encode({ error: message(error) });
    }
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(body);
  }

  const hub = createServer((req, res) => void answer(req, res));
  await new Promise<void>((resolve, reject) => {
    hub.once('error', reject);
    hub.listen(0, '127.0.0.1', () => resolve());
  });
  hub.unref(); // never what keeps the vitest process alive
  const address = hub.address();
  if (!address || typeof address === 'string') throw new Error('the test server hub has no TCP address');
  project.provide('testServerHub', `http://127.0.0.1:${address.port}`);

  return async () => {
    const left = [...servers.values()];
    servers.clear();
    if (left.length > 0) console.warn(`test server hub: closing ${left.length} test server(s) left open by the tests`);
    await Promise.all(left.map(({ server }) => server.close()));
    await new Promise<void>((resolve) => {
      hub.close(() => resolve());
      hub.closeAllConnections();
    });
  };
}
