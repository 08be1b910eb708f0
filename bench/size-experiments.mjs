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
 * - messages emptied and subscriptions stubbed.
 */
import { gzipSync } from 'node:zlib';
import { readFile } from 'node:fs/promises';
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

async function measure(name, plugins, transform = (code) => code) {
  const result = await build(bundleOptions(name, 'production', plugins));
  const code = transform(result.outputFiles[0].text);
  return { min: Buffer.byteLength(code), gzip: gzipSync(code, { level: 9 }).length };
}

const kib = (bytes) => `${(bytes / 1024).toFixed(2)} KiB`;
for (const name of ['library', 'typicalApp', 'restProxyOnly']) {
  const base = await measure(name, []);
  const rows = [
    ['as is', base],
    ['strings of 20+ chars emptied (~ the messages)', await measure(name, [], withoutText)],
    ['without subscriptions (lower bound)', await measure(name, [noSubscriptions])],
    ['without subscriptions (removed)', await measure(name, [removedSubscriptions]).catch((error) => (console.warn(`without subscriptions (removed): ${error.errors?.[0]?.text ?? error}`), undefined))],
    ['both', await measure(name, [noSubscriptions], withoutText)],
  ];
  console.log(name);
  for (const [label, size] of rows.filter(([, size]) => size !== undefined)) console.log(`  ${label.padEnd(50)} ${kib(size.min).padStart(10)} min ${kib(size.gzip).padStart(10)} gzip  (${((1 - size.gzip / base.gzip) * 100).toFixed(0)}% less)`);
}
