/**
 * Every code example of the README and of docs/*.md runs here, so that the docs cannot rot.
 *
 * Each ```ts block is one test (named `file:line`). The block is compiled with esbuild into a
 * temporary .mjs module whose `import ... from 'rest-proxy'` points at src/index.ts, and imported
 * against a fresh test server (test/server/API.md: plain conventions, seeded with USERS and
 * POSTS, `name` required), whose url replaces the placeholder `https://api.example.com`.
 *
 * - A block that throws fails with its file and line (the module keeps the markdown's line
 *   numbers: the code is padded with the lines above it and carries a source map to the .md).
 * - A comment that names requests (`// PUT /users/7`, `// GET /users?page=2&limit=25`) is
 *   checked against the requests the server received: verb, path and the query params shown
 *   (`...` and `<ms>` stand for any value). In README.md numeric ids match any numeric id: its
 *   first example shows the ids of a typical database, not those of the seed.
 * - A value comment (`store.getCount(); // → 25`, `const n = ...; // → 'Ed'`) is checked: the
 *   expression must equal the literal (a string ending in `…` is a prefix).
 * - `<!-- docs-test: {"inject": [...], "respond": [...], "conventions": "..."} -->` on the line
 *   above a block sets the server up (faults, scripted answers) without showing it to readers;
 *   a block that uses `preset: 'django-rest'` (or another convention) gets a server speaking it.
 * - A block whose first line is `// not run` is a fragment (a class body) and is skipped.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type ConventionName, type TestServer } from '../server/index.js';
import { expectedRequests, extractBlocks, instrumentValueChecks, unmatchedRequests, type CodeBlock } from './markdown.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const ENTRY = join(ROOT, 'src', 'index.ts');
const PLACEHOLDER = 'https://api.example.com';
const CONVENTIONS: readonly ConventionName[] = ['plain', 'django-rest', 'rails', 'laravel', 'spring-data-rest', 'json-api'];

const NAMES = [
  'Ed', 'Tommy', 'Aaron', 'Abe', 'Ann', 'Bea', 'Cal', 'Dee', 'Eli', 'Fay', 'Gus', 'Hal', 'Ida', 'Jo', 'Kai',
  'Lea', 'Max', 'Ned', 'Olu', 'Pam', 'Quin', 'Ray', 'Sue', 'Tim', 'Uma', 'Vic', 'Wes', 'Xia', 'Yan', 'Zoe',
];
const AGES = [30, 25, 41, 52, 28, 35, 19, 44, 23, 31, 38, 27, 46, 22, 33, 29, 50, 36, 24, 42, 26, 39, 34, 21, 47, 32, 45, 20, 37, 18];

/** The seed of every block: users 1 to 30 (Ed is 1, Tommy 2, ... Zoe 30), and posts of users 1 and 2. */
const USERS = NAMES.map((name, i) => ({
  id: i + 1,
  name,
  email: `${name.toLowerCase()}@example.com`,
  age: AGES[i] ?? 30,
  role: i === 0 ? 'admin' : i % 3 === 0 ? 'editor' : 'viewer',
}));
const POSTS = [
  { id: 1, userId: 1, title: 'Hello' },
  { id: 2, userId: 1, title: 'Paging with rest-proxy' },
  { id: 3, userId: 2, title: 'First post' },
];

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => `docs/${entry.name}`)
    .sort();
  return ['README.md', ...docs];
}

const files = markdownFiles();
const blocksByFile = new Map<string, CodeBlock[]>(files.map((file) => [file, extractBlocks(file, readFileSync(join(ROOT, file), 'utf8'))]));
const workDir = mkdtempSync(join(tmpdir(), 'rest-proxy-docs-'));

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

/** The value check a `// →` comment turns into. */
function docCheck(actual: unknown, expected: unknown, where: string): void {
  if (typeof expected === 'string' && (expected.endsWith('…') || expected.endsWith('...')) && typeof actual === 'string') {
    const prefix = expected.replace(/(…|\.\.\.)$/, '');
    if (!actual.startsWith(prefix)) throw new Error(`${where}: expected a string starting with ${JSON.stringify(prefix)}, got ${JSON.stringify(actual)}`);
    return;
  }
  try {
    expect(actual).toEqual(expected);
  } catch {
    throw new Error(`${where}: expected ${format(expected)}, got ${format(actual)}`);
  }
}
Reflect.set(globalThis, '__docCheck', docCheck);

function format(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The conventions the block's server speaks: the setup's, else the preset the block uses. */
function conventionsOf(block: CodeBlock): ConventionName {
  const named = block.setup.conventions;
  if (named !== undefined) {
    const found = CONVENTIONS.find((name) => name === named);
    if (found === undefined) throw new Error(`${block.file}:${block.line}: unknown conventions "${named}"`);
    return found;
  }
  const presets = [...block.code.matchAll(/preset:\s*['"]([\w-]+)['"]/g)].map((match) => match[1]);
  return CONVENTIONS.find((name) => name !== 'plain' && presets.includes(name)) ?? 'plain';
}

async function compile(block: CodeBlock, server: TestServer): Promise<string> {
  let code = block.code.split(PLACEHOLDER).join(server.url);
  code = instrumentValueChecks(block, code);
  // Keep the markdown's line numbers: the code starts on the line after the fence.
  const source = `const __docCheck = globalThis.__docCheck;${'\n'.repeat(block.line)}${code}\n`;
  const result = await transform(source, {
    loader: 'ts',
    format: 'esm',
    target: 'es2022',
    sourcemap: 'inline',
    sourcefile: join(ROOT, block.file),
  });
  // 'rest-proxy' and its subpath entries ('rest-proxy/presets') point at the sources.
  return result.code.replace(/(from\s*|import\s*\(\s*|import\s+)(["'])rest-proxy(?:\/([\w-]+))?\2/g, (_, lead: string, quote: string, entry: string | undefined) =>
    `${lead}${quote}${entry === undefined ? ENTRY : join(ROOT, 'src', `${entry}.ts`)}${quote}`,
  );
}

async function runBlock(block: CodeBlock): Promise<void> {
  const server = await startTestServer({
    conventions: conventionsOf(block),
    resources: { users: structuredClone(USERS), posts: structuredClone(POSTS) },
    required: { users: ['name'] },
    ...(block.setup.nested === undefined ? {} : { nested: block.setup.nested }),
  });
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    for (const fault of block.setup.inject ?? []) server.inject(fault);
    for (const route of block.setup.respond ?? []) {
      server.respond(route.method, route.path, route.answer, route.times === undefined ? undefined : { times: route.times });
    }
    const file = join(workDir, `${block.file.replace(/[/.]/g, '_')}_${block.line}.mjs`);
    writeFileSync(file, await compile(block, server));
    try {
      await import(/* @vite-ignore */ pathToFileURL(file).href);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (message.startsWith(block.file)) throw new Error(message);
      // The lines of the markdown file the error went through (the module is mapped to the .md).
      const mdPath = join(ROOT, block.file);
      const at = (error instanceof Error ? (error.stack ?? '') : '')
        .split('\n')
        .filter((line) => line.includes(mdPath))
        .map((line) => `    at ${line.slice(line.indexOf(mdPath) + ROOT.length + 1).replace(/\)$/, '')}`);
      const kind = error instanceof Error && 'kind' in error ? ` (${error.name} kind '${String(error.kind)}')` : error instanceof Error ? ` (${error.name})` : '';
      throw new Error(`the example at ${block.file}:${block.line} threw${kind}: ${message}${at.length > 0 ? `\n${at.join('\n')}` : ''}`);
    }
    const expected = expectedRequests(block, block.code);
    const missing = unmatchedRequests(expected, server.requests, block.file === 'README.md');
    if (missing.length > 0) {
      const seen = server.requests.map((request) => `  ${request.method} ${request.url}${request.body ? `  ${request.body.slice(0, 200)}` : ''}`).join('\n') || '  (none)';
      throw new Error(
        `the example at ${block.file}:${block.line} did not send what its comments say:\n` +
          missing.map((want) => `  ${want.where}: ${want.text}`).join('\n') +
          `\nthe server received:\n${seen}`,
      );
    }
  } finally {
    log.mockRestore();
    await server.close();
  }
}

describe.each(files)('%s', (file) => {
  const blocks = blocksByFile.get(file) ?? [];
  const runnable = blocks.filter((block) => !block.skipped);
  if (runnable.length === 0) {
    it.skip(`${file} has no runnable example`, () => undefined);
    return;
  }
  it.each(runnable.map((block) => [`${block.file}:${block.line}`, block] as const))('%s', async (_name, block) => {
    await runBlock(block);
  });
});

describe('the docs examples', () => {
  it('include the README\'s first example', () => {
    const first = blocksByFile.get('README.md')?.[0];
    expect(first, 'README.md has a ```ts block').toBeDefined();
    expect(first?.skipped).toBe(false);
    expect(first?.code).toContain("from 'rest-proxy'");
  });

  it('use `// not run` sparingly: only for fragments without an import', () => {
    for (const block of [...blocksByFile.values()].flat().filter((b) => b.skipped)) {
      expect(block.code, `${block.file}:${block.line} is marked // not run but imports rest-proxy: make it runnable`).not.toMatch(/from\s+['"]rest-proxy['"]/);
    }
  });
});
