/**
 * The docs' examples also type-check, as the strictest common project would compile them
 * (`strict`, `noImplicitOverride`, `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`):
 * the types are part of what the docs teach (`user.get('name')` is a string, `User.load()`
 * resolves to a User), so an example that would not compile is a wrong example.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { extractBlocks, type CodeBlock } from './markdown.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const ENTRY = join(ROOT, 'src', 'index.js');
const workDir = mkdtempSync(join(tmpdir(), 'rest-proxy-doc-types-'));

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

function runnableBlocks(): CodeBlock[] {
  const files = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `docs/${name}`),
  ];
  return files.flatMap((file) => extractBlocks(file, readFileSync(join(ROOT, file), 'utf8'))).filter((block) => !block.skipped);
}

describe('the docs examples', () => {
  it('type-check under strict, noImplicitOverride, exactOptionalPropertyTypes and noUncheckedIndexedAccess', { timeout: 120_000 }, () => {
    const blocks = runnableBlocks();
    const byFile = new Map<string, CodeBlock>();
    for (const block of blocks) {
      // .mts: an ES module wherever it is, so top-level await compiles.
      const file = join(workDir, `${block.file.replace(/[/.]/g, '_')}_${block.line}.mts`);
      // 'rest-proxy' and its subpath entries ('rest-proxy/presets') point at the sources.
      const code = block.code.replace(/(from\s+|import\s+|declare module\s+)(['"])rest-proxy(?:\/([\w-]+))?\2/g, (_, lead: string, quote: string, entry: string | undefined) =>
        `${lead}${quote}${entry === undefined ? ENTRY : join(ROOT, 'src', `${entry}.js`)}${quote}`,
      );
      writeFileSync(file, code);
      byFile.set(file, block);
    }
    const program = ts.createProgram([...byFile.keys()], {
      strict: true,
      noImplicitOverride: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules', '@types')],
      skipLibCheck: true,
      noEmit: true,
    });
    const problems: string[] = [];
    // Only the blocks are checked (the checker reads of the library what they use): the library's
    // own errors belong to its typecheck.
    const diagnostics = [...byFile.keys()].flatMap((name) => {
      const source = program.getSourceFile(name);
      if (source === undefined) throw new Error(`${name} is not in the program`);
      return ts.getPreEmitDiagnostics(program, source);
    });
    for (const diagnostic of diagnostics) {
      const file = diagnostic.file?.fileName;
      const block = file === undefined ? undefined : byFile.get(resolve(file));
      if (block === undefined || diagnostic.file === undefined) continue; // the library's own errors belong to its typecheck
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      problems.push(`${block.file}:${block.line + 1 + line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
