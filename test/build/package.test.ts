/**
 * What `npm pack` puts in the tarball: the compiled JavaScript and declarations of every subpath
 * export, the README and CHANGELOG (and a LICENSE when the project has one), no tests, and no
 * source map or declaration map that points at a file the tarball lacks.
 *
 * The project is copied to a temporary directory and built there with tsconfig.build.json and
 * tools/production.mjs (the production build, dist/prod/), as `npm run build` does, so the
 * project's own dist/ is neither needed nor touched; then `npm pack --dry-run --json` lists what
 * would ship.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledPackage } from './compiled.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What a clone has that npm would never pack, or that is rebuilt here. */
const LEFT_OUT = new Set(['node_modules', '.git', 'dist', 'coverage', 'test-results.json', 'test-results.browser.json']);

interface Manifest {
  files: string[];
  exports: Record<string, string | Record<string, string>>;
}

function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(command, args, { cwd, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed (${error.message}):\n${stdout}\n${stderr}`));
      else resolvePromise(stdout);
    });
  });
}

describe('the npm package', { timeout: 90_000 }, () => {
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
  }, 90_000);

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
});
