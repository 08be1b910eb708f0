/**
 * The type tests of Model.define (define.test-d.ts) also hold under the strictest common project
 * settings: `strict`, `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`, `noImplicitOverride`
 * (an `@ts-expect-error` that no longer errs is an error too).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const DIR = fileURLToPath(new URL('.', import.meta.url));
const FILES = ['define.test-d.ts', 'finders.test-d.ts'].map((name) => resolve(DIR, name));

describe('define.test-d.ts and finders.test-d.ts under the strictest common tsconfig', () => {
  it('compiles with no error', { timeout: 120_000 }, () => {
    const program = ts.createProgram(FILES, {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noImplicitOverride: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: [],
      skipLibCheck: true,
      noEmit: true,
    });
    // The library's own sources are checked by its own tsconfig; here only what a user writes
    // (checking only those files: the checker reads of the library what the files use).
    const problems = FILES.flatMap((name) => {
      const file = program.getSourceFile(name);
      expect(file, name).toBeDefined();
      return [...ts.getPreEmitDiagnostics(program, file)];
    }).filter((diagnostic) => diagnostic.file === undefined || FILES.includes(resolve(diagnostic.file.fileName))).map((diagnostic) => {
      const where = diagnostic.file === undefined ? '' : `${diagnostic.file.fileName}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}: `;
      return `${where}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
