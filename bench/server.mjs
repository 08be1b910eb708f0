/**
 * The bench server: node:http on 127.0.0.1 (ephemeral port), run as a child process (fork).
 *
 *   GET  /users/<n>[.json][?...]  the pre-serialised array of n users (n in BENCH_SIZES)
 *   POST /users[.json]            an object or an array: answered 201 with the items plus ids
 *   GET  /static/<file>[?isolated] a file of BENCH_STATIC_DIR (the browser page and its bundles);
 *                                 ?isolated: with COOP and COEP, the page cross-origin isolated
 *   GET  /stats                   { connections, maxActive }: TCP connections accepted, most requests at once
 *   GET  /rows?start=&limit=      rows of a collection of 1,000,000, computed on request (X-Total-Count)
 *
 * It tells the parent its port over IPC ({ port }), and stops by itself when the parent goes
 * away (IPC disconnect, or the parent pid is gone) or after BENCH_SERVER_TTL_MS (default 10 min).
 */
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { makeUsers } from './data.mjs';

const sizes = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const staticDir = process.env.BENCH_STATIC_DIR;
const ttl = Number(process.env.BENCH_SERVER_TTL_MS ?? 600_000);
const parentPid = process.ppid;

const bodies = new Map();
for (const n of sizes) bodies.set(String(n), Buffer.from(JSON.stringify(makeUsers(n))));

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8' };
let nextId = 1_000_000;
/** The rows of GET /rows, computed on request. */
const ROWS = 1_000_000;

/** `isolated`: the page cross-origin isolated (Chromium's performance.now() then counts in 5 µs steps, not 100 µs). */
function send(res, status, body, type = 'application/json', isolated = false) {
  const isolation = isolated ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': body.length, 'Cache-Control': 'no-store', ...isolation });
  res.end(body);
}

let active = 0;
let maxActive = 0;
const server = createServer((req, res) => {
  active++;
  if (active > maxActive) maxActive = active;
  res.on('finish', () => active--);
  const path = (req.url ?? '/').split('?')[0];
  if (req.method === 'GET') {
    const users = /^\/users\/(\d+)(\.json)?$/.exec(path);
    if (users) {
      const body = bodies.get(users[1]);
      if (body) return send(res, 200, body);
      return send(res, 404, Buffer.from('{"message":"no such size"}'));
    }
    if (path.startsWith('/static/') && staticDir) {
      const file = normalize(join(staticDir, path.slice('/static/'.length)));
      if (!file.startsWith(staticDir)) return send(res, 403, Buffer.from('{}'));
      readFile(file).then(
        (content) => send(res, 200, content, TYPES[extname(file)] ?? 'application/octet-stream', /[?&]isolated\b/.test(req.url ?? '')),
        () => send(res, 404, Buffer.from('{"message":"not found"}')),
      );
      return undefined;
    }
    if (path === '/rows') {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      const start = Number(query.get('start') ?? 0);
      const end = Math.min(ROWS, start + Number(query.get('limit') ?? 100));
      const rows = [];
      for (let index = start; index < end; index++) rows.push({ id: index + 1, title: `Row ${index + 1}`, amount: index % 997 });
      res.setHeader('X-Total-Count', String(ROWS));
      return send(res, 200, Buffer.from(JSON.stringify(rows)));
    }
    if (path === '/stats') return send(res, 200, Buffer.from(JSON.stringify({ connections, maxActive })));
    return send(res, 404, Buffer.from('{"message":"not found"}'));
  }
  if (req.method === 'POST' && /^\/users(\.json)?$/.test(path)) {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      let data;
      try {
        data = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(res, 400, Buffer.from('{"message":"bad json"}'));
      }
      const withId = (item) => ({ ...item, id: nextId++ });
      const answer = Array.isArray(data) ? data.map(withId) : withId(data);
      return send(res, 201, Buffer.from(JSON.stringify(answer)));
    });
    return undefined;
  }
  return send(res, 405, Buffer.from('{"message":"method not allowed"}'));
});
let connections = 0;
server.on('connection', () => connections++);
server.keepAliveTimeout = 120_000;
server.headersTimeout = 121_000;

function stop() {
  server.close();
  server.closeAllConnections?.();
  process.exit(0);
}
process.on('disconnect', stop);
setTimeout(stop, ttl).unref();
setInterval(() => {
  try {
    process.kill(parentPid, 0);
  } catch {
    stop();
  }
}, 1000).unref();

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  if (process.send) process.send({ port });
  else console.log(`bench server on http://127.0.0.1:${port}`);
});
