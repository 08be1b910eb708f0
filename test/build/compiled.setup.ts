// globalSetup of vitest.config.ts: an empty directory for this run's compiled package
// (compiled.ts), removed at the end. Nothing is compiled here: only a file that needs it does.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'rest-proxy-compiled-'));
  project.provide('compiledPackageDir', dir);
  return () => rm(dir, { recursive: true, force: true });
}
