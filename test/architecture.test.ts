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

  it('has no source file over about 400 lines (the Store and the Model, the public faces, within 400 too)', () => {
    const long = sources(SRC)
      .map((file) => [relative(SRC, file), readFileSync(file, 'utf8').split('\n').length] as const)
      .filter(([file, lines]) => lines > (file === 'store/Store.ts' || file === 'model/Model.ts' ? 400 : 420));
    expect(long).toEqual([]);
  });

  it("reads one record's write path in one file, top to bottom: model/save.ts (issue 29 item 10)", () => {
    const model = readFileSync(join(SRC, 'model/Model.ts'), 'utf8');
    // save(), destroy() and the write protocol the proxies call (SEND, SUCCEED, FAIL, ERASE) go straight to it.
    const fromSave = /import \{([^}]*)\} from '\.\/save\.js';/.exec(model)?.[1]?.split(',').map((name) => name.trim()) ?? [];
    expect(fromSave).toEqual(expect.arrayContaining(['saveRecord', 'destroyRecord', 'sendWrite', 'succeedWrite', 'failWrite', 'eraseRecord']));
    // In it, the steps in the order a write takes them: save() and destroy(), decide, queue, send, then commit or fail.
    const save = readFileSync(join(SRC, 'model/save.ts'), 'utf8');
    const steps = ['saveRecord', 'destroyRecord', 'decide', 'enqueue', 'runSave', 'runDestroy', 'sendWrite', 'succeedWrite', 'failWrite', 'eraseRecord'];
    const at = steps.map((name) => save.search(new RegExp(`^(export )?(async )?function ${name}\\b`, 'm')));
    expect(at.every((position) => position >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    // No other file of model/ holds a step of it.
    const elsewhere = sources(join(SRC, 'model'))
      .filter((file) => !file.endsWith('save.ts'))
      .flatMap((file) => steps.filter((name) => new RegExp(`function ${name}\\b`).test(readFileSync(file, 'utf8'))).map((name) => `${relative(SRC, file)}: ${name}`));
    expect(elsewhere).toEqual([]);
  });
});
