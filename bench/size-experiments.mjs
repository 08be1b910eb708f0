/**
 * What parts of the library cost, measured by bundling variants of its production build (min+gzip,
 * as bench/bundle-size.mjs does):
 *
 *   node bench/size-experiments.mjs
 *
 * - with the strings of 20 characters or more emptied (about what the messages cost);
 * - without the subscriptions (their modules stubbed out: a lower bound, the calls stay);
 * - without the subscriptions, removed: the modules stubbed and the subscriptions sections of
 *   Store and Model cut out (what they cost, within the few bytes of the calls that stay; the
 *   markers that keep Vue's reactive() off stores and records stay: they are not subscriptions);
 * - messages emptied and subscriptions stubbed;
 * - property names mangled (esbuild mangleProps): every name (a ceiling that breaks everything),
 *   every name but the builtins' (members declared in TypeScript's lib and @types: a ceiling that
 *   renames the public API), and the internal names only (INTERNAL_NAMES: members that no public
 *   declaration, builtin or string literal names, found by a script over dist/*.d.ts, less the data
 *   tables' keys read by name). What gzip leaves of 20 KB of names (bench/FINDINGS.md).
 */
import { gzipSync } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { bundleOptions } from './bundle-size.mjs';
import { applyEdits } from '../tools/production.mjs';

const noSubscriptions = {
  name: 'no-subscriptions',
  setup(b) {
    b.onLoad({ filter: /util[\\/]notify\.ts$/ }, () => ({
      contents: 'export function schedule() {} export function checkListener() {} export class View { get() {} changed() {} add() { return () => {}; } }',
      loader: 'ts',
    }));
    b.onLoad({ filter: /model[\\/]snapshot\.ts$/ }, () => ({ contents: 'export class RecordSnapshot { constructor(record) { this.record = record; } } export function isSnapshotOf() { return false; } export function sameShown() { return false; } export function sameRecordSnapshot() { return false; } export function subscribeTo() { return () => {}; } export function snapshotOf(record) { return new RecordSnapshot(record); }', loader: 'ts' }));
  },
};

/** Cut `from` up to (not including) `to` out of a module's source; a missing marker fails loudly. */
function cut(source, from, to, replacement = '') {
  const start = source.indexOf(from);
  const end = source.indexOf(to, start);
  if (start === -1 || end === -1) throw new Error(`size-experiments: marker not found (${JSON.stringify(from)} .. ${JSON.stringify(to)}); update the experiment`);
  return source.slice(0, start) + replacement + source.slice(end);
}

const removedSubscriptions = {
  name: 'removed-subscriptions',
  setup(b) {
    noSubscriptions.setup(b);
    const edit = (filter, change) =>
      b.onLoad({ filter }, async (args) => ({ contents: change(await readFile(args.path, 'utf8')), loader: 'ts' }));
    const store = (source) => cut(cut(source, '  // ---- subscriptions', '\n}\n\ndefineOptions', '  #changed(): void {}'), '  /** What the store shows', '  /** The records held');
    edit(/store[\\/]Store\.ts$/, (source) => store(source).replace('this.#view.changed(true)', 'undefined'));
    edit(/model[\\/]Model\.ts$/, (source) => cut(source, '  // ---- subscriptions', '  toJSON('));
  },
};

/**
 * Empty the text of the string literals and template parts of 20+ characters (messages, not
 * property names), found with the TypeScript parser: an upper bound of what messages cost.
 */
function withoutText(code) {
  const file = ts.createSourceFile('bundle.js', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const cuts = [];
  const visit = (node) => {
    const kind = node.kind;
    if (kind === ts.SyntaxKind.StringLiteral || kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral) {
      if (node.text.length >= 20) cuts.push([node.getStart(file), node.end, code[node.getStart(file)].repeat(2)]);
    } else if (kind === ts.SyntaxKind.TemplateHead || kind === ts.SyntaxKind.TemplateMiddle || kind === ts.SyntaxKind.TemplateTail) {
      if (node.text.length >= 20) {
        const start = node.getStart(file);
        const open = kind === ts.SyntaxKind.TemplateHead ? '`' : '}';
        const close = kind === ts.SyntaxKind.TemplateTail ? '`' : '${';
        cuts.push([start, node.end, open + close]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return applyEdits(code, cuts);
}

/** Names used only inside the package (see above), as of issue 20's size pass. */
const INTERNAL_NAMES = ['rootKey', 'headerName', 'retryable', 'ambiguous', 'onRetry', 'shareKey', 'waiters', 'notNumber', 'excluded', 'positiveInteger', 'plainObject',
  'nonNegativeInteger', 'sentAs', 'retriedHint', 'sharing', 'recover', 'beforeSend', 'batchConfig', 'readMessage', 'readItems', 'readTotal', 'hears', 'edited',
  'listed', 'running', 'shownAt', 'prune', 'anyDirty', 'offPage', 'rejectAll', 'applyLoad', 'arrange', 'invalidate', 'unindex', 'reindex', 'spared', 'isNew',
  'isDirty', 'updates', 'rejected', 'dropped', 'unremove', 'removedAt', 'ord', 'told', 'paramName', 'serializeValue', 'formatDate', 'expect', 'initial',
  'normalize', 'problem', 'keepUndefined'];

/** The property names TypeScript's lib and the @types packages declare (never to be renamed). */
function builtinNames() {
  const names = new Set();
  const libs = [dirname(fileURLToPath(import.meta.resolve('typescript'))), fileURLToPath(new URL('../node_modules/@types', import.meta.url))];
  for (const dir of libs) {
    for (const file of readdirSync(dir, { recursive: true })) {
      if (!String(file).endsWith('.d.ts')) continue;
      const source = ts.createSourceFile(String(file), readFileSync(join(dir, String(file)), 'utf8'), ts.ScriptTarget.ES2022, false);
      const visit = (node) => {
        if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) && !ts.isParameter(node)) names.add(node.name.text);
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
  return [...names];
}

async function measure(name, plugins, transform = (code) => code, extra = {}) {
  const result = await build({ ...bundleOptions(name, 'production', plugins), ...extra });
  const code = transform(result.outputFiles[0].text);
  return { min: Buffer.byteLength(code), gzip: gzipSync(code, { level: 9 }).length };
}

const builtins = builtinNames();
const kib = (bytes) => `${(bytes / 1024).toFixed(2)} KiB`;
for (const name of ['library', 'typicalApp', 'restProxyOnly']) {
  const base = await measure(name, []);
  const rows = [
    ['as is', base],
    ['strings of 20+ chars emptied (~ the messages)', await measure(name, [], withoutText)],
    ['without subscriptions (lower bound)', await measure(name, [noSubscriptions])],
    ['without subscriptions (removed)', await measure(name, [removedSubscriptions]).catch((error) => (console.warn(`without subscriptions (removed): ${error.errors?.[0]?.text ?? error}`), undefined))],
    ['both', await measure(name, [noSubscriptions], withoutText)],
    ['every property name mangled (breaks it: a ceiling)', await measure(name, [], undefined, { mangleProps: /./ })],
    ['all but builtin names mangled (renames the API)', await measure(name, [], undefined, { mangleProps: /./, reserveProps: new RegExp(`^(${builtins.map((n) => n.replace(/\$/g, '\\$')).join('|')})$`) })],
    ['internal names mangled', await measure(name, [], undefined, { mangleProps: new RegExp(`^(${INTERNAL_NAMES.join('|')})$`) })],
  ];
  console.log(name);
  for (const [label, size] of rows.filter(([, size]) => size !== undefined)) console.log(`  ${label.padEnd(50)} ${kib(size.min).padStart(10)} min ${kib(size.gzip).padStart(10)} gzip  (${((1 - size.gzip / base.gzip) * 100).toFixed(0)}% less)`);
}
