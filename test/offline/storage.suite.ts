/**
 * The contract of OutboxStorage (API.md section 10, "Storage"), run against any adapter:
 *
 *   storageSuite('FileStorage', { durable: true, open: (place) => new FileStorage({ path: join(dir, place) }) });
 *
 * `open(place)` makes a storage on a place named by the suite: a new name is an empty storage,
 * and for a durable adapter the same name again (after the first is closed) is the same storage.
 * No Node imports here: the suite runs in browsers too (IndexedDBStorage, in Chromium).
 *
 * What every adapter must do: load() reads every entry committed before it (and may be called
 * again, reading what is there now); commit() is atomic, keeps commits in the order they were
 * asked for, copies what it stores, and within one commit deletes first and then puts (the last
 * put of an id wins); close() is idempotent, and later loads and commits reject.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue, OutboxStorage, StoredObject } from '../../src/offline/storage.js';

export interface StorageSuiteOptions {
  /** What the adapter's `durable` says; a durable adapter is also checked across a close and a reopen. */
  readonly durable: boolean;
  readonly open: (place: string) => OutboxStorage | Promise<OutboxStorage>;
  /** Entries in the "many entries" test: a multiple of 40 (2,000 unless told). */
  readonly many?: number;
}

const byId = (entries: readonly StoredObject[]): StoredObject[] => [...entries].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** Strings and numbers that a careless encoding breaks: separators, quotes, escapes, lone surrogates, big and small numbers. */
const AWKWARD: JsonValue = {
  text: 'line\nbreak\r\ttab "quoted" \\back\\slash \u2028\u2029 \u0000 nul é 日本 😀',
  lone: 'lone surrogates \ud800 and \udfff',
  numbers: [0, 1, -1, 0.1, 1e300, -1e-300, 2 ** 53 - 1, -(2 ** 53)],
  flags: [true, false, null],
  nested: { a: [{ b: [[[]]], c: {} }], '': 'empty key', ' ': 'space key' },
  long: 'x'.repeat(100_000),
};

/** Ids and keys that an object used as a map, or a careless parser, gets wrong. */
const HOSTILE_IDS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '', ' ', '\n', '0', '-0', '1e3', 'a\u0000b', '😀', '"', '\\', 'x'.repeat(5000)];

export function storageSuite(name: string, options: StorageSuiteOptions): void {
  describe(`${name}: the OutboxStorage contract`, () => {
    const opened: OutboxStorage[] = [];
    let places = 0;
    const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    /** A new place, empty. */
    const place = () => `suite-${run}-${++places}`;
    const open = async (where: string): Promise<OutboxStorage> => {
      const storage = await options.open(where);
      opened.push(storage);
      return storage;
    };
    /** A fresh storage on a new place, loaded. */
    const fresh = async (): Promise<OutboxStorage> => {
      const storage = await open(place());
      expect(await storage.load()).toEqual([]);
      return storage;
    };
    /** What `storage`, closed, holds when opened again, as a restarted app sees it (durable adapters only; closed again after). */
    const reopen = async (storage: OutboxStorage, where: string): Promise<StoredObject[]> => {
      await storage.close();
      const again = await open(where);
      const loaded = byId(await again.load());
      await again.close();
      return loaded;
    };

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((storage) => storage.close().catch(() => undefined)));
    });

    it(`says durable: ${options.durable}`, async () => {
      expect((await fresh()).durable).toBe(options.durable);
    });

    it('loads what was committed, and keeps loading it', async () => {
      const where = place();
      const storage = await open(where);
      expect(await storage.load()).toEqual([]);
      await storage.commit({ put: [{ id: 'a', n: 1 }, { id: 'b', n: 2 }] });
      await storage.commit({ put: [{ id: 'c', n: 3 }] });
      const expected = [{ id: 'a', n: 1 }, { id: 'b', n: 2 }, { id: 'c', n: 3 }];
      expect(byId(await storage.load())).toEqual(expected);
      expect(byId(await storage.load())).toEqual(expected);
      if (options.durable) expect(await reopen(storage, where)).toEqual(expected);
    });

    it('replaces an entry put again with the same id, whole (no fields of the old one are kept)', async () => {
      const where = place();
      const storage = await open(where);
      await storage.commit({ put: [{ id: 'a', name: 'Ed', age: 40 }] });
      await storage.commit({ put: [{ id: 'a', name: 'Ann' }] });
      expect(await storage.load()).toEqual([{ id: 'a', name: 'Ann' }]);
      if (options.durable) expect(await reopen(storage, where)).toEqual([{ id: 'a', name: 'Ann' }]);
    });

    it('deletes, and a delete of an id it does not have is no error', async () => {
      const where = place();
      const storage = await open(where);
      await storage.commit({ put: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] });
      await storage.commit({ delete: ['b', 'missing'] });
      await storage.commit({ delete: [] });
      await storage.commit({});
      expect(byId(await storage.load())).toEqual([{ id: 'a' }, { id: 'c' }]);
      if (options.durable) expect(await reopen(storage, where)).toEqual([{ id: 'a' }, { id: 'c' }]);
    });

    it('within one commit deletes first, then puts; the last put of an id wins', async () => {
      const where = place();
      const storage = await open(where);
      await storage.commit({ put: [{ id: 'a', v: 1 }, { id: 'b', v: 1 }] });
      await storage.commit({ put: [{ id: 'a', v: 2 }, { id: 'c', v: 1 }, { id: 'c', v: 2 }], delete: ['a', 'b'] });
      const expected = [{ id: 'a', v: 2 }, { id: 'c', v: 2 }];
      expect(byId(await storage.load())).toEqual(expected);
      if (options.durable) expect(await reopen(storage, where)).toEqual(expected);
    });

    it('applies commits asked for without waiting in the order they were asked for', async () => {
      const where = place();
      const storage = await open(where);
      const commits = [];
      for (let v = 1; v <= 20; v++) commits.push(storage.commit(v % 5 === 0 ? { delete: ['a'] } : { put: [{ id: 'a', v }] }));
      await Promise.all(commits);
      expect(await storage.load()).toEqual([]);
      await Promise.all([storage.commit({ put: [{ id: 'a', v: 21 }] }), storage.commit({ put: [{ id: 'a', v: 22 }] })]);
      expect(await storage.load()).toEqual([{ id: 'a', v: 22 }]);
      if (options.durable) expect(await reopen(storage, where)).toEqual([{ id: 'a', v: 22 }]);
    });

    it('applies a commit whole or not at all: one entry that cannot be stored fails it, and nothing of it is applied', async () => {
      const where = place();
      const storage = await open(where);
      await storage.commit({ put: [{ id: 'a', v: 1 }, { id: 'b', v: 1 }] });
      // Reading `bad` throws, as a value no storage can copy does.
      const bad: StoredObject = {
        id: 'bad',
        get v(): JsonValue {
          throw new Error('this value cannot be read');
        },
      };
      await expect(storage.commit({ put: [{ id: 'a', v: 2 }, { id: 'c', v: 1 }, bad], delete: ['b'] })).rejects.toThrow();
      const before = [{ id: 'a', v: 1 }, { id: 'b', v: 1 }];
      expect(byId(await storage.load())).toEqual(before);
      // The storage still works after the failed commit.
      await storage.commit({ put: [{ id: 'd', v: 1 }] });
      expect(byId(await storage.load())).toEqual([...before, { id: 'd', v: 1 }]);
      if (options.durable) expect(await reopen(storage, where)).toEqual([...before, { id: 'd', v: 1 }]);
    });

    it('stores copies: an entry changed after its commit, or a loaded entry changed, is not changed in the storage', async () => {
      const storage = await fresh();
      const entry = { id: 'a', name: 'Ed', tags: ['x'], nested: { deep: { n: 1 } } };
      const committed = storage.commit({ put: [entry] });
      // Changed before the commit has even resolved: it was copied when it was asked for.
      entry.name = 'changed';
      entry.tags.push('y');
      await committed;
      entry.nested.deep.n = 2;
      const stored = { id: 'a', name: 'Ed', tags: ['x'], nested: { deep: { n: 1 } } };
      const [loaded] = await storage.load();
      expect(loaded).toEqual(stored);
      if (loaded) {
        Reflect.set(loaded, 'name', 'changed after load');
        Reflect.set(loaded, 'extra', true);
      }
      expect(await storage.load()).toEqual([stored]);
    });

    it('round-trips JSON values: escapes, separators, unicode, big and small numbers, nesting, long strings', async () => {
      const where = place();
      const storage = await open(where);
      const entry: StoredObject = { id: 'json', value: AWKWARD, empty: {}, list: [], zero: 0, text: '' };
      await storage.commit({ put: [entry] });
      expect(await storage.load()).toEqual([entry]);
      if (options.durable) expect(await reopen(storage, where)).toEqual([entry]);
    });

    it('keeps hostile ids and keys (__proto__, constructor, empty, control characters) as plain data', async () => {
      const where = place();
      const storage = await open(where);
      const withProto: unknown = JSON.parse('{"id":"keys","__proto__":{"polluted":true},"constructor":"c","prototype":1,"hasOwnProperty":"h"}');
      if (typeof withProto !== 'object' || withProto === null || typeof Reflect.get(withProto, 'id') !== 'string') throw new Error('unreachable');
      const keys: StoredObject = { id: 'keys', ...withProto };
      await storage.commit({ put: [...HOSTILE_IDS.map((id, n) => ({ id, n })), keys] });
      await storage.commit({ delete: ['toString', 'constructor'] });
      const check = (loaded: StoredObject[]) => {
        const ids = HOSTILE_IDS.filter((id) => id !== 'toString' && id !== 'constructor');
        expect(loaded.map((entry) => entry.id).sort()).toEqual([...ids, 'keys'].sort());
        for (const entry of loaded) {
          expect(Object.getPrototypeOf(entry)).toBe(Object.prototype);
          if (entry.id !== 'keys') expect(entry).toEqual({ id: entry.id, n: HOSTILE_IDS.indexOf(entry.id) });
        }
        const stored = loaded.find((entry) => entry.id === 'keys');
        expect(stored && Object.getOwnPropertyDescriptor(stored, '__proto__')?.value).toEqual({ polluted: true });
        expect(stored?.['constructor']).toBe('c');
        expect(Reflect.get({}, 'polluted')).toBeUndefined();
      };
      check(await storage.load());
      if (options.durable) check(await reopen(storage, where));
    });

    it(`keeps many entries (${options.many ?? 2000}), put in one commit and changed and deleted in many`, async () => {
      const count = options.many ?? 2000;
      const where = place();
      const storage = await open(where);
      const entries = Array.from({ length: count }, (_, n) => ({ id: `e${n}`, n, name: `entry ${n}`, fields: { a: n % 7, b: [n, String(n)] } }));
      await storage.commit({ put: entries });
      const commits = [];
      for (let n = 0; n < count; n += count / 20) {
        const ids = entries.slice(n, n + count / 40).map((entry) => entry.id);
        commits.push(storage.commit({ delete: ids, put: [{ id: `e${n + 1}`, n: -1 }] }));
      }
      await Promise.all(commits);
      const expected = new Map<string, StoredObject>(entries.map((entry) => [entry.id, entry]));
      for (let n = 0; n < count; n += count / 20) {
        for (const entry of entries.slice(n, n + count / 40)) expected.delete(entry.id);
        expected.set(`e${n + 1}`, { id: `e${n + 1}`, n: -1 });
      }
      expect(byId(await storage.load())).toEqual(byId([...expected.values()]));
      if (options.durable) expect(await reopen(storage, where)).toEqual(byId([...expected.values()]));
    });

    it('closes: a second close resolves, and later loads and commits reject', async () => {
      const storage = await fresh();
      await storage.commit({ put: [{ id: 'a' }] });
      await storage.close();
      await storage.close();
      await expect(storage.load()).rejects.toThrow();
      await expect(storage.commit({ put: [{ id: 'b' }] })).rejects.toThrow();
    });

    it.runIf(options.durable)('a durable storage keeps what was committed across a close and a reopen, and only that', async () => {
      const where = place();
      const storage = await open(where);
      await storage.commit({ put: [{ id: 'a', v: 1 }, { id: 'b', v: 1 }] });
      expect(await reopen(storage, where)).toEqual([{ id: 'a', v: 1 }, { id: 'b', v: 1 }]);
      const third = await open(where);
      await third.commit({ delete: ['a'], put: [{ id: 'c', v: 1 }] });
      expect(await reopen(third, where)).toEqual([{ id: 'b', v: 1 }, { id: 'c', v: 1 }]);
      expect(await (await open(place())).load()).toEqual([]);
    });
  });
}
