#!/usr/bin/env node
/**
 * `npm test`: the build and the lint side by side (neither needs the other), then the Node run
 * (`vitest run --typecheck`: its tsc checks the whole tsconfig.json, src, test, bench, demo and
 * examples, and fails on an error in any file, so no separate `tsc --noEmit`), then the Chromium
 * run. Stops at the first phase that fails; prints each phase's wall time at the end.
 */
import { spawn } from 'node:child_process';

const PHASES = [
  [
    ['build', 'npm', ['run', '-s', 'build']],
    ['lint', 'npm', ['run', '-s', 'lint']],
  ],
  [['node (vitest run --typecheck)', 'npx', ['vitest', 'run', '--typecheck']]],
  [['chromium (vitest.browser.config.ts)', 'npx', ['vitest', 'run', '--config', 'vitest.browser.config.ts']]],
];

/** Runs one command; its output is held back when it runs beside another, so the two do not interleave. */
function run([name, command, args], quiet) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    child.on('close', (code, signal) => {
      if (quiet) process.stdout.write(Buffer.concat(output));
      resolve({ name, ok: code === 0, code: code ?? signal, seconds: (performance.now() - started) / 1000 });
    });
  });
}

const times = [];
let failed;
for (const phase of PHASES) {
  const results = await Promise.all(phase.map((step) => run(step, phase.length > 1)));
  times.push(...results);
  failed = results.find((result) => !result.ok);
  if (failed !== undefined) break;
}
console.log(`\nnpm test, wall time per phase: ${times.map((t) => `${t.name} ${t.seconds.toFixed(1)} s${t.ok ? '' : ` (failed: ${t.code})`}`).join(', ')}`);
process.exitCode = failed === undefined ? 0 : 1;
