/**
 * The package in a production build: the app of test/build/app, importing 'rest-proxy' and
 * 'rest-proxy/presets' as a user's app does, is bundled four ways (esbuild --minify for Node and
 * for the browser; Vite's production build for the browser, and its SSR build, minified, for
 * Node) from the package as it ships (its package.json, and dist/ compiled by tsc with
 * tsconfig.build.json, as `npm run build` does), then run in Node and in headless Chromium against
 * a server of every preset: the project's test server speaking that framework's conventions, the
 * real json-server for 'json-server'.
 *
 * Minifiers rename classes: whatever reaches the wire or a message from a class name breaks only
 * there. The app's models are not named like their resources (`LocalUser` for `/users`), so this
 * checks the requests (paths, methods, bodies: Rails' `{"user": ...}`, JSON:API's
 * `{"data": {"type": "users", ...}}`), the server's data, the client ids and the messages; that the
 * minifier did rename the classes; and that the presets module, the package's one side effect,
 * survived tree-shaking (with a control: the same bundles from a package whose sideEffects leaves
 * it out lose it). Two mistakes refused before anything is sent (a bare ServerProxy as the proxy,
 * a record passed as an id) check that those messages name no minified class either.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as esbuild } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { build as viteBuild, type InlineConfig, type Rollup } from 'vite';
import { buildProduction } from '../../tools/production.mjs';
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { startJsonServer } from '../server/jsonServer.js';
import { compiledPackage } from './compiled.js';
import { startTestServer, type TestServer } from '../server/index.js';
import type { PresetName as ServerConventions } from '../presets/fixtures.js';

// ---- the data and what each preset sends ---------------------------------------------------

interface UserRow {
  id: number;
  name: string;
  email: string;
  age: number;
}

interface CategoryRow {
  id: number;
  title: string;
}

interface Db {
  users: UserRow[];
  categories: CategoryRow[];
}

const USERS: UserRow[] = [
  { id: 1, name: 'Ed', email: 'ed@example.com', age: 30 },
  { id: 2, name: 'Alice', email: 'alice@example.com', age: 25 },
  { id: 3, name: 'Bob', email: 'bob@example.com', age: 41 },
  { id: 4, name: 'Ed', email: 'ed4@example.com', age: 22 },
  { id: 5, name: 'Carol', email: 'carol@example.com', age: 25 },
  { id: 6, name: 'Eddie', email: 'eddie@example.com', age: 30 },
  { id: 7, name: 'Ed', email: 'ed7@example.com', age: 35 },
];
const CATEGORIES: CategoryRow[] = [{ id: 1, title: 'Books' }];

/** What the app writes (test/build/app/scenario.ts). */
const ZED = { name: 'Zed', email: 'zed@example.com', age: 41 };
const ROOT = { name: 'Root', email: 'root@example.com', age: 50 };
const TOOLS = { title: 'Tools' };
/** Ids the servers assign: the highest id plus one. */
const ZED_ID = 8;
const ROOT_ID = 9;
const TOOLS_ID = 2;

type Preset = 'json-server' | ServerConventions;
type Body = Record<string, unknown>;

interface Conventions {
  preset: Preset;
  /** the page request (path and query; `<now>` for the cache buster) for page 1 of 2, sorted by name DESC then age ASC, filtered on name = 'Ed' */
  list: string;
  /** whether that server applies the sort and the filter */
  sortApplied: boolean;
  filterApplied: boolean;
  collection: (resource: string) => string;
  item: (resource: string, id: number) => string;
  updateMethod: 'PUT' | 'PATCH';
  mediaType: string;
  createBody: (resource: string, fields: Body) => Body;
  /** `full`: every field and the id; `changes`: the changed fields */
  updateBody: (resource: string, id: number, full: Body, changes: Body) => Body;
  /** the status of a validation error; undefined where the server validates nothing */
  validationStatus: number | undefined;
}

const RAILS_ROOT: Record<string, string> = { users: 'user', categories: 'category' };

/** What most presets share: no trailing slash, PUT with every field, bodies as they are. */
const bare: Pick<Conventions, 'collection' | 'item' | 'updateMethod' | 'mediaType' | 'createBody' | 'updateBody'> = {
  collection: (resource) => `/${resource}`,
  item: (resource, id) => `/${resource}/${id}`,
  updateMethod: 'PUT',
  mediaType: 'application/json',
  createBody: (_resource, fields) => fields,
  updateBody: (_resource, _id, full) => full,
};

const PRESETS: Conventions[] = [
  {
    ...bare,
    preset: 'json-server',
    list: '/users?_page=1&_limit=2&_sort=name%2Cage&_order=desc%2Casc&name=Ed',
    sortApplied: true,
    filterApplied: true,
    validationStatus: undefined,
  },
  {
    ...bare,
    preset: 'django-rest',
    list: '/users/?page=1&page_size=2&ordering=-name%2Cage&name=Ed',
    sortApplied: true,
    filterApplied: true,
    collection: (resource) => `/${resource}/`,
    item: (resource, id) => `/${resource}/${id}/`,
    validationStatus: 400,
  },
  {
    ...bare,
    preset: 'rails',
    list: '/users?_dc=<now>&page=1&per_page=2&sort=-name%2Cage&name=Ed',
    sortApplied: false,
    filterApplied: false,
    createBody: (resource, fields) => ({ [RAILS_ROOT[resource] ?? '?']: fields }),
    updateBody: (resource, _id, full) => ({ [RAILS_ROOT[resource] ?? '?']: full }),
    validationStatus: 422,
  },
  {
    ...bare,
    preset: 'laravel',
    list: '/users?_dc=<now>&page=1&per_page=2&sort=-name%2Cage&filter%5Bname%5D=Ed',
    sortApplied: false,
    filterApplied: false,
    validationStatus: 422,
  },
  {
    ...bare,
    preset: 'spring-data-rest',
    list: '/users?_dc=<now>&page=0&size=2&sort=name%2Cdesc&sort=age%2Casc&name=Ed',
    sortApplied: true,
    filterApplied: false,
    validationStatus: 400,
  },
  {
    ...bare,
    preset: 'json-api',
    // No cache buster: a JSON:API server refuses params outside its families.
    list: '/users?page%5Bnumber%5D=1&page%5Bsize%5D=2&sort=-name%2Cage&filter%5Bname%5D=Ed',
    sortApplied: true,
    filterApplied: true,
    updateMethod: 'PATCH',
    mediaType: 'application/vnd.api+json',
    createBody: (resource, fields) => ({ data: { type: resource, attributes: fields } }),
    updateBody: (resource, id, _full, changes) => ({ data: { type: resource, id: String(id), attributes: changes } }),
    validationStatus: 422,
  },
];

/** The page the app should see: the rows the server filters and sorts (or not), the first two of them. */
function expectedPage(c: Conventions): { rows: UserRow[]; total: number } {
  let rows = [...USERS];
  if (c.filterApplied) rows = rows.filter((row) => row.name === 'Ed');
  if (c.sortApplied) rows.sort((a, b) => (a.name === b.name ? a.age - b.age : a.name < b.name ? 1 : -1));
  return { rows: rows.slice(0, 2), total: rows.length };
}

// ---- the package as it ships, and the bundles made of it -----------------------------------

const ROOT_DIR = fileURLToPath(new URL('../../', import.meta.url));
const APP_DIR = fileURLToPath(new URL('./app/', import.meta.url));
const CHROMIUM = process.env.DEMO_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'];
/** The source names of the app's model classes (test/build/app/scenario.ts). */
const CLASS_NAMES = ['LocalUser', 'LocalCategory', 'AdminAccount'];
const RUN_TIMEOUT_MS = 30_000;

/** Where everything of this file lives: the package in node_modules/rest-proxy, the app, the bundles. */
let work = '';

function run(file: string, args: string[], cwd: string, timeout = RUN_TIMEOUT_MS): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    execFile(process.execPath, [file, ...args], { cwd, timeout, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${relative(work, file)} failed (${error.message}):\n${stdout}\n${stderr}`));
      else resolvePromise({ stdout, stderr });
    });
  });
}

/**
 * node_modules/rest-proxy in the work dir, as npm would install it: the project's package.json
 * (its exports map and sideEffects) and dist/ compiled from src/ with tsconfig.build.json (the
 * JavaScript of `npm run build`; types and maps left out). The project's own dist/ is not
 * touched: other test files and builds may be reading it.
 */
async function installPackage(project: string): Promise<void> {
  const pkg = join(project, 'node_modules', 'rest-proxy');
  await mkdir(pkg, { recursive: true });
  await copyFile(join(ROOT_DIR, 'package.json'), join(pkg, 'package.json'));
  // What tsc -p tsconfig.build.json --declaration false --sourceMap false writes: the JavaScript
  // of the compile this run's files share (compiled.ts), without its source map comments.
  const compiled = join(await compiledPackage(), 'dist');
  for (const name of (await readdir(compiled, { recursive: true })).filter((file) => file.endsWith('.js'))) {
    const code = await readFile(join(compiled, name), 'utf8');
    await mkdir(dirname(join(pkg, 'dist', name)), { recursive: true });
    await writeFile(join(pkg, 'dist', name), code.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'));
  }
  await buildProduction(join(pkg, 'dist'));
}

/** The app's sources, next to that node_modules (so 'rest-proxy' resolves as in a user's project). */
async function copyApp(project: string): Promise<string> {
  const app = join(project, 'app');
  await mkdir(app, { recursive: true });
  for (const name of await readdir(APP_DIR)) await copyFile(join(APP_DIR, name), join(app, name));
  return app;
}

/**
 * The control: the same project, but the package's sideEffects leaves out dist/presets.js (as
 * `"sideEffects": false` would), to show that the bundlers honour the field, so that the check
 * that the presets survived proves the package's own field right.
 */
async function controlProject(): Promise<string> {
  const project = join(work, 'control');
  const pkg = join(project, 'node_modules', 'rest-proxy');
  await cp(join(work, 'node_modules', 'rest-proxy', 'dist'), join(pkg, 'dist'), { recursive: true });
  const manifest: unknown = JSON.parse(await readFile(join(ROOT_DIR, 'package.json'), 'utf8'));
  await writeFile(join(pkg, 'package.json'), JSON.stringify({ ...(typeof manifest === 'object' ? manifest : {}), sideEffects: false }));
  await copyApp(project);
  return project;
}

type Target = 'node' | 'browser';

interface Built {
  /** node: the module to run; browser: the directory to serve (with index.html) */
  entry: string;
  /** every JavaScript file of the bundle, concatenated */
  code: string;
  /** the modules with code in it, relative to the project */
  modules: string[];
}

interface BundleKind {
  title: string;
  target: Target;
  /** the build of the package the bundler resolves: the `production` export condition (dist/prod/) or the plain one (dist/) */
  dist: 'dist/prod' | 'dist';
  /** bundles `<project>/app` (its package in `<project>/node_modules`) into `out` */
  make: (project: string, out: string) => Promise<Built>;
}

async function javascriptIn(dir: string): Promise<string> {
  const files = (await readdir(dir, { recursive: true })).filter((name) => /\.m?js$/.test(name)).sort();
  const texts = await Promise.all(files.map((name) => readFile(join(dir, name), 'utf8')));
  return texts.join('\n');
}

function esbuildBundle(target: Target, conditions: string[] = []): BundleKind['make'] {
  return async (project, out) => {
    const outfile = join(out, target === 'node' ? 'app.mjs' : 'app.js');
    const result = await esbuild({
      entryPoints: [join(project, 'app', `${target}.ts`)],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: target,
      conditions,
      outfile,
      metafile: true,
      logLevel: 'silent',
      absWorkingDir: project,
    });
    if (target === 'browser') await writeFile(join(out, 'index.html'), '<!doctype html><meta charset="utf-8"><title>app</title><script type="module" src="/app.js"></script>\n');
    // The modules with code in the bundle (metafile.inputs also lists those tree-shaken away).
    const modules = Object.values(result.metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([name]) => name),
    );
    return { entry: target === 'node' ? outfile : out, code: await javascriptIn(out), modules };
  };
}

function chunksOf(output: Awaited<ReturnType<typeof viteBuild>>): Rollup.OutputChunk[] {
  const outputs = Array.isArray(output) ? output : [output];
  const chunks: Rollup.OutputChunk[] = [];
  for (const item of outputs) {
    if (!('output' in item)) throw new Error('vite build returned a watcher');
    for (const file of item.output) if (file.type === 'chunk') chunks.push(file);
  }
  return chunks;
}

/** Vite's production build: `vite build` (NODE_ENV production, the default minifier), for the browser or as an SSR bundle for Node. */
function viteBundle(target: Target): BundleKind['make'] {
  return async (project, out) => {
    const app = join(project, 'app');
    const nodeEnv = process.env.NODE_ENV;
    // As the `vite build` command runs: vitest has set NODE_ENV=test, which Vite would take as a non-production build.
    process.env.NODE_ENV = 'production';
    try {
      const common: InlineConfig = { root: app, configFile: false, envFile: false, publicDir: false, logLevel: 'silent', cacheDir: join(work, 'vite-cache'), mode: 'production' };
      const output =
        target === 'browser'
          ? await viteBuild({ ...common, build: { outDir: out, emptyOutDir: true } })
          : await viteBuild({
              ...common,
              // Bundle the package in (an SSR build leaves dependencies to node_modules by default), minified as the client build is.
              ssr: { noExternal: true, target: 'node' },
              build: { ssr: join(app, 'node.ts'), outDir: out, emptyOutDir: true, minify: true, rolldownOptions: { output: { entryFileNames: 'app.mjs' } } },
            });
      const modules = chunksOf(output).flatMap((chunk) => chunk.moduleIds).map((id) => relative(project, id).split(sep).join('/'));
      return { entry: target === 'node' ? join(out, 'app.mjs') : out, code: await javascriptIn(out), modules };
    } finally {
      if (nodeEnv === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = nodeEnv;
    }
  };
}

const BUNDLES: BundleKind[] = [
  { title: 'esbuild --minify, run in Node', target: 'node', dist: 'dist', make: esbuildBundle('node') },
  { title: 'esbuild --minify --conditions=production, run in Node', target: 'node', dist: 'dist/prod', make: esbuildBundle('node', ['production']) },
  { title: 'esbuild --minify, run in Chromium', target: 'browser', dist: 'dist', make: esbuildBundle('browser') },
  { title: 'esbuild --minify --conditions=production, run in Chromium', target: 'browser', dist: 'dist/prod', make: esbuildBundle('browser', ['production']) },
  // Vite sets the production condition in a production build.
  { title: 'Vite production build, run in Chromium', target: 'browser', dist: 'dist/prod', make: viteBundle('browser') },
  { title: 'Vite SSR production build (minified), run in Node', target: 'node', dist: 'dist/prod', make: viteBundle('node') },
];

// ---- running a bundle ------------------------------------------------------------------------

const CONTENT_TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8' };

/** A static file server for a browser bundle's directory. */
async function serve(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const file = resolve(dir, `.${path === '/' ? '/index.html' : decodeURIComponent(path)}`);
    const type = CONTENT_TYPES[extname(file)];
    if (!file.startsWith(dir + sep) || type === undefined) {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the static server has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** One request, as the server received it (or, for json-server, as the app handed it to fetch). */
interface Seen {
  /** `POST /users`, the cache buster's value shown as `<now>` */
  line: string;
  body: unknown;
  contentType: string | undefined;
  accept: string | undefined;
}

interface PresetRun {
  /** the server's origin, 'http://127.0.0.1:PORT' */
  url: string;
  report: unknown;
  /** what the server received; undefined for json-server, which records nothing (the app's log is in the report) */
  requests: Seen[] | undefined;
  db: Db;
}

function shown(pathAndQuery: string): string {
  return pathAndQuery.replace(/_dc=\d+/, '_dc=<now>');
}

/** The reports out of the app's output: an array of objects, each naming its preset. */
function parseReports(text: string): Map<string, unknown> {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error(`the app printed no array of reports: ${text.slice(0, 500)}`);
  const reports = new Map<string, unknown>();
  for (const report of parsed) {
    const preset: unknown = typeof report === 'object' && report !== null && 'preset' in report ? report.preset : undefined;
    if (typeof preset !== 'string') throw new Error(`a report names no preset: ${JSON.stringify(report).slice(0, 500)}`);
    reports.set(preset, report);
  }
  return reports;
}

let browser: Browser | undefined;
const browserAvailable = existsSync(CHROMIUM);

async function chromiumBrowser(): Promise<Browser> {
  browser ??= await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 20_000 });
  return browser;
}

/** The app's output for these jobs: a child Node process, or one Chromium page. */
async function runBundle(target: Target, built: Built, jobs: { preset: Preset; url: string }[]): Promise<string> {
  const text = JSON.stringify(jobs);
  if (target === 'node') return (await run(built.entry, [text], work)).stdout;
  const site = await serve(built.entry);
  const context = await (await chromiumBrowser()).newContext();
  const problems: string[] = [];
  try {
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    await page.goto(`${site.url}/index.html#${encodeURIComponent(text)}`, { timeout: 10_000 });
    const out = await page.waitForSelector('#report, #error', { state: 'attached', timeout: RUN_TIMEOUT_MS });
    const id = await out.getAttribute('id');
    const content = (await out.textContent()) ?? '';
    if (id !== 'report') throw new Error(`the page failed: ${content}\n${problems.join('\n')}`);
    return content;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${problems.join('\n')}`, { cause: error });
  } finally {
    await context.close();
    await site.close();
  }
}

/** Every preset's server, fresh; the bundle runs once against all of them; then their requests and data. */
async function runPresets(target: Target, built: Built): Promise<Map<Preset, PresetRun>> {
  const seed = (): Db => ({ users: structuredClone(USERS), categories: structuredClone(CATEGORIES) });
  const jsonServer = await startJsonServer(seed());
  const servers = new Map<ServerConventions, TestServer<Db>>();
  try {
    for (const c of PRESETS) {
      if (c.preset !== 'json-server') servers.set(c.preset, await startTestServer({ conventions: c.preset, resources: seed(), required: { users: ['name'] } }));
    }
    const jobs = PRESETS.map((c) => ({ preset: c.preset, url: c.preset === 'json-server' ? jsonServer.url : (servers.get(c.preset)?.url ?? '') }));
    const reports = parseReports(await runBundle(target, built, jobs));
    const runs = new Map<Preset, PresetRun>();
    for (const c of PRESETS) {
      const server = c.preset === 'json-server' ? undefined : servers.get(c.preset);
      runs.set(c.preset, {
        url: server?.url ?? jsonServer.url,
        report: reports.get(c.preset),
        requests: server?.requests.map((request) => ({
          line: `${request.method} ${shown(request.url)}`,
          body: request.json,
          contentType: request.headers['content-type'],
          accept: request.headers.accept,
        })),
        db: server === undefined ? await jsonServer.readDb() : structuredClone({ users: server.db.users, categories: server.db.categories }),
      });
    }
    return runs;
  } finally {
    await Promise.all([jsonServer.close(), ...[...servers.values()].map((server) => server.close())]);
  }
}

// ---- the checks --------------------------------------------------------------------------------

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The requests the scenario makes, in order. */
function expectedRequests(c: Conventions, destroyedId: number): { line: string; body: Body | undefined }[] {
  const lines: { line: string; body: Body | undefined }[] = [
    { line: `GET ${c.list}`, body: undefined },
    { line: `POST ${c.collection('users')}`, body: c.createBody('users', ZED) },
    { line: `${c.updateMethod} ${c.item('users', ZED_ID)}`, body: c.updateBody('users', ZED_ID, { ...ZED, age: 42, id: ZED_ID }, { age: 42 }) },
    { line: `DELETE ${c.item('users', destroyedId)}`, body: undefined },
    { line: `GET ${c.item('users', 999)}${c.list.includes('_dc=') ? '?_dc=<now>' : ''}`, body: undefined },
  ];
  if (c.validationStatus !== undefined) lines.push({ line: `POST ${c.collection('users')}`, body: c.createBody('users', { email: 'nameless@example.com', age: 5 }) });
  if (c.preset === 'rails') lines.push({ line: `POST ${c.collection('categories')}`, body: c.createBody('categories', {}) });
  lines.push(
    { line: `POST ${c.collection('categories')}`, body: c.createBody('categories', TOOLS) },
    { line: `POST ${c.collection('users')}`, body: c.createBody('users', ROOT) },
  );
  return lines;
}

/** The messages of a report, wherever they are. */
function messagesIn(value: unknown, except: readonly string[] = []): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => messagesIn(item));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value)
    .filter(([key]) => !except.includes(key))
    .flatMap(([key, inner]) => (key === 'message' && typeof inner === 'string' ? [inner] : messagesIn(inner)));
}

function stringAt(value: unknown, ...path: string[]): string {
  let current = value;
  for (const key of path) current = typeof current === 'object' && current !== null ? Object.entries(current).find(([name]) => name === key)?.[1] : undefined;
  if (typeof current !== 'string') throw new Error(`no string at ${path.join('.')} in ${JSON.stringify(value).slice(0, 300)}`);
  return current;
}

function classNamesOf(report: unknown): string[] {
  if (typeof report !== 'object' || report === null || !('classNames' in report)) return [];
  const names = report.classNames;
  return typeof names === 'object' && names !== null ? Object.values(names).filter((name) => typeof name === 'string') : [];
}

function checkPreset(c: Conventions, run: PresetRun): void {
  const { rows, total } = expectedPage(c);
  const destroyedId = rows[1]?.id ?? -1;
  const report = run.report;
  const absolute = (path: string): string => escapeRegExp(`${run.url}${path}`);
  const expectedMessage = (prefix: string) => expect.stringMatching(new RegExp(`^${prefix}`));

  // Step by step, what the app saw ("failure" names the step that threw, with its message).
  expect(report).toEqual(
    expect.objectContaining({
      preset: c.preset,
      entityNames: { user: 'users', category: 'categories', account: 'User' },
      presets: expect.arrayContaining(PRESETS.map((p) => p.preset)),
      page: { ids: rows.map((row) => row.id), names: rows.map((row) => row.name), total },
      created: { clientId: expect.stringMatching(/^users-\d+$/), id: ZED_ID, phantom: false, errors: {} },
      updated: { id: ZED_ID, age: 42, dirty: false },
      destroyed: { id: destroyedId, erased: true, storeCount: 1 },
      notFound: expect.objectContaining({ name: 'ProxyError', kind: 'http', status: 404, message: expectedMessage(`GET ${absolute(c.item('users', 999))} failed: 404`) }),
      saveDestroyed: expect.objectContaining({ name: 'TypeError', message: expectedMessage('users\\.save: ') }),
      reloadNew: expect.objectContaining({ name: 'TypeError', message: expectedMessage('users\\.reload: ') }),
      accountReloadNew: expect.objectContaining({ name: 'TypeError', message: expectedMessage('User\\.reload: ') }),
      category: { clientId: expect.stringMatching(/^categories-\d+$/), id: TOOLS_ID, phantom: false },
      account: { clientId: expect.stringMatching(/^User-\d+$/), id: ROOT_ID, phantom: false },
    }),
  );
  expect(report).not.toHaveProperty('failure');
  if (c.validationStatus === undefined) {
    expect(report).not.toHaveProperty('invalid');
  } else {
    expect(report).toHaveProperty('invalid', {
      name: 'ProxyError',
      kind: 'validation',
      status: c.validationStatus,
      message: expectedMessage(`POST ${absolute(c.collection('users'))} failed: ${c.validationStatus}`),
      fieldErrors: { name: [expect.any(String)] },
      recordErrors: { name: [expect.any(String)] },
      phantom: true,
    });
  }
  if (c.preset === 'rails') {
    // A 400 to a wrapped body: the message names the root key that was sent.
    expect(report).toHaveProperty('emptyRoot', expect.objectContaining({ kind: 'http', status: 400, message: expect.stringMatching(/wrapped in "category"/) }));
  }

  // No message names a model by its (minified) class name.
  const classNames = classNamesOf(report);
  expect(classNames).toHaveLength(3);
  for (const message of messagesIn(report, ['misuse'])) {
    for (const name of [...classNames, ...CLASS_NAMES]) expect(message).not.toMatch(new RegExp(`(^|[^\\w$])${escapeRegExp(name)}(\\.\\w|:| has no)`));
  }

  // The requests: as the server received them, else (json-server) as the app handed them to fetch.
  const expected = expectedRequests(c, destroyedId);
  const seen: { line: string; body: unknown }[] =
    run.requests ??
    sentByApp(report).map((sent) => ({ line: `${sent.method} ${shown(sent.path)}`, body: sent.body === null ? undefined : JSON.parse(sent.body) }));
  expect(seen.map((request) => ({ line: request.line, body: request.body }))).toEqual(expected);
  for (const request of run.requests ?? []) {
    expect(request.accept).toBe(c.mediaType);
    expect(request.contentType).toBe(request.body === undefined ? undefined : c.mediaType);
  }

  // The server's data.
  const users = USERS.filter((row) => row.id !== destroyedId).concat([{ id: ZED_ID, ...ZED, age: 42 }, { id: ROOT_ID, ...ROOT }]);
  expect(run.db.users.map(({ id, name, email, age }) => ({ id, name, email, age })).sort((a, b) => a.id - b.id)).toEqual(users);
  expect(run.db.categories.map(({ id, title }) => ({ id, title })).sort((a, b) => a.id - b.id)).toEqual([...CATEGORIES, { id: TOOLS_ID, ...TOOLS }]);
}

/** The app's own log of what it handed to fetch (its onRequest hook). */
function sentByApp(report: unknown): { method: string; path: string; body: string | null }[] {
  if (typeof report !== 'object' || report === null || !('sent' in report) || !Array.isArray(report.sent)) throw new Error('the report has no log of requests');
  return report.sent.map((item: unknown) => {
    if (typeof item !== 'object' || item === null || !('method' in item) || !('path' in item) || !('body' in item)) throw new Error(`a logged request is incomplete: ${JSON.stringify(item)}`);
    const { method, path, body } = item;
    if (typeof method !== 'string' || typeof path !== 'string' || (body !== null && typeof body !== 'string')) throw new Error(`a logged request is malformed: ${JSON.stringify(item)}`);
    return { method, path, body };
  });
}

// ---- the tests ---------------------------------------------------------------------------------

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rest-proxy-production-'));
  await installPackage(work);
  await copyApp(work);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (work !== '') await rm(work, { recursive: true, force: true });
}, 20_000);

for (const kind of BUNDLES) {
  if (kind.target === 'browser' && !browserAvailable) {
    test(kind.title, (context) => {
      const message = `${CHROMIUM} is missing: install it with apt-get install -y chromium`;
      if (process.env.CI === 'true') throw new Error(`The production-build test needs Chromium in CI. ${message}`);
      console.warn(`production-build browser run skipped: ${message}`);
      context.skip(`skipped: ${message}`);
    });
    continue;
  }

  describe(kind.title, () => {
    let built: Built;
    let runs: Map<Preset, PresetRun>;

    beforeAll(async () => {
      const out = join(work, 'out', kind.title.replace(/\W+/g, '-'));
      await mkdir(out, { recursive: true });
      built = await kind.make(work, out);
      runs = await runPresets(kind.target, built);
    }, 90_000);

    it('is minified: the model classes are renamed, in the code and at run time', () => {
      for (const name of CLASS_NAMES) expect(built.code).not.toContain(name);
      for (const presetRun of runs.values()) {
        const names = classNamesOf(presetRun.report);
        expect(names).toHaveLength(3);
        for (const name of names) {
          expect(CLASS_NAMES).not.toContain(name);
          expect(name).toMatch(/^[\w$]{1,3}$/);
        }
        expect(presetRun.report).toHaveProperty('serverProxyClassName', expect.not.stringMatching(/^ServerProxy$/));
      }
    });

    // Mistakes refused before anything is sent. Unminified, their messages read "ServerProxy cannot
    // send the read operation: ..." and "read failed: the id an object (LocalUser) cannot be put in a url: ...".
    it('names no minified class when a bare ServerProxy (which cannot send) is given as the proxy', () => {
      for (const presetRun of runs.values()) {
        const report = presetRun.report;
        expect(report).toHaveProperty('misuse.serverProxy', expect.objectContaining({ name: 'ProxyError', kind: 'config', message: expect.stringContaining('cannot send') }));
        expect(stringAt(report, 'misuse', 'serverProxy', 'message')).not.toMatch(new RegExp(`^${escapeRegExp(stringAt(report, 'serverProxyClassName'))} `));
      }
    });

    it('names no minified class when a record is given to load() as its id', () => {
      for (const presetRun of runs.values()) {
        const report = presetRun.report;
        expect(report).toHaveProperty('misuse.recordAsId', expect.objectContaining({ name: 'ProxyError', kind: 'config', message: expect.stringContaining('url') }));
        expect(stringAt(report, 'misuse', 'recordAsId', 'message')).not.toContain(`(${stringAt(report, 'classNames', 'user')})`);
      }
    });

    it(`is made from the package's ${kind.dist}/, and keeps rest-proxy/presets (the side-effect module)`, () => {
      expect(built.modules).toContain(`node_modules/rest-proxy/${kind.dist}/presets.js`);
      expect(built.modules).toContain(`node_modules/rest-proxy/${kind.dist}/model/Model.js`);
      // Nothing of the other build, nor the helper the production build removes.
      const fromProduction = (module: string): boolean => module.startsWith('node_modules/rest-proxy/dist/prod/');
      expect(built.modules.filter((module) => (kind.dist === 'dist' ? fromProduction(module) : module.startsWith('node_modules/rest-proxy/dist/') && !fromProduction(module)))).toEqual([]);
      if (kind.dist === 'dist/prod') expect(built.modules).not.toContain('node_modules/rest-proxy/dist/prod/util/dev.js');
      const projectSources = `${relative(work, join(ROOT_DIR, 'src')).split(sep).join('/')}/`;
      expect(built.modules.filter((module) => module.startsWith(projectSources) || (module.includes('rest-proxy/') && !module.startsWith('node_modules/rest-proxy/dist/')))).toEqual([]);
      // The presets' own strings are in the code, and they registered themselves at run time.
      for (const text of ['page_size', 'spring-data-rest', '_embedded', 'application/vnd.api+json']) expect(built.code).toContain(text);
      for (const presetRun of runs.values()) expect(presetRun.report).toHaveProperty('presets', expect.arrayContaining(PRESETS.map((c) => c.preset)));
    });

    it(kind.dist === 'dist/prod' ? 'says what happened (verb, url, status, kind, field) and leaves the long explanations to the development build' : 'explains in its messages what to do (the development build)', () => {
      const explanations = ['check the url and the id', "pass one as the proxy's fetch option", 'the record keeps its edits and the messages are on record.errors'];
      for (const text of explanations) {
        if (kind.dist === 'dist/prod') expect(built.code).not.toContain(text);
        else expect(built.code).toContain(text);
      }
      for (const c of PRESETS) {
        const report = runs.get(c.preset)?.report;
        const notFound = stringAt(report, 'notFound', 'message');
        expect(notFound).toMatch(new RegExp(`^GET \\S+${escapeRegExp(c.item('users', 999))}\\S* failed: 404`));
        expect(notFound.includes('; check the url and the id')).toBe(kind.dist === 'dist');
        if (c.validationStatus !== undefined) {
          const invalid = stringAt(report, 'invalid', 'message');
          expect(invalid).toMatch(new RegExp(`^POST \\S+ failed: ${c.validationStatus}.*\\(name: `));
          expect(invalid.includes('the messages are on record.errors')).toBe(kind.dist === 'dist');
        }
      }
    });

    for (const c of PRESETS) {
      it(`${c.preset}: loads a sorted, filtered page, creates, updates, destroys; requests, server data, client ids and messages`, () => {
        const presetRun = runs.get(c.preset);
        if (presetRun === undefined) throw new Error(`no run for ${c.preset}`);
        checkPreset(c, presetRun);
      });
    }
  });
}

describe('the control: a package whose sideEffects leaves out dist/presets.js', () => {
  let project = '';

  beforeAll(async () => {
    project = await controlProject();
  }, 30_000);

  for (const kind of BUNDLES.filter((bundle) => bundle.target === 'node')) {
    it(`${kind.title}: the presets are tree-shaken away, and naming one is the TypeError that says to import rest-proxy/presets`, async () => {
      const out = join(project, 'out', kind.title.replace(/\W+/g, '-'));
      await mkdir(out, { recursive: true });
      const built = await kind.make(project, out);
      expect(built.modules).toContain(`node_modules/rest-proxy/${kind.dist}/model/Model.js`);
      expect(built.modules).not.toContain(`node_modules/rest-proxy/${kind.dist}/presets.js`);
      expect(built.code).not.toContain('page_size');
      // Nothing is sent: the proxy is refused when it is made.
      const reports = parseReports((await run(built.entry, [JSON.stringify([{ preset: 'rails', url: 'http://127.0.0.1:9' }])], project)).stdout);
      const report = reports.get('rails');
      expect(report).toHaveProperty('presets', []);
      expect(report).toHaveProperty('sent', []);
      expect(report).toHaveProperty('failure', { step: 'load', error: expect.objectContaining({ name: 'TypeError', message: expect.stringContaining('rest-proxy/presets') }) });
    });
  }
});
