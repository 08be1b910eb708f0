// Builds an example with Vite and serves it through the demo's server (its json-server under /api).
//   node examples/start.mjs react      http://127.0.0.1:3000/ (PORT=0: any free port)
//   node examples/start.mjs vue
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemo } from '../demo/server.mjs';
import { buildExample, EXAMPLES } from './build.mjs';

const name = process.argv[2] ?? '';
if (!Object.hasOwn(EXAMPLES, name)) {
  console.error(`usage: node examples/start.mjs <${Object.keys(EXAMPLES).join('|')}>`);
  process.exit(1);
}
const rawPort = process.env.PORT ?? '3000';
if (!/^\d+$/.test(rawPort.trim()) || Number(rawPort) > 65535) {
  console.error(`PORT must be a port number from 0 to 65535 (0 picks a free one), got ${JSON.stringify(rawPort)}`);
  process.exit(1);
}

// Built into a temporary directory, deleted on exit.
const outDir = mkdtempSync(join(tmpdir(), `rest-proxy-example-${name}-`));
const removeBuild = () => rmSync(outDir, { recursive: true, force: true });
let demo;
try {
  await buildExample(name, { outDir });
  demo = await startDemo({ port: Number(rawPort), publicDir: outDir });
} catch (error) {
  removeBuild();
  console.error(`The ${name} example could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
console.log(`rest-proxy ${name} example: open ${demo.url}`);
console.log(`  json-server API at ${demo.url}api/users (a temporary copy of demo/db.json)`);
console.log('  press Ctrl-C to stop');

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    void demo.close().finally(() => {
      removeBuild();
      process.exit(0);
    });
  });
}
