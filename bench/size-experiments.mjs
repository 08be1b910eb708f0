/**
 * What parts of the library cost, measured by bundling variants of it (min+gzip, as
 * bench/bundle-size.mjs does):
 *
 *   node bench/size-experiments.mjs
 *
 * - with the strings of 20 characters or more emptied (about what the messages cost);
 * - without the subscriptions (their modules stubbed out: a lower bound, the calls stay);
 * - both.
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import ts from 'typescript';
import { ENTRIES } from './bundle-size.mjs';

const noSubscriptions = {
  name: 'no-subscriptions',
  setup(b) {
    b.onLoad({ filter: /util[\\/]notify\.ts$/ }, () => ({
      contents: 'export function schedule() {} export class Subscribers { list = []; constructor(snapshot) { this.snapshot = snapshot; } add() { return () => {}; } flush() {} }',
      loader: 'ts',
    }));
    b.onLoad({ filter: /model[\\/]snapshot\.ts$/ }, () => ({ contents: 'export class RecordSnapshot { constructor(record) { this.record = record; } } export function isSnapshotOf() { return false; }', loader: 'ts' }));
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
  let out = '';
  let at = 0;
  for (const [start, end, replacement] of cuts.sort((a, b) => a[0] - b[0])) {
    out += code.slice(at, start) + replacement;
    at = end;
  }
  return out + code.slice(at);
}

async function measure(name, plugins, transform = (code) => code) {
  const result = await build({ ...ENTRIES[name], bundle: true, minify: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent', plugins });
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
    ['both', await measure(name, [noSubscriptions], withoutText)],
  ];
  console.log(name);
  for (const [label, size] of rows) console.log(`  ${label.padEnd(50)} ${kib(size.min).padStart(10)} min ${kib(size.gzip).padStart(10)} gzip  (${((1 - size.gzip / base.gzip) * 100).toFixed(0)}% less)`);
}
