/**
 * Which source files make up the bundles of the production build (minified bytes each):
 * node bench/size-breakdown.mjs [development]
 */
import { build } from 'esbuild';
import { bundleOptions } from './bundle-size.mjs';

for (const name of ['library', 'typicalApp', 'restProxyOnly']) {
  const result = await build({ ...bundleOptions(name, process.argv[2] ?? 'production'), metafile: true });
  const output = Object.values(result.metafile.outputs)[0];
  console.log(`${name}: ${result.outputFiles[0].contents.length} bytes minified`);
  const rows = Object.entries(output.inputs).map(([file, info]) => [file, info.bytesInOutput]).sort((a, b) => b[1] - a[1]);
  for (const [file, bytes] of rows) console.log(`  ${String(bytes).padStart(6)}  ${file}`);
}
