/**
 * IndexedDBStorage against the OutboxStorage contract (test/offline/storage.suite.ts), in
 * Chromium (vitest browser mode): each place is its own database, deleted after the run.
 */
import { afterAll } from 'vitest';
import { IndexedDBStorage } from '../../src/offline.js';
import { storageSuite } from './storage.suite.js';

const names = new Set<string>();

storageSuite('IndexedDBStorage', {
  durable: true,
  open: (place) => {
    names.add(place);
    return new IndexedDBStorage({ name: place });
  },
});

afterAll(async () => {
  await Promise.all(
    [...names].map(
      (name) =>
        new Promise((resolve) => {
          const request = indexedDB.deleteDatabase(name);
          request.onsuccess = request.onerror = request.onblocked = resolve;
        }),
    ),
  );
});
