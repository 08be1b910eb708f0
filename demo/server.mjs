// The demo server: one http server on 127.0.0.1 that serves the demo page (index.html, the
// bundled app.js, style.css) and, under /api, a json-server 0.17 over a copy of demo/db.json.
// `startDemo()` is what `npm start` (demo/start.mjs) and the tests call; the React and Vue
// examples (examples/) serve their built pages through it with `publicDir`.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleApp } from './bundle.mjs';
import { addOrderRoutes } from './orders.mjs';

const require = createRequire(import.meta.url);
const jsonServer = require('json-server');

const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));
export const DEMO_DB = fileURLToPath(new URL('./db.json', import.meta.url));

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The server's own rules for a user: what a real API would answer 422 for. */
function userErrors(user, partial = false) {
  const errors = {};
  if (typeof user !== 'object' || user === null || Array.isArray(user)) return { user: ['must be an object'] };
  // A PATCH (partial) is checked on the fields it sends.
  const given = (field) => !partial || Object.hasOwn(user, field);
  if (given('name') && (typeof user.name !== 'string' || user.name.trim() === '')) errors.name = ['is required'];
  if (given('email') && (typeof user.email !== 'string' || !EMAIL.test(user.email))) errors.email = ['must be an email address, like ann@example.com'];
  if (user.age !== undefined && user.age !== null && !(Number.isInteger(user.age) && user.age >= 0 && user.age <= 150)) {
    errors.age = ['must be a whole number from 0 to 150'];
  }
  return Object.keys(errors).length === 0 ? undefined : errors;
}

function describeErrors(errors) {
  return Object.entries(errors).map(([field, messages]) => `${field} ${messages.join(', ')}`).join('; ');
}

/**
 * Start the demo. Resolves once it listens, with its address and a `close()` that stops it and
 * deletes its temporary copy of the database.
 *
 * @param {{ port?: number, host?: string, logger?: boolean, db?: string, publicDir?: string }} [options]
 *   `publicDir`: serve the files of this directory as the page (a built app) instead of the demo's own.
 */
export async function startDemo(options = {}) {
  const { port = 3000, host = '127.0.0.1', logger = false, db = DEMO_DB, publicDir } = options;
  // The demo's page script is bundled only when the demo's page is served.
  const files = publicDir === undefined ? await bundleApp() : new Map();

  // Every run works on a copy: the repository's demo/db.json is never changed.
  const dir = mkdtempSync(join(tmpdir(), 'rest-proxy-demo-'));
  const dbFile = join(dir, 'db.json');
  copyFileSync(db, dbFile);

  const state = { failWrites: false };
  const app = jsonServer.create();
  const router = jsonServer.router(dbFile);
  const users = () => router.db.get('users');

  app.use(jsonServer.defaults({ noCors: false, logger, static: publicDir ?? PUBLIC_DIR }));

  // The bundled page script, from memory (the demo's own page).
  if (publicDir === undefined) {
    app.get([...files.keys()], (req, res) => {
      const file = files.get(req.path);
      res.type(file.type).set('Cache-Control', 'no-cache').send(file.text);
    });
  }

  // The demo's controls: simulate a failing server, reset the data.
  app.get('/demo/state', (req, res) => res.json(state));
  app.put('/demo/state', jsonServer.bodyParser, (req, res) => {
    if (typeof req.body?.failWrites !== 'boolean') {
      res.status(400).json({ message: 'expected { "failWrites": true | false }' });
      return;
    }
    state.failWrites = req.body.failWrites;
    res.json(state);
  });
  app.post('/demo/reset', (req, res) => {
    router.db.setState(JSON.parse(readFileSync(db, 'utf8'))).write();
    res.json({ users: users().size().value(), posts: router.db.get('posts').size().value() });
  });

  // `format: 'json'`: /api/users.json and /api/users/7.json reach the same routes (the `*`
  // keeps the query string, which the rewriter matches too).
  app.use(jsonServer.rewriter({
    '/api/users.json*': '/api/users$1',
    '/api/users/:id.json*': '/api/users/:id$2',
  }));

  app.use('/api', jsonServer.bodyParser);

  // A user's posts: json-server's nested route answers GET /api/users/7/posts; a post by id
  // (PUT, DELETE) lives at /api/posts/:id, and a POST on the nested route gets its userId as a
  // number (json-server's own nested POST would store the url's "7", a string).
  app.use((req, res, next) => {
    const [, userId, id] = req.path.match(/^\/api\/users\/(\d+)\/posts(?:\/(\d+))?\/?$/) ?? [];
    if (userId === undefined) return next();
    const query = req.url.slice(req.path.length);
    if (id !== undefined) req.url = `/api/posts/${id}${query}`;
    else if (req.method === 'POST' && typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)) {
      req.body.userId = Number(userId);
      req.url = `/api/posts${query}`;
    }
    next();
  });

  // "Simulate server failure": every write is answered 503; reads still work.
  app.use('/api', (req, res, next) => {
    if (!state.failWrites || !WRITE_METHODS.has(req.method)) return next();
    res.status(503).json({ message: 'the demo server is simulating a failure and refuses writes (turn "Simulate server failure" off and save again)' });
  });

  // Validation, as a real API would do it: 422 with the messages per field.
  app.use('/api/users', (req, res, next) => {
    if (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH') return next();
    const items = Array.isArray(req.body) ? req.body : [req.body];
    for (let i = 0; i < items.length; i++) {
      const errors = userErrors(items[i], req.method === 'PATCH');
      if (errors === undefined) continue;
      if (Array.isArray(req.body)) {
        res.status(422).json({ message: `user ${i + 1} of ${items.length} is not valid: ${describeErrors(errors)}; nothing was saved` });
      } else {
        res.status(422).json({ message: 'the user is not valid', errors });
      }
      return;
    }
    next();
  });

  app.use('/api/posts', (req, res, next) => {
    if ((req.method === 'POST' || req.method === 'PUT') && (typeof req.body?.title !== 'string' || req.body.title.trim() === '')) {
      res.status(422).json({ message: 'the post is not valid', errors: { title: ['is required'] } });
      return;
    }
    next();
  });

  // Batch endpoints, which json-server lacks: an array POSTed, PUT or DELETEd on the collection.
  app.use('/api/users', (req, res, next) => {
    if (req.path !== '/' || !Array.isArray(req.body)) return next();
    const items = req.body;
    if (req.method === 'POST') {
      const created = items.map((item) => {
        const { id: _ignored, ...data } = item;
        return users().insert(data).value();
      });
      router.db.write();
      res.status(201).json(created);
      return;
    }
    if (req.method !== 'PUT' && req.method !== 'DELETE') return next();
    const missing = items.find((item) => item?.id === undefined || users().getById(String(item.id)).value() === undefined);
    if (missing !== undefined) {
      res.status(404).json({ message: `there is no user with id ${JSON.stringify(missing?.id)}; nothing was changed` });
      return;
    }
    if (req.method === 'PUT') {
      const updated = items.map((item) => users().replaceById(String(item.id), item).value());
      router.db.write();
      res.json(updated);
    } else {
      for (const item of items) users().removeById(String(item.id)).value();
      router.db.write();
      res.json({});
    }
  });

  // A million orders computed on request, for the virtual grid of orders.html.
  addOrderRoutes(app);

  app.use('/api', router);

  const server = createServer(app);
  try {
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const address = server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : port;
  let closing;
  return {
    url: `http://${host}:${actualPort}/`,
    host,
    port: actualPort,
    dbFile,
    /** Make the server answer 503 to every write (true) or behave again (false). */
    setFailWrites(value) {
      state.failWrites = Boolean(value);
    },
    /** Stop listening, drop open connections, delete the temporary database. */
    close() {
      closing ??= new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).finally(() => rmSync(dir, { recursive: true, force: true }));
      return closing;
    },
  };
}
