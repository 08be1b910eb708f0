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

/**
 * One parse of each file for the file's three programs (lib.dom, React's and Vue's types, the
 * sources): a source file depends only on its text and the language version, the same in all three.
 */
const parsed = new Map<string, ts.SourceFile | undefined>();

function sharing(host: ts.CompilerHost): ts.CompilerHost {
  const { getSourceFile } = host;
  host.getSourceFile = (name, language, ...rest) => {
    const key = `${typeof language === 'object' ? `${language.languageVersion}:${String(language.impliedNodeFormat)}` : language}:${name}`;
    if (!parsed.has(key)) parsed.set(key, getSourceFile.call(host, name, language, ...rest));
    return parsed.get(key);
  };
  return host;
}

/**
 * The program's diagnostics (`only`: of that file), but for the library's sources: the
 * repository's typecheck checks them, under these same options (tsconfig.json), and the build
 * under `types: []`; declaration files are skipped (skipLibCheck).
 */
function report(program: ts.Program, only?: ts.SourceFile): string[] {
  const files = only === undefined ? program.getSourceFiles().filter((file) => !file.isDeclarationFile && !file.fileName.startsWith(`${ROOT}/src/`)) : [only];
  const diagnostics = [...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...files.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)])];
  return ts.sortAndDeduplicateDiagnostics(diagnostics).map((diagnostic) => {
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

/**
 * Type-check compiled components (by file name), each as a virtual X.vue.ts next to its .vue; imports of .vue files use the shim.
 * `onlyThem`: the diagnostics of those files only (the rest is checked by the other tests).
 */
function checkComponents(components: Map<string, string>, onlyThem = false): string[] {
  const virtual = new Map([...components].map(([name, source]) => [join(VUE_SOURCES, `${name}.ts`), source]));
  const compilerOptions = options({});
  const host = sharing(ts.createCompilerHost(compilerOptions));
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => virtual.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    const text = virtual.get(name);
    return text === undefined ? getSourceFile.call(host, name, language, ...rest) : ts.createSourceFile(name, text, language, true, ts.ScriptKind.TS);
  };
  const program = ts.createProgram([...virtual.keys(), join(VUE_SOURCES, 'shims-vue.d.ts')], compilerOptions, host);
  if (!onlyThem) return report(program);
  return [...virtual.keys()].flatMap((name) => {
    const file = program.getSourceFile(name);
    if (file === undefined) throw new Error(`${name} is not in the program`);
    return report(program, file);
  });
}

describe('the examples type-check', () => {
  it('React: the .tsx components, with JSX', { timeout: 60_000 }, () => {
    const config = ts.getParsedCommandLineOfConfigFile(join(EXAMPLES, 'react', 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    expect(config?.fileNames.some((name) => name.endsWith('.tsx'))).toBe(true);
    const compilerOptions = options({ jsx: ts.JsxEmit.ReactJSX });
    const program = ts.createProgram(config?.fileNames ?? [], compilerOptions, sharing(ts.createCompilerHost(compilerOptions)));
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
    expect(checkComponents(new Map([['Broken.vue', broken]]), true).join('\n')).toMatch(/Property 'getIdentifier' does not exist/);
  });
});
