#!/usr/bin/env node
/**
 * `npm test`: the build, the lint, the Node run (`vitest run --typecheck`: its tsc checks the whole
 * tsconfig.json, src, test, bench, demo and examples, and fails on an error in any file, so no
 * separate `tsc --noEmit`) and the Chromium run, side by side as far as they allow: only the Node
 * run needs the build (dist/ for test/build, bench/size-budget and the grids built from dist/prod);
 * the lint and the Chromium run need nothing. Most of the runs' time is waiting (on servers, child
 * processes, Chromium), so on two cores they overlap well.
 *
 * The Node run prints as it goes; the others' output is held back and printed when each ends, so
 * that nothing interleaves. The first step that fails stops the others. Prints each step's wall time
 * at the end.
 */
import { spawn } from 'node:child_process';

/** name, command, arguments, and the step it waits for. */
const STEPS = [
  { name: 'build', command: 'npm', args: ['run', '-s', 'build'] },
  { name: 'lint', command: 'npm', args: ['run', '-s', 'lint'] },
  { name: 'chromium (vitest.browser.config.ts)', command: 'npx', args: ['vitest', 'run', '--config', 'vitest.browser.config.ts'] },
  // The package compiled by the build is the one test/build/compiled.ts would compile again.
  { name: 'node (vitest run --typecheck)', command: 'npx', args: ['vitest', 'run', '--typecheck'], after: 'build', live: true, env: { REST_PROXY_BUILT: '1' } },
];

const running = new Set();
let stopping = false;

/** Runs one step; its output is held back unless the step is `live`. */
function run({ name, command, args, live = false, env = {} }) {
  const started = performance.now();
  return new Promise((resolve) => {
    // A process group of its own, so that a failure elsewhere stops the step and all its children.
    const child = spawn(command, args, { stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, ...env } });
    running.add(child);
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    child.on('close', (code, signal) => {
      running.delete(child);
      if (!live && output.length > 0) process.stdout.write(Buffer.concat([Buffer.from(`\n---- ${name} ----\n`), ...output]));
      resolve({ name, ok: code === 0, code: code ?? signal, seconds: (performance.now() - started) / 1000 });
    });
  });
}

function stopAll() {
  stopping = true;
  for (const child of running) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

process.on('SIGINT', () => {
  stopAll();
  process.exitCode = 130;
});

const times = [];
const finished = new Map();
function start(step) {
  const promise = (async () => {
    if (step.after !== undefined) {
      const before = await finished.get(step.after);
      if (!before.ok) return { name: step.name, ok: false, code: `not run: ${step.after} failed`, seconds: 0, skipped: true };
    }
    if (stopping) return { name: step.name, ok: false, code: 'stopped', seconds: 0, skipped: true };
    const result = await run(step);
    if (!result.ok && !stopping) stopAll();
    return result;
  })();
  finished.set(step.name, promise);
  return promise;
}

const results = await Promise.all(STEPS.map(start));
times.push(...results);
const failed = results.filter((result) => !result.ok && !result.skipped && result.code !== 'SIGTERM');
console.log(`\nnpm test, wall time per step (side by side): ${times.map((t) => `${t.name} ${t.seconds.toFixed(1)} s${t.ok ? '' : ` (${t.skipped || t.code === 'SIGTERM' ? 'stopped' : 'failed'}: ${t.code})`}`).join(', ')}`);
process.exitCode = failed.length === 0 && results.every((result) => result.ok) ? 0 : 1;
