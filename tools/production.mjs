/**
 * The production build of the package (dist/prod/, the `production` export condition): each module
 * of dist/ as it is, with every call `dev(explanation, short)` of src/util/dev.ts replaced by
 * `short` (or '') and its import dropped, and the INTERNAL_NAMES shortened. The module graph, and
 * so tree-shaking and the side effects, stay those of dist/. Used by `npm run build` (node
 * tools/production.mjs) and by bench/bundle-size.mjs, which measures the sources through the same
 * change.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Property and method names used only inside the package, renamed in the production build (the
 * same short name in every module, as a bundler's mangler would, but across the package's modules).
 * Each is a name no public declaration (the d.ts the entry points reach), builtin (TypeScript's lib,
 * @types), string literal, src/offline/ or src/associations/ (whose objects are stored or sent)
 * uses, and no data table reads by a name it is given: test/build/mangle.test.ts checks all of that
 * but the last. Worth about 0.3 KiB min+gzip of the typical app (bench/FINDINGS.md): gzip already
 * makes a repeated name cheap.
 */
export const INTERNAL_NAMES = [
  'offPage', 'sentAs', 'applyLoad', 'rejectAll', 'removedAt', 'unremove', 'shownAt', 'reindex', 'unindex', 'arrange', 'invalidate', 'anyDirty',
  'spared', 'isNew', 'isDirty',
  'readMessage', 'readItems', 'readTotal', 'serializeValue', 'formatDate', 'plainObject', 'nonNegativeInteger', 'positiveInteger',
  'headerName', 'paramName', 'rootKey', 'notNumber', 'excluded', 'ord', 'hears', 'edited', 'listed', 'running', 'prune', 'updates',
  'rejected', 'dropped', 'told', 'waiters',
];

/** `$a` .. `$Z`, then `$aa` ..: no property of the package starts with `$` (test/build/mangle.test.ts). */
function shortName(index) {
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  let name = '';
  for (let n = index; ; n = Math.floor(n / letters.length) - 1) {
    name = letters[n % letters.length] + name;
    if (n < letters.length) return `$${name}`;
  }
}

/** Each internal name and its short name. */
export const SHORT_NAMES = new Map(INTERNAL_NAMES.map((name, index) => [name, shortName(index)]));

/** The code of one module (JavaScript or TypeScript) as the production build has it. */
export function toProduction(code, fileName) {
  const file = ts.createSourceFile(fileName, code, ts.ScriptTarget.ES2022, true, fileName.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const edits = [];
  let imported = false;
  let calls = 0;
  /** The internal names in `node` and below renamed: a property access, a member's or a key's name, a destructured key. */
  const rename = (node, into) => {
    const short = (name) => (name !== undefined && ts.isIdentifier(name) ? SHORT_NAMES.get(name.text) : undefined);
    const put = (name, text) => into.push([name.getStart(file), name.end, text]);
    if (ts.isPropertyAccessExpression(node) || ts.isPropertyAssignment(node) || ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
      const to = short(node.name);
      if (to !== undefined) put(node.name, to);
    } else if (ts.isShorthandPropertyAssignment(node)) {
      const to = short(node.name);
      if (to !== undefined) put(node.name, `${to}: ${node.name.text}`);
    } else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent) && !node.dotDotDotToken) {
      const key = node.propertyName ?? node.name;
      const to = short(key);
      if (to !== undefined) put(key, node.propertyName ? to : `${to}: ${node.name.getText(file)}`);
    } else if (ts.isParameter(node) && ts.isIdentifier(node.name) && SHORT_NAMES.has(node.name.text) && ts.getModifiers(node)?.length) {
      throw new Error(`${fileName}: ${node.name.text} is a parameter property; the production build renames it: declare it as a field`);
    }
  };
  const visit = (node) => {
    rename(node, edits);
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /(^|\/)dev\.js$/.test(node.moduleSpecifier.text)) {
      const names = node.importClause?.namedBindings;
      if (!names || !ts.isNamedImports(names) || names.elements.length !== 1 || names.elements[0].name.text !== 'dev' || node.importClause.name) {
        throw new Error(`${fileName}: import only { dev } from dev.js`);
      }
      imported = true;
      edits.push([node.getStart(file), node.end, '']);
      return;
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'dev') {
      const short = node.arguments[1];
      let text = "''";
      if (short) {
        // The short text as it is, its internal names renamed.
        const inner = [];
        const within = (child) => {
          rename(child, inner);
          ts.forEachChild(child, within);
        };
        within(short);
        const start = short.getStart(file);
        text = `(${applyEdits(code.slice(start, short.end), inner.map(([from, to, put]) => [from - start, to - start, put]))})`;
      }
      edits.push([node.getStart(file), node.end, text]);
      calls++;
      return;
    }
    if (ts.isIdentifier(node) && node.text === 'dev' && imported) throw new Error(`${fileName}: dev is used other than as dev(explanation, short)`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!imported && calls > 0) throw new Error(`${fileName}: dev() is called but not imported`);
  return edits.length === 0 ? code : applyEdits(code, edits);
}

/** `code` with each [start, end, text] put in place of what it spans (spans do not overlap). */
export function applyEdits(code, edits) {
  let out = '';
  let at = 0;
  for (const [start, end, text] of [...edits].sort((a, b) => a[0] - b[0])) {
    out += code.slice(at, start) + text;
    at = end;
  }
  return out + code.slice(at);
}

async function* modules(dir, skip) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path !== skip) yield* modules(path, skip);
    } else if (entry.name.endsWith('.js')) yield path;
  }
}

/** dist/**\/*.js to dist/prod/**\/*.js. */
export async function buildProduction(dist) {
  const out = join(dist, 'prod');
  await rm(out, { recursive: true, force: true });
  for await (const path of modules(dist, out)) {
    const target = join(out, relative(dist, path));
    await mkdir(dirname(target), { recursive: true });
    const code = toProduction(await readFile(path, 'utf8'), path).replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n');
    await writeFile(target, code);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildProduction(resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist'));
}
