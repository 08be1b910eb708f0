/**
 * The internal names the production build shortens (tools/production.mjs, INTERNAL_NAMES): none is
 * a name a user, a builtin or a stored or sent object may read, and the build leaves none behind.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { INTERNAL_NAMES, SHORT_NAMES, toProduction } from '../../tools/production.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');
const ENTRIES = ['index', 'presets', 'react', 'vue', 'associations', 'offline'].map((name) => join(SRC, `${name}.ts`));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));
}

/** The name node of a property in a value position (an access, a member, a key, a destructured key), else undefined. */
function propertyName(node: ts.Node): ts.Identifier | undefined {
  if (ts.isPropertyAccessExpression(node) || ts.isPropertyAssignment(node) || ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node) || ts.isShorthandPropertyAssignment(node)) {
    return ts.isIdentifier(node.name) ? node.name : undefined;
  }
  if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent) && !node.dotDotDotToken) {
    const key = node.propertyName ?? node.name;
    return ts.isIdentifier(key) ? key : undefined;
  }
  return undefined;
}

function each(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => each(child, visit));
}

/** The property names in value positions of one module, and its string literals. */
function namesOf(file: string, code = readFileSync(file, 'utf8')): { properties: Set<string>; strings: Set<string> } {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.ES2022, true);
  const properties = new Set<string>();
  const strings = new Set<string>();
  each(source, (node) => {
    const name = propertyName(node);
    if (name !== undefined) properties.add(name.text);
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) strings.add(node.text);
  });
  return { properties, strings };
}

/** Member names TypeScript's lib and the @types packages declare. */
function builtinNames(): Set<string> {
  const names = new Set<string>();
  // The libs the package compiles against (tsconfig.json: ES2022, DOM, Node's types) and React's.
  const lib = dirname(fileURLToPath(import.meta.resolve('typescript')));
  const files = [
    ...readdirSync(lib).filter((file) => /^lib\.(es\d+|dom|esnext|decorators|scripthost).*\.d\.ts$|^lib\.d\.ts$/.test(file)).map((file) => join(lib, file)),
    ...['node', 'react'].flatMap((name) => readdirSync(join(ROOT, 'node_modules/@types', name), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.d.ts')).map((file) => join(ROOT, 'node_modules/@types', name, file))),
  ];
  {
    for (const file of files) {
      each(ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false), (node) => {
        const name = (node as { name?: ts.Node }).name;
        if (name !== undefined && (ts.isIdentifier(name) || ts.isStringLiteral(name)) && !ts.isParameter(node)) names.add(name.text);
      });
    }
  }
  return names;
}

/**
 * The member names of every type the entry points export and reach (properties, methods, their
 * parameters and results, recursively), leaving out `private` and `@internal` members.
 */
function publicNames(): Set<string> {
  const program = ts.createProgram(ENTRIES, { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, skipLibCheck: true, noEmit: true, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'], types: [] });
  const checker = program.getTypeChecker();
  const names = new Set<string>();
  const seen = new Set<ts.Type>();
  const hidden = (symbol: ts.Symbol): boolean =>
    (symbol.declarations ?? []).some((declaration) => (ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Private) !== 0 || ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === 'internal') || (ts.isPropertyDeclaration(declaration) && ts.isPrivateIdentifier(declaration.name)));
  const ours = (symbol: ts.Symbol): boolean => (symbol.declarations ?? []).some((declaration) => declaration.getSourceFile().fileName.startsWith(SRC));
  // A queue, not recursion: the types nest deeply.
  const queue: ts.Type[] = [];
  const visitType = (type: ts.Type): void => {
    if (!seen.has(type)) {
      seen.add(type);
      queue.push(type);
    }
  };
  const visitSignature = (signature: ts.Signature): void => {
    for (const parameter of signature.getParameters()) visitType(checker.getTypeOfSymbol(parameter));
    visitType(signature.getReturnType());
  };
  const members = (type: ts.Type): void => {
    if (type.isUnionOrIntersection()) type.types.forEach(visitType);
    if (type.flags & ts.TypeFlags.Object && (type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference) checker.getTypeArguments(type as ts.TypeReference).forEach(visitType);
    const symbol = type.getSymbol() ?? type.aliasSymbol;
    if (symbol !== undefined && !ours(symbol)) return;
    for (const property of checker.getPropertiesOfType(type)) {
      if (hidden(property)) continue;
      names.add(property.name);
      visitType(checker.getTypeOfSymbol(property));
    }
    for (const signature of [...type.getCallSignatures(), ...type.getConstructSignatures()]) visitSignature(signature);
    for (const info of checker.getIndexInfosOfType(type)) visitType(info.type);
  };
  for (const entry of ENTRIES) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
    for (let symbol of checker.getExportsOfModule(module)) {
      if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      names.add(symbol.name);
      if (symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) visitType(checker.getDeclaredTypeOfSymbol(symbol));
      if (symbol.flags & ts.SymbolFlags.Value) visitType(checker.getTypeOfSymbol(symbol));
    }
  }
  for (let type = queue.pop(); type !== undefined; type = queue.pop()) members(type);
  return names;
}

describe('the internal names the production build shortens', () => {
  const files = walk(SRC);

  it('are names no user, builtin, string or stored object reads', () => {
    const builtins = builtinNames();
    const open = publicNames();
    // The check sees the public surface: names the contract gives are there.
    for (const name of ['records', 'mayHaveBeenApplied', 'phantom', 'rootProperty', 'onRequest', 'sorterFn', 'optionSchema']) expect(open.has(name) || name === 'optionSchema', name).toBe(true);
    const strings = new Set<string>();
    const stored = new Set<string>();
    for (const file of files) {
      const names = namesOf(file);
      names.strings.forEach((text) => strings.add(text));
      // Outbox entries and tab messages are stored and sent; a session's objects are shared: not renamed.
      if (/[\\/]src[\\/](offline|associations)[\\/]|[\\/](offline|associations)\.ts$/.test(file)) names.properties.forEach((name) => stored.add(name));
    }
    const problems = INTERNAL_NAMES.flatMap((name) => [
      ...(open.has(name) ? [`${name}: public`] : []),
      ...(builtins.has(name) ? [`${name}: a builtin's`] : []),
      ...(strings.has(name) ? [`${name}: a string literal in src (read by name)`] : []),
      ...(stored.has(name) ? [`${name}: used by offline or associations`] : []),
    ]);
    expect(problems).toEqual([]);
    expect(new Set(INTERNAL_NAMES).size).toBe(INTERNAL_NAMES.length);
  }, 300_000);

  it('get short names no property of the package has', () => {
    const all = new Set<string>();
    for (const file of files) namesOf(file).properties.forEach((name) => all.add(name));
    for (const short of SHORT_NAMES.values()) expect(all.has(short), short).toBe(false);
    expect([...all].filter((name) => name.startsWith('$'))).toEqual([]);
  });

  it('are all renamed: no module of the production build has one left, and each module still parses', { timeout: 180_000 }, () => {
    const left: string[] = [];
    let renamed = 0;
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      const out = toProduction(source, file);
      const { properties } = namesOf(file, out);
      for (const name of INTERNAL_NAMES) if (properties.has(name)) left.push(`${file}: ${name}`);
      if (INTERNAL_NAMES.some((name) => namesOf(file).properties.has(name))) renamed++;
      expect(() => transformSync(out, { loader: 'ts', sourcefile: file }), file).not.toThrow();
    }
    expect(left).toEqual([]);
    expect(renamed).toBeGreaterThan(10);
  });

  it('renames a key, a shorthand key and a destructured key alike', () => {
    const out = toProduction('const a = { offPage, sentAs: 1 }; const { offPage: x, sentAs } = a; a.offPage = x; class C { offPage = 1; sentAs() {} }', 'x.ts');
    const offPage = SHORT_NAMES.get('offPage');
    const sentAs = SHORT_NAMES.get('sentAs');
    expect(out).toBe(`const a = { ${offPage}: offPage, ${sentAs}: 1 }; const { ${offPage}: x, ${sentAs}: sentAs } = a; a.${offPage} = x; class C { ${offPage} = 1; ${sentAs}() {} }`);
  });
});
