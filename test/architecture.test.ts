/**
 * The house rules of src/ (STYLE.md, DESIGN.md), checked on the sources: no import cycles at
 * run time, and a lower layer never imports a higher one (the transport knows nothing of
 * records, a proxy nothing of stores). Type-only imports do not count: they vanish from the build.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(fileURLToPath(new URL('../src', import.meta.url)));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The modules each source imports at run time, as paths relative to src/. */
function runtimeImports(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    const imports: string[] = [];
    for (const match of text.matchAll(/^(import|export)\s+(type\s+)?([^;]*?)\s*from\s*'(\.[^']+)';/gms)) {
      const [, , typeOnly, names = '', target = ''] = match;
      // `import { type A, type B }` is type-only too.
      const allTypes = /^\{\s*(type\s+\w+(\s+as\s+\w+)?\s*,?\s*)+\}$/.test(names.trim());
      if (typeOnly !== undefined || allTypes) continue;
      imports.push(relative(SRC, resolve(dirname(file), target.replace(/\.js$/, '.ts'))));
    }
    for (const match of text.matchAll(/^import\s+'(\.[^']+)';/gm)) imports.push(relative(SRC, resolve(dirname(file), (match[1] ?? '').replace(/\.js$/, '.ts'))));
    graph.set(relative(SRC, file), imports);
  }
  return graph;
}

describe('the architecture of src/', () => {
  const graph = runtimeImports();

  it('has no import cycle at run time', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (module: string, path: string[]): void => {
      if (state.get(module) === 'done') return;
      if (state.get(module) === 'open') {
        cycles.push([...path.slice(path.indexOf(module)), module].join(' -> '));
        return;
      }
      state.set(module, 'open');
      for (const next of graph.get(module) ?? []) visit(next, [...path, module]);
      state.set(module, 'done');
    };
    for (const module of graph.keys()) visit(module, []);
    expect(cycles).toEqual([]);
  });

  it('keeps each layer below the ones that use it', () => {
    // Where each folder may not reach (model/writeState.ts, the lifecycle's vocabulary, is a leaf both sides share).
    const forbidden: [string, RegExp][] = [
      ['http/', /^(model|store|proxy|operation|reader|writer)\//],
      ['util/', /^(model|store|proxy|operation|reader|writer|http)\//],
      ['errors/', /^(model|store|proxy|http|reader|writer)\//],
      ['operation/', /^(store|proxy|reader|writer)\/|^model\/(?!writeState\.ts$)/],
      ['reader/', /^(store|proxy|model)\//],
      ['writer/', /^(store|proxy|model)\//],
      ['proxy/', /^store\/|^model\/(?!writeState\.ts$)/],
      ['model/', /^store\//],
    ];
    const breaches: string[] = [];
    for (const [module, imports] of graph) {
      for (const [folder, rule] of forbidden) {
        if (!module.startsWith(folder)) continue;
        for (const target of imports) if (rule.test(target)) breaches.push(`${module} imports ${target}`);
      }
    }
    expect(breaches).toEqual([]);
  });

  it('keeps the core free of the optional subpaths: they import the core, never the other way', () => {
    const optional = /^(associations|offline|buffered|react|vue)(\/|\.ts$)/;
    const breaches: string[] = [];
    for (const [module, imports] of graph) {
      if (optional.test(module)) continue;
      for (const target of imports) if (optional.test(target)) breaches.push(`${module} imports ${target}`);
    }
    expect(breaches).toEqual([]);
  });

  it('has no source file over about 400 lines (the Store, some 40 members, within 400 too; the Model under 440)', () => {
    const long = sources(SRC)
      .map((file) => [relative(SRC, file), readFileSync(file, 'utf8').split('\n').length] as const)
      .filter(([file, lines]) => lines > (file === 'store/Store.ts' ? 400 : file === 'model/Model.ts' ? 440 : 420));
    expect(long).toEqual([]);
  });
});
