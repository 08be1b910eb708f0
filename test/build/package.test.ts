/**
 * What `npm pack` puts in the tarball: the compiled JavaScript and declarations of every subpath
 * export, the README and CHANGELOG (and a LICENSE when the project has one), no tests, and no
 * source map or declaration map that points at a file the tarball lacks; and that an app
 * type-checks against the packed package as it resolves it (node_modules/rest-proxy), under the
 * strictest tsconfig.
 *
 * The project is copied to a temporary directory and built there with tsconfig.build.json and
 * tools/production.mjs (the production build, dist/prod/), as `npm run build` does, so the
 * project's own dist/ is neither needed nor touched; then `npm pack --dry-run --json` lists what
 * would ship.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractBlocks } from '../docs/markdown.js';
import { compiledPackage } from './compiled.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
/** What a clone has that npm would never pack, or that is rebuilt here. */
const LEFT_OUT = new Set(['node_modules', '.git', 'dist', 'coverage', 'test-results.json', 'test-results.browser.json']);

interface Manifest {
  files: string[];
  exports: Record<string, string | Record<string, string>>;
}

function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(command, args, { cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed (${error.message}):\n${stdout}\n${stderr}`));
      else resolvePromise(stdout);
    });
  });
}

describe('the npm package', { timeout: 300_000 }, () => {
  let work = '';
  let files: string[] = [];
  const shipped = (path: string): boolean => files.includes(path);

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'rest-proxy-pack-'));
    for (const name of await readdir(ROOT)) {
      if (!LEFT_OUT.has(name)) await cp(join(ROOT, name), join(work, name), { recursive: true });
    }
    await symlink(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
    // tsc -p tsconfig.build.json, compiled once for this run's files (compiled.ts).
    await cp(join(await compiledPackage(), 'dist'), join(work, 'dist'), { recursive: true });
    await run(process.execPath, [join(work, 'tools', 'production.mjs')], work);
    const listing: unknown = JSON.parse(await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], work));
    const [entry] = Array.isArray(listing) ? listing : [];
    files = (entry as { files: { path: string }[] }).files.map((file) => file.path).sort();
  }, 300_000);

  afterAll(async () => {
    if (work !== '') await rm(work, { recursive: true, force: true });
  });

  it('ships the JavaScript and the declarations of every subpath export', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Manifest;
    const targets = Object.values(manifest.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)));
    expect(targets.length).toBeGreaterThan(8);
    for (const target of targets) expect(files, `${target}, an export`).toContain(posix.normalize(target));
    for (const subpath of ['index', 'presets', 'react', 'vue', 'associations', 'offline']) {
      expect(files).toContain(`dist/${subpath}.js`);
      expect(files).toContain(`dist/${subpath}.d.ts`);
    }
  });

  it('ships the README, the CHANGELOG and the LICENSE when there is one', () => {
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'CHANGELOG.md']));
    for (const name of ['LICENSE', 'LICENSE.md', 'LICENSE.txt']) expect(shipped(name)).toBe(existsSync(join(ROOT, name)));
  });

  it('ships no tests, benchmarks, demo, examples nor docs pages', () => {
    const stray = files.filter((path) => /(^|\/)(test|tests|__tests__|bench|demo|examples|docs)\//.test(path) || /\.(test|spec)(-d)?\.[cm]?[jt]sx?$/.test(path));
    expect(stray).toEqual([]);
  });

  it('ships every file a source map or a declaration map points at, and every map a file names', async () => {
    const maps = files.filter((path) => path.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const map of maps) {
      const { sources } = JSON.parse(await readFile(join(work, map), 'utf8')) as { sources: string[] };
      for (const source of sources) {
        const target = posix.join(posix.dirname(map), source);
        if (!shipped(target)) missing.push(`${map} -> ${target}`);
      }
    }
    for (const path of files.filter((file) => /\.(js|d\.ts)$/.test(file))) {
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(await readFile(join(work, path), 'utf8'))?.[1];
      if (url !== undefined && !shipped(posix.join(posix.dirname(path), url))) missing.push(`${path} -> ${url}`);
    }
    expect(missing).toEqual([]);
  });

  // Issue 29 item 7: `Model.load(id, { session })` and `record.session` as a Session came from a
  // declaration in a .d.ts that nothing the package's entries import (it failed to compile before).
  it('an app type-checks against the packed package under the strictest tsconfig: sessions, record.session, get() types, docs/migrating.md, finders by field name', async () => {
    const app = join(work, 'app');
    const installed = join(app, 'node_modules', 'rest-proxy');
    await mkdir(installed, { recursive: true });
    const tarball = (await run('npm', ['pack', '--ignore-scripts', '--pack-destination', app], work)).trim().split('\n').at(-1) ?? '';
    await run('tar', ['-xzf', join(app, tarball), '-C', installed, '--strip-components=1'], work);
    const migrating = extractBlocks('docs/migrating.md', await readFile(join(ROOT, 'docs', 'migrating.md'), 'utf8')).find((block) => block.code.includes('new Session()'));
    expect(migrating, 'the sessions example of docs/migrating.md').toBeDefined();
    await writeFile(join(app, 'migrating.mts'), migrating?.code ?? '');
    await writeFile(join(app, 'app.mts'), APP);
    await writeFile(join(app, 'finders.mts'), FINDERS);
    await writeFile(join(app, 'tsconfig.json'), JSON.stringify(STRICTEST));
    await run(process.execPath, [TSC, '-p', 'tsconfig.json'], app);
  });
});

/** The strictest options an app may compile with (@tsconfig/strictest, and the package's own declarations checked too). */
const STRICTEST = {
  compilerOptions: {
    strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, noImplicitOverride: true, noImplicitReturns: true,
    noPropertyAccessFromIndexSignature: true, noFallthroughCasesInSwitch: true, noUnusedLocals: true, noUnusedParameters: true,
    allowUnusedLabels: false, allowUnreachableCode: false, isolatedModules: true, verbatimModuleSyntax: true, forceConsistentCasingInFileNames: true,
    skipLibCheck: false, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [],
  },
  include: ['*.mts'],
};

/** An app's use of sessions and of get(): each line compiles only with the types the contract gives (API.md 5, 9.1, 9.3). */
const APP = `import { Model } from 'rest-proxy';
import { belongsTo, hasMany, Session, type Accessor } from 'rest-proxy/associations';

export class Author extends Model.define({
  entityName: 'Author',
  fields: { id: 'int', name: 'string', age: { type: 'int', allowNull: false }, active: { type: 'boolean', allowNull: false }, born: 'date' },
  proxy: { type: 'rest', url: '/authors' },
}) {
  static associations = { books: hasMany(() => Book, { foreignKey: 'authorId', inverse: 'author' }) };
  declare books: Accessor<typeof Author.associations.books>;
}

export class Book extends Model.define({ entityName: 'Book', fields: { id: 'int', title: 'string', authorId: 'int' }, proxy: { type: 'rest', url: '/books' } }) {
  static associations = { author: belongsTo(() => Author, { foreignKey: 'authorId', inverse: 'books' }) };
  declare getAuthor: Accessor<typeof Book.associations.author>;
}

export async function read(session: Session): Promise<Session | undefined> {
  const author: Author = await Author.load(1, { session });
  const name: string | null = author.get('name');
  const age: number = author.get('age');
  const active: boolean = author.get('active');
  const born: Date | null = author.get('born');
  const key: number | null = new Book().get('authorId');
  // The Session of rest-proxy/associations (its sync(), which the core's Identity has not), if any holds it.
  const held: Session | undefined = author.session;
  await held?.sync();
  void [name, age, active, born, key];
  return held;
}
`;

/**
 * Issue 30: finders, aggregates, live summaries and ChainedStore take the model's field names
 * (each misspelt one is an error here, or its @ts-expect-error fails the compile).
 */
const FINDERS = `import { ChainedStore, count, max, Model, Store, sum } from 'rest-proxy';

export class Order extends Model.define({ entityName: 'Order', fields: { id: 'int', name: 'string', region: 'string', amount: { type: 'number', allowNull: false }, at: 'date' } }) {}

export function panel(orders: Store<Order>): number {
  const index: number = orders.find('name', 'a', { anyMatch: true });
  const found: Order | undefined = orders.findRecord('region', 'north');
  const many: Order[] = orders.query('amount', 3);
  const total: number = orders.sum('amount');
  const perRegion: Map<unknown, number> = orders.sum('amount', { grouped: true });
  const latest: Date | null = orders.max('at');
  const north = new ChainedStore({ source: orders, sorters: [{ property: 'amount', direction: 'DESC' }], filters: [{ property: 'region', value: 'north' }] });
  const { values } = north.summarize({ total: sum('amount'), n: count(), top: max('amount') }).getSnapshot();
  const top: number | null = values.top;
  // @ts-expect-error a misspelt field
  orders.find('nmae', 'a');
  // @ts-expect-error sum takes a numeric field
  orders.sum('name');
  // @ts-expect-error a misspelt field
  north.findRecord('regoin', 'north');
  // @ts-expect-error a misspelt field
  new ChainedStore({ source: orders, sorters: [{ property: 'amout' }] });
  // @ts-expect-error a misspelt field
  north.summarize({ total: sum('amout') });
  void [index, found, many, perRegion, latest, top];
  return total + values.n + values.total;
}
`;
