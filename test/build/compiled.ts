/**
 * The package's sources compiled by tsc with tsconfig.build.json (the JavaScript, declarations and
 * maps of `npm run build`, before tools/production.mjs), once per test run for the test files that
 * need it (package.test.ts, production.test.ts), not once per file. The project's own dist/ is
 * not touched: other test files and builds may be reading it.
 *
 * Under `npm test`, whose build has just compiled dist/ with the same command (REST_PROXY_BUILT=1,
 * set by tools/test.mjs), the compile is that one: dist/ without dist/prod is copied, not made
 * again by a second tsc.
 *
 * The run's directory comes from compiled.setup.ts (globalSetup of vitest.config.ts): the first
 * file to ask compiles into it (a copy of src/ and the tsconfigs, so that the maps point at
 * `../src/...` as they do in the package), the others wait for it. Run without that setup (another
 * config), a file compiles into its own directory.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An empty directory for this run's compiled package (compiled.setup.ts); '' when none. */
    compiledPackageDir: string;
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
/** How long a file waits for another's compile: the compile's own limit and then some. */
const WAIT_MS = 200_000;

function tsc(cwd: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile(process.execPath, [TSC, '-p', 'tsconfig.build.json'], { cwd, timeout: 150_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`tsc -p tsconfig.build.json failed (${error.message}):\n${stdout}\n${stderr}`));
      else resolvePromise();
    });
  });
}

async function compileInto(dir: string): Promise<void> {
  // package.json: its "type": "module" makes src/ ES modules to tsc.
  for (const name of ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) await cp(join(ROOT, name), join(dir, name), { recursive: true });
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  if (process.env.REST_PROXY_BUILT === '1') {
    // `npm test` (tools/test.mjs) built dist/ from these sources just before this run, with this
    // very command: its tsc output (not dist/prod, which tools/production.mjs makes) is this compile.
    const built = join(ROOT, 'dist');
    await cp(built, join(dir, 'dist'), { recursive: true, filter: (source) => source !== join(built, 'prod') });
  } else {
    await tsc(dir);
  }
  await writeFile(join(dir, 'done'), '');
}

let mine: Promise<string> | undefined;

/** The directory whose `dist/` holds the compiled package (next to the `src/` it was compiled from). */
export function compiledPackage(): Promise<string> {
  mine ??= (async () => {
    const shared = inject('compiledPackageDir');
    if (typeof shared !== 'string' || shared === '') {
      const own = await mkdtemp(join(tmpdir(), 'rest-proxy-compiled-'));
      await compileInto(own);
      return own;
    }
    const done = join(shared, 'done');
    const failed = join(shared, 'failed');
    try {
      // mkdir is atomic: the file that makes the lock compiles.
      await mkdir(join(shared, 'lock'));
    } catch {
      const deadline = Date.now() + WAIT_MS;
      while (!existsSync(done)) {
        if (existsSync(failed)) throw new Error(`the compile of the package by another test file failed:\n${await readFile(failed, 'utf8')}`);
        if (Date.now() > deadline) throw new Error(`the package compiled by another test file (${shared}) is not there after ${WAIT_MS / 1000} s`);
        await new Promise((resolvePromise) => setTimeout(resolvePromise, 100));
      }
      return shared;
    }
    try {
      await compileInto(shared);
    } catch (error) {
      await writeFile(failed, String(error));
      throw error;
    }
    return shared;
  })();
  return mine;
}
