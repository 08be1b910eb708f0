/**
 * The default session holds clean records that nothing else references weakly (API.md 9.3): they
 * are collected; new and edited ones are held until synced. Observed with WeakRefs and a real
 * garbage collector, as test/store/release.test.ts does.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/index.js';
import { Session } from '../../src/associations.js';
import { collected } from '../helpers/gc.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { serve, User } from './models.js';


let server: TestServer;
beforeEach(async () => {
  server = await startTestServer({ resources: { users: Array.from({ length: 50 }, (_, index) => ({ id: index + 1, name: `user ${index + 1}` })), posts: [] } });
  serve(server.url);
});
afterEach(async () => {
  await server.close();
});

/** Load the users in a store of the default session, drop the store; weak references to the records, and the edited one kept. */
async function loadAndDrop(edit: boolean): Promise<{ refs: WeakRef<object>[]; ids: number[] }> {
  const store = new Store({ model: User, pageSize: 0 });
  expect(store.session).toBe(Session.default);
  await store.load();
  if (edit) store.getById(3)?.set('name', 'edited');
  const made = store.getNewRecords().length === 0 ? store.add({ name: 'new' }) : [];
  return { refs: [...store.getRange(), ...made].map((record) => new WeakRef(record)), ids: store.getRange().map((record) => Number(record.getId())) };
}

describe('the default session lets clean records go', () => {
  it('an unreferenced clean record of the default session is collected; the session forgets it', async () => {
    const { refs } = await loadAndDrop(false);
    expect(Session.default.get(User, 1)).toBeDefined();
    // The new record (the last one) is held until synced; the 50 clean ones go.
    expect(await collected(refs.slice(0, 50))).toBe(0);
    expect(Session.default.get(User, 1)).toBeUndefined();
    expect(refs[50]?.deref()).toBeDefined();
  });

  it('an edited record is held until it is saved, then let go', async () => {
    const { refs } = await loadAndDrop(true);
    expect(await collected(refs.slice(0, 50))).toBe(1);
    const saved = async (): Promise<WeakRef<object>> => {
      const edited = Session.default.get(User, 3);
      expect(edited?.get('name')).toBe('edited');
      await edited?.save();
      return new WeakRef(edited ?? {});
    };
    expect(await collected([await saved()])).toBe(0);
  });
});
