/**
 * Snapshots at their edges (API.md sections 6 and 8; issue 19 item 9): an option property set
 * after construction tells subscribers when the snapshot shows it; an edit the store does not
 * show keeps its snapshot; what a snapshot holds cannot change the record behind it.
 */
import { describe, expect, it } from 'vitest';
import { Model, Store, type StoreSnapshot } from '../../src/index.js';

interface UserData {
  id: number;
  name: string;
  age: number;
  born: Date;
  tags: string[];
  address: { city: string; lines: string[] };
}

class User extends Model<UserData> {
  static override entityName = 'User';
  static override fields = [{ name: 'id', type: 'int' }, 'name', { name: 'age', type: 'int' }, { name: 'born', type: 'date' }, 'tags', 'address'];
}

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function rows(count: number): Partial<UserData>[] {
  return Array.from({ length: count }, (_, index) => ({ id: index + 1, name: `user ${index + 1}`, age: 20 + (index % 50) }));
}

/** A store and what its subscriber was told (the first call, the current snapshot, apart). */
function watched(store: Store<User>): StoreSnapshot<User>[] {
  const told: StoreSnapshot<User>[] = [];
  store.subscribe((snapshot) => told.push(snapshot));
  told.length = 0;
  return told;
}

describe('option properties set after construction', () => {
  it('pageSize: the snapshot and its subscribers follow (pageCount), once per change', async () => {
    const store = new Store<User>({ model: User, data: rows(95) });
    const told = watched(store);
    const before = store.getSnapshot();
    expect(before.pageCount).toBe(4);
    store.pageSize = 10;
    expect(store.getSnapshot().pageCount).toBe(10);
    await settle();
    expect(told.map((snapshot) => snapshot.pageCount)).toEqual([10]);

    store.pageSize = 10; // the same again: nothing visible changed
    await settle();
    expect(told.length).toBe(1);
  });

  it('sorters and filters assigned as properties are told too; an option the snapshot does not show changes nothing', async () => {
    const store = new Store<User>({ model: User, data: rows(5) });
    const told = watched(store);
    const before = store.getSnapshot();
    store.autoSync = false;
    store.remoteSort = true;
    await settle();
    expect([told.length, store.getSnapshot()]).toEqual([0, before]);

    store.sorters = [{ property: 'age', direction: 'DESC' }];
    await settle();
    expect(told.map((snapshot) => snapshot.sorters)).toEqual([[{ property: 'age', direction: 'DESC' }]]);
    store.filters = [{ property: 'age', operator: '>', value: 21 }];
    await settle();
    expect(told.at(-1)?.filters).toEqual([{ property: 'age', operator: '>', value: 21 }]);
  });
});

describe('an edit the store does not show', () => {
  it('of a record a local filter hides keeps the same snapshot and tells nobody; a shown one renews it', async () => {
    const store = new Store<User>({ model: User, data: rows(6) });
    await store.filter('age', 22, '>=');
    const hidden = store.getById(1);
    const shown = store.getById(4);
    if (hidden === undefined || shown === undefined) throw new Error('no record');
    expect([store.indexOf(hidden), store.indexOf(shown)]).toEqual([-1, 1]);
    shown.set('name', 'first edit'); // the store has changes from here on
    await settle();
    const told = watched(store);
    const before = store.getSnapshot();

    hidden.set('name', 'not shown');
    await settle();
    expect([store.getSnapshot(), told.length]).toEqual([before, 0]);

    shown.set('name', 'shown');
    await settle();
    expect(store.getSnapshot()).not.toBe(before);
    expect(told.length).toBe(1);
  });

  it('a hidden edit that changes hasChanges is a visible change', async () => {
    const store = new Store<User>({ model: User, data: rows(6) });
    await store.filter('age', 22, '>=');
    const before = store.getSnapshot();
    store.getById(1)?.set('name', 'edited');
    expect(store.getSnapshot()).not.toBe(before);
    expect(store.getSnapshot().hasChanges).toBe(true);
  });

  it('of a removed record keeps the same snapshot', async () => {
    const store = new Store<User>({ model: User, data: rows(3) });
    const [gone] = store.remove(store.getAt(0) ?? []);
    const before = store.getSnapshot();
    gone?.set('name', 'edited after its removal');
    expect(store.getSnapshot()).toBe(before);
  });
});

describe("what a snapshot holds cannot change the record", () => {
  function user(): User {
    return new User({ id: 1, name: 'Ed', born: new Date('1990-05-01T00:00:00Z'), tags: ['a', 'b'], address: { city: 'Oslo', lines: ['Main st 1'] } });
  }

  it('arrays and objects are frozen copies, Dates are copies: the record stays as it was, and clean', () => {
    const ed = user();
    ed.commit();
    const snapshot = ed.getSnapshot();
    expect(() => snapshot.get('tags').push('c')).toThrow(TypeError);
    expect(() => {
      snapshot.get('address').city = 'Bergen';
    }).toThrow(TypeError);
    expect(() => snapshot.get('address').lines.push('x')).toThrow(TypeError);
    snapshot.get('born').setUTCFullYear(1900);
    expect([ed.get('tags'), ed.get('address'), ed.get('born').toISOString()]).toEqual([['a', 'b'], { city: 'Oslo', lines: ['Main st 1'] }, '1990-05-01T00:00:00.000Z']);
    expect(ed.dirty).toBe(false);
    // The values are equal to the record's, and the snapshot is the same while nothing changed.
    expect(ed.getSnapshot()).toBe(snapshot);
    expect(snapshot.values.tags).toEqual(['a', 'b']);
  });

  it('so are the previous values in modified, and the record still tells its own edits', async () => {
    const ed = user();
    ed.commit();
    const seen: string[][] = [];
    ed.subscribe((snapshot) => seen.push([...snapshot.get('tags')]));
    ed.set('tags', ['c']);
    await settle();
    const snapshot = ed.getSnapshot();
    expect(snapshot.modified.tags).toEqual(['a', 'b']);
    expect(() => snapshot.modified.tags?.push('z')).toThrow(TypeError);
    ed.reject();
    expect(ed.get('tags')).toEqual(['a', 'b']);
    await settle();
    expect(seen).toEqual([['a', 'b'], ['c'], ['a', 'b']]);
  });

  it('a value that refers to itself is copied to a bound, not forever', () => {
    interface Loop {
      city: string;
      lines: string[];
      self?: Loop;
    }
    const loop: Loop = { city: 'Oslo', lines: [] };
    loop.self = loop;
    const ed = new User({ id: 1, name: 'Ed' });
    ed.set('address', loop);
    expect(ed.getSnapshot().get('address')).toMatchObject({ city: 'Oslo', self: { city: 'Oslo' } });
  });
});
