/**
 * tools/production.mjs, the change that makes the production build (dist/prod/) of a module:
 * each dev(explanation, short) is short (or ''), and the import of dev is gone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toProduction } from '../../tools/production.mjs';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

describe('the production build of a module', () => {
  it('keeps what happened and drops the explanation', () => {
    const code = [
      "import { a } from './a.js';",
      "import { dev } from '../util/dev.js';",
      'export const m = (url: string) => `GET ${url} failed${dev(`; check ${url}`)}`;',
      "export const n = dev('long', 'short');",
    ].join('\n');
    const out = toProduction(code, 'x.ts');
    expect(out).toBe(["import { a } from './a.js';", '', "export const m = (url: string) => `GET ${url} failed${''}`;", "export const n = ('short');"].join('\n'));
  });

  it('leaves a module without dev as it is', () => {
    const code = "const dev = 1;\nexport const x = dev + 1;\n";
    expect(toProduction(code, 'x.js')).toBe(code);
  });

  it('refuses dev used other than as a call, or imported with others', () => {
    expect(() => toProduction("import { dev } from './dev.js';\nexport const f = dev;\n", 'x.js')).toThrow(/dev is used other than/);
    expect(() => toProduction("import { dev, other } from './dev.js';\n", 'x.js')).toThrow(/import only \{ dev \}/);
  });

  it('makes every module of src/ without a call to dev left', () => {
    const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.ts') && entry.name !== 'dev.ts' ? [join(dir, entry.name)] : []));
    const files = walk(SRC);
    let changed = 0;
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      const out = toProduction(source, file);
      if (out !== source) changed++;
      expect(out, file).not.toMatch(/\bdev\(|from '[./]+(util\/)?dev\.js'/);
    }
    expect(changed).toBeGreaterThan(10);
  });
});
