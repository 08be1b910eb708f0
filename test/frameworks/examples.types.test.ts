/**
 * The examples type-check as their apps would compile them: the React example's .tsx with JSX
 * (examples/react/tsconfig.json; the repository's tsconfig has no JSX setting), and each Vue
 * single-file component's script and template, compiled by @vue/compiler-sfc (as Vite's Vue
 * plugin does) to TypeScript whose `defineProps` type is kept. The rest of the examples
 * (examples/**\/*.ts) is in the repository's tsconfig. 'rest-proxy' points at the sources.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileScript, parse } from '@vue/compiler-sfc';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const EXAMPLES = join(ROOT, 'examples');

/** 'rest-proxy' and its entries from src/, whether dist/ is built or not. */
const LIBRARY_PATHS = { 'rest-proxy': ['./src/index.ts'], 'rest-proxy/*': ['./src/*.ts'] };

function options(extra: ts.CompilerOptions): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (config === undefined) throw new Error('cannot read tsconfig.json');
  return { ...config.options, noEmit: true, types: [], baseUrl: ROOT, paths: LIBRARY_PATHS, ...extra };
}

function report(program: ts.Program): string[] {
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file ? `${diagnostic.file.fileName.replace(`${ROOT}/`, '')}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}: ` : '';
    return `${where}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

/** The TypeScript a .vue file compiles to, with `__props` typed as its defineProps says. */
function componentSource(file: string): string {
  const source = readFileSync(file, 'utf8');
  const { descriptor, errors } = parse(source, { filename: file });
  if (errors.length > 0) throw new Error(`${file}: ${errors.map(String).join('; ')}`);
  const { content } = compileScript(descriptor, { id: file, inlineTemplate: true, isProd: true });
  const props = /defineProps<(.+)>\(\)/.exec(source)?.[1];
  return props === undefined ? content : content.replace('setup(__props: any', `setup(__props: Readonly<${props}>`);
}

const VUE_SOURCES = join(EXAMPLES, 'vue', 'src');

/** Type-check compiled components (by file name), each as a virtual X.vue.ts next to its .vue; imports of .vue files use the shim. */
function checkComponents(components: Map<string, string>): string[] {
  const virtual = new Map([...components].map(([name, source]) => [join(VUE_SOURCES, `${name}.ts`), source]));
  const compilerOptions = options({});
  const host = ts.createCompilerHost(compilerOptions);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => virtual.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    const text = virtual.get(name);
    return text === undefined ? getSourceFile.call(host, name, language, ...rest) : ts.createSourceFile(name, text, language, true, ts.ScriptKind.TS);
  };
  return report(ts.createProgram([...virtual.keys(), join(VUE_SOURCES, 'shims-vue.d.ts')], compilerOptions, host));
}

describe('the examples type-check', () => {
  it('React: the .tsx components, with JSX', { timeout: 60_000 }, () => {
    const config = ts.getParsedCommandLineOfConfigFile(join(EXAMPLES, 'react', 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    expect(config?.fileNames.some((name) => name.endsWith('.tsx'))).toBe(true);
    const program = ts.createProgram(config?.fileNames ?? [], options({ jsx: ts.JsxEmit.ReactJSX }));
    expect(report(program)).toEqual([]);
  });

  it('Vue: each single-file component, its script and its template', { timeout: 60_000 }, () => {
    const components = readdirSync(VUE_SOURCES).filter((name) => name.endsWith('.vue'));
    expect(components.length).toBeGreaterThan(0);
    expect(checkComponents(new Map(components.map((name) => [name, componentSource(join(VUE_SOURCES, name))])))).toEqual([]);
  });

  it('would catch a mistake in a template', () => {
    const broken = componentSource(join(VUE_SOURCES, 'UserRow.vue')).replace('_unref(user).getId()', '_unref(user).getIdentifier()');
    expect(broken).toContain('getIdentifier');
    expect(checkComponents(new Map([['Broken.vue', broken]])).join('\n')).toMatch(/Property 'getIdentifier' does not exist/);
  });
});
