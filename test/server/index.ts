// startTestServer: the project's fault-injecting REST test server (interface: API.md).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Context } from './conventions/context.js';
import { CONVENTIONS } from './conventions/index.js';
import { cors, exposeHeaders } from './cors.js';
import { FAULT_TYPES, FaultPlan } from './faults.js';
import { htmlReply, jsonReply, parseJson, Timers } from './http.js';
import { ScriptedRoutes, setHeader, toReply } from './scripted.js';
import { Store } from './store.js';
import type { Db, DbOf, Fault, RecordedRequest, Reply, ServerStats, TestServer, TestServerOptions } from './types.js';

export type * from './types.js';

const DEFAULT_STALL_MS = 10_000;

function emptyStats(): ServerStats {
  return { requests: 0, faulted: 0, faults: Object.fromEntries(FAULT_TYPES.map((type) => [type, 0])) as ServerStats['faults'] };
}

function copyResources(resources: object | undefined): Db {
  const db: Db = {};
  for (const [name, rows] of Object.entries(structuredClone(resources ?? {}) as Record<string, unknown>)) {
    if (!Array.isArray(rows)) throw new TypeError(`resources.${name} must be an array of records`);
    db[name] = rows as Db[string];
  }
  return db;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
    req.on('aborted', () => reject(new Error('aborted')));
  });
}

/** Prefixing (not resolving) keeps a path like '//users' a path instead of a host. */
function parseUrl(url: string): URL {
  try {
    return url.startsWith('/') ? new URL(`http://127.0.0.1${url}`) : new URL(url);
  } catch {
    return new URL('http://127.0.0.1/');
  }
}

function record(req: IncomingMessage, body: string): RecordedRequest {
  const url = req.url ?? '/';
  const parsed = parseUrl(url);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const json = body.trim() === '' ? undefined : parseJson(body);
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    url,
    path: parsed.pathname,
    query: parsed.searchParams,
    headers,
    body,
    json: json?.ok ? json.value : undefined,
  };
}

/** Drops the connection; a reset (RST) is what a crashed server or a proxy timeout looks like. */
function destroy(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket || socket.destroyed) return;
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

/** Writes a reply with an exact Content-Length; `truncate` sends only the first half of the body. */
function send(res: ServerResponse, reply: Reply, method: string, truncate = false): void {
  if (res.destroyed || res.headersSent) return;
  let body = Buffer.from(reply.body ?? '', 'utf8');
  if (truncate) body = body.subarray(0, Math.floor(body.length / 2));
  const headers = { ...reply.headers };
  // 204/304 carry no Content-Length unless the convention asks for one (Django sends 0).
  if (reply.status !== 304 && reply.status !== 204) setHeader(headers, 'Content-Length', String(body.length));
  exposeHeaders(res, headers);
  res.writeHead(reply.status, headers);
  res.end(method === 'HEAD' || reply.status === 204 || reply.status === 304 ? undefined : body);
}

function statusFaultReply(fault: Extract<Fault, { type: 'status' }>): Reply {
  const status = fault.status ?? 503;
  if (fault.body !== undefined) return toReply({ status, headers: fault.headers ?? {}, body: fault.body });
  return jsonReply(status, { message: `Injected ${status}` }, fault.headers ?? {});
}

export async function startTestServer<R extends object = Db>(options: TestServerOptions<R> = {}): Promise<TestServer<R>> {
  const convention = CONVENTIONS[options.conventions ?? 'plain'];
  if (!convention) throw new TypeError(`Unknown conventions: ${String(options.conventions)}`);
  const store = new Store(copyResources(options.resources), options.required ?? {}, options.fields ?? {});
  const requests: RecordedRequest[] = [];
  const stats = emptyStats();
  const faults = new FaultPlan();
  const scripted = new ScriptedRoutes();
  const timers = new Timers();
  const sockets = new Set<Socket>();
  const ctx: Context = { store, base: '', basePath: options.basePath ?? '', envelope: options.envelope ?? false, idempotency: new Map(), nested: options.nested };
  let closing: Promise<void> | undefined;

  /** What the server would answer: a scripted route, else the convention. undefined once closed. */
  async function answer(req: RecordedRequest): Promise<Reply | undefined> {
    const responder = scripted.take(req);
    if (responder) {
      const scriptedAnswer = typeof responder === 'function' ? await responder(req) : responder;
      if (scriptedAnswer.delayMs && !(await timers.sleep(scriptedAnswer.delayMs))) return undefined;
      return toReply(scriptedAnswer);
    }
    try {
      const { method, path, url, query, headers, body } = req;
      return convention({ method: method === 'HEAD' ? 'GET' : method, path, url, query, headers, body }, ctx);
    } catch (error) {
      return jsonReply(500, { message: error instanceof Error ? error.message : String(error) });
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const recorded = record(req, body);
    requests.push(recorded);
    stats.requests += 1;
    const fault = faults.take(recorded);
    if (fault) {
      recorded.fault = fault.type;
      stats.faulted += 1;
      stats.faults[fault.type] += 1;
    }
    const method = recorded.method;
    switch (fault?.type) {
      case undefined: {
        const reply = await answer(recorded);
        if (reply) send(res, reply, method);
        return;
      }
      case 'status':
        return send(res, statusFaultReply(fault), method);
      case 'html':
        return send(res, htmlReply(fault.status ?? 500), method);
      case 'reset-before':
        return destroy(res);
      case 'reset-after':
        await answer(recorded);
        return destroy(res);
      case 'stall':
        // Nothing is applied; the socket is dropped at the end so a stall is always bounded.
        await timers.sleep(fault.ms ?? DEFAULT_STALL_MS);
        return destroy(res);
      case 'delay': {
        if (!(await timers.sleep(fault.ms))) return;
        const reply = await answer(recorded);
        if (reply) send(res, reply, method);
        return;
      }
      case 'truncate': {
        const reply = await answer(recorded);
        if (reply) send(res, reply, method, true);
        return;
      }
      case 'duplicate': {
        // A duplicated delivery: the request is applied twice, the client sees the first answer.
        const reply = await answer(recorded);
        await answer(recorded);
        if (reply) send(res, reply, method);
        return;
      }
    }
  }

  const keepAlive = options.keepAlive ?? true;
  const server = createServer((req, res) => {
    res.on('error', () => undefined);
    // Node ends the connection after an answer that says so; the next request needs a new one.
    if (!keepAlive) res.setHeader('Connection', 'close');
    if (cors(req, res)) return;
    handle(req, res).catch(() => destroy(res));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('test server has no TCP address');
  const url = `http://127.0.0.1:${address.port}`;
  ctx.base = url;

  return {
    url,
    db: store.db as DbOf<R>,
    requests,
    stats,
    inject: (fault) => faults.inject(fault),
    respond: (method, path, responder, respondOptions) => scripted.add(method, path, responder, respondOptions?.times),
    chaos: (chaosOptions) => faults.chaos(chaosOptions),
    reset() {
      requests.length = 0;
      scripted.reset();
      faults.reset();
      Object.assign(stats, emptyStats());
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        timers.clear();
        server.close(() => resolve());
        // Keep-alive and stalled connections would keep close() waiting: drop them all now.
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
