// Preloaded into the json-server child (node --import): exit as soon as the test process that
// started us is gone, even if it was killed without running its exit handlers, and take our
// temp db directory with us.
import { rmSync } from 'node:fs';
import { basename, dirname } from 'node:path';

const parent = process.ppid;
const dbDir = dirname(process.argv[2] ?? '');

setInterval(() => {
  if (process.ppid === parent) return;
  if (basename(dbDir).startsWith('rest-proxy-json-server-')) rmSync(dbDir, { recursive: true, force: true });
  process.exit(0);
}, 500).unref();
