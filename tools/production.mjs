/**
 * The production build of the package (dist/prod/, the `production` export condition): each module
 * of dist/ as it is, with every call `dev(explanation, short)` of src/util/dev.ts replaced by
 * `short` (or '') and its import dropped. The module graph, and so tree-shaking and the side
 * effects, stay those of dist/. Used by `npm run build` (node tools/production.mjs) and by
 * bench/bundle-size.mjs, which measures the sources through the same change.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The code of one module (JavaScript or TypeScript) as the production build has it. */
export function toProduction(code, fileName) {
  const file = ts.createSourceFile(fileName, code, ts.ScriptTarget.ES2022, true, fileName.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const edits = [];
  let imported = false;
  let calls = 0;
  const visit = (node) => {
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
      edits.push([node.getStart(file), node.end, short ? `(${short.getText(file)})` : "''"]);
      calls++;
      return;
    }
    if (ts.isIdentifier(node) && node.text === 'dev' && imported) throw new Error(`${fileName}: dev is used other than as dev(explanation, short)`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!imported) {
    if (calls > 0) throw new Error(`${fileName}: dev() is called but not imported`);
    return code;
  }
  return applyEdits(code, edits);
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
