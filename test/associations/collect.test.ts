/**
 * The default session holds clean records that nothing else references weakly (API.md 9.3): they
 * are collected; new and edited ones are held until synced. Observed with WeakRefs and a real
 * garbage collector, as test/store/release.test.ts does.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/index.js';
import { Session } from '../../src/associations.js';
import { collected, gc } from '../helpers/gc.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { Post, serve, User } from './models.js';


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

/** Load the users in a store of `session`; keep one record, drop the store (or destroy it); weak references to the store and the other records. */
async function keepOne(session: Session, destroy: boolean): Promise<{ kept: User | undefined; store: WeakRef<object>; others: WeakRef<object>[] }> {
  const store = new Store({ model: User, session, pageSize: 0 });
  await store.load();
  const kept = store.getById(3);
  const others = store.getRange().filter((record) => record !== kept).map((record) => new WeakRef(record));
  if (destroy) store.destroy();
  return { kept, store: new WeakRef(store), others };
}

describe('records a store lists (found through the store)', () => {
  it('a store collected without destroy(): its other records are collected, a referenced one is still the session\'s record of its id', async () => {
    const session = new Session();
    const { kept, store, others } = await keepOne(session, false);
    expect(await collected([store])).toBe(0);
    expect(await collected(others)).toBe(0);
    expect(kept?.session).toBe(session);
    expect(session.get(User, 3)).toBe(kept);
    expect(await User.load(3, { session })).toBe(kept);
    expect(session.records(User)).toEqual([kept]);
  });

  it('a store destroyed: its clean records are collected, a referenced one is still found', async () => {
    const session = new Session();
    const { kept, others } = await keepOne(session, true);
    expect(await collected(others)).toBe(0);
    expect(await User.load(3, { session })).toBe(kept);
  });

  it('a store whose local filter refers to the store itself is collected (the session keeps its records, not its list and view)', async () => {
    const session = new Session();
    const ref = await (async () => {
      const store: Store<User> = new Store({ model: User, session, pageSize: 0, filters: [{ property: 'name', filterFn: () => store.model === User }] });
      await store.load();
      expect(store.getCount()).toBe(50);
      return new WeakRef(store);
    })();
    expect(await collected([ref])).toBe(0);
  });

  it('between a store\'s collection and the task that hands its records over, they are still the session\'s', async () => {
    server.db.posts?.push({ id: 1, title: 'one', userId: 1 });
    const session = new Session();
    const users = new Store({ model: User, session, pageSize: 0 });
    await users.load();
    const { post, ref } = await (async () => {
      const posts = new Store({ model: Post, session, pageSize: 0 });
      await posts.load();
      return { post: posts.getById(1), ref: new WeakRef(posts) };
    })();
    let seen = false;
    for (let round = 0; round < 30 && !seen; round++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      gc();
      if (ref.deref() !== undefined) continue;
      seen = true;
      // Collected just now: no task has run since (the FinalizationRegistry's comes later).
      expect(post?.session).toBe(session);
      expect(post?.getUser()).toBe(users.getById(1));
    }
    expect(seen).toBe(true);
    expect(await Post.load(1, { session })).toBe(post);
  });
});
