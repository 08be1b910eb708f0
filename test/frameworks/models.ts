/**
 * What the React, Vue and Svelte tests in Node share: two models, a loaded store, and a way to
 * count the subscriptions a binding keeps alive.
 */
import { MemoryProxy, Model, Store } from '../../src/index.js';

export class User extends Model<{ id: number; name: string }> {
  static override fields = ['id', 'name'];
  static override entityName = 'users';
}

export class Post extends Model<{ id: number; title: string }> {
  static override fields = ['id', 'title'];
  static override entityName = 'posts';
}

/** A store of users Ed (1) and Ann (2), loaded. */
export async function loadedStore(): Promise<Store<User>> {
  const store = new Store<User>({ model: User, proxy: new MemoryProxy({ data: [{ id: 1, name: 'Ed' }, { id: 2, name: 'Ann' }] }) });
  await store.load();
  return store;
}

export function userOf(store: Store<User>, id: number): User {
  const record = store.getById(id);
  if (record === undefined) throw new Error(`no user ${id}`);
  return record;
}

/** Every notification of the core and every framework update queued after it has happened. */
export function settled(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Counts the subscriptions of one store or record that are alive (an unsubscribe called twice counts once). */
export function countSubscriptions(target: Store<User> | User): () => number {
  let alive = 0;
  const subscribe = target.subscribe.bind(target);
  Object.defineProperty(target, 'subscribe', {
    value: (listener: (snapshot: unknown) => void) => {
      alive++;
      const unsubscribe = subscribe(listener);
      let done = false;
      return () => {
        if (!done) alive--;
        done = true;
        unsubscribe();
      };
    },
  });
  return () => alive;
}
