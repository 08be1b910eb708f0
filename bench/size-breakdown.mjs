/**
 * Which source files make up the bundles (minified bytes each): node bench/size-breakdown.mjs
 */
import { build } from 'esbuild';
import { ENTRIES } from './bundle-size.mjs';

for (const name of ['library', 'restProxyOnly']) {
  const result = await build({ ...ENTRIES[name], bundle: true, minify: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, metafile: true, logLevel: 'silent' });
  const output = Object.values(result.metafile.outputs)[0];
  console.log(`${name}: ${result.outputFiles[0].contents.length} bytes minified`);
  const rows = Object.entries(output.inputs).map(([file, info]) => [file, info.bytesInOutput]).sort((a, b) => b[1] - a[1]);
  for (const [file, bytes] of rows) console.log(`  ${String(bytes).padStart(6)}  ${file}`);
}
