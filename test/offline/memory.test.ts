import { MemoryStorage } from '../../src/offline.js';
import { storageSuite } from './storage.suite.js';

storageSuite('MemoryStorage', { durable: false, open: () => new MemoryStorage() });
