import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { FileStorage } from '../../src/offline.js';
import { storageSuite } from './storage.suite.js';

const dir = await mkdtemp(join(tmpdir(), 'rest-proxy-file-suite-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

storageSuite('FileStorage', { durable: true, open: (place) => new FileStorage({ path: join(dir, `${place}.log`) }) });
