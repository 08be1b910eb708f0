/**
 * IndexedDBStorage where it cannot work: Node has no IndexedDB, and an IndexedDB whose open()
 * throws (a SecurityError, as in a sandboxed frame) makes load() and commit() reject with
 * OutboxError 'unavailable', never a silent fallback. Bad options are TypeErrors. The storage
 * itself runs in Chromium: test/offline/indexeddb.browser.test.ts (the shared suite) and
 * test/offline/indexeddb.chromium.test.ts (reloads, a real sandboxed frame, quota).
 */
import { describe, expect, it } from 'vitest';
import { IndexedDBStorage, OutboxError } from '../../src/offline.js';

async function outboxError(promise: Promise<unknown>): Promise<OutboxError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof OutboxError)) throw new Error(`expected an OutboxError, got ${String(error)}`);
  return error;
}

describe('IndexedDBStorage where there is no IndexedDB', () => {
  it('load() and commit() reject with kind "unavailable"', async () => {
    const storage = new IndexedDBStorage();
    expect(storage.durable).toBe(true);
    expect((await outboxError(storage.load('crm'))).kind).toBe('unavailable');
    expect((await outboxError(storage.commit({ put: [{ id: 'a' }] }))).kind).toBe('unavailable');
  });

  it('an open() that throws SecurityError: "unavailable", with the cause', async () => {
    const denied = new DOMException('access to the IndexedDB API is denied in this context', 'SecurityError');
    const storage = new IndexedDBStorage({
      indexedDB: {
        open() {
          throw denied;
        },
      },
    });
    const error = await outboxError(storage.load('crm'));
    expect(error.kind).toBe('unavailable');
    expect(error.cause).toBe(denied);
    expect(error.message).toContain('rest-proxy-outbox:crm');
    expect(error.message).toContain('SecurityError');
  });
});

describe('IndexedDBStorage: bad input', () => {
  it('names the database from the outbox, unless given a name', () => {
    expect(new IndexedDBStorage().databaseName('crm')).toBe('rest-proxy-outbox:crm');
    expect(new IndexedDBStorage({ name: 'mine' }).databaseName('crm')).toBe('mine');
  });

  it.each([[{ name: '' }], [{ name: 3 }], [null], ['crm']])('refuses the options %j', (options) => {
    // @ts-expect-error: hostile options
    expect(() => new IndexedDBStorage(options)).toThrow(TypeError);
  });

  it('refuses an entry without a string id before opening anything', async () => {
    const storage = new IndexedDBStorage();
    // @ts-expect-error: hostile entry
    await expect(storage.commit({ put: [{ id: 1 }] })).rejects.toThrow(TypeError);
    // @ts-expect-error: hostile id
    await expect(storage.commit({ delete: [null] })).rejects.toThrow(TypeError);
  });
});
