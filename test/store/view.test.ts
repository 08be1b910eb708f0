/**
 * The store's view kept as records change (API.md section 8, issue 20): an edited record moves
 * to its place in a locally sorted store (ties in the order added or loaded), leaves or joins a
 * locally filtered one, its group follows; snapshots keep section 8's identity rules; a store
 * reloaded, re-sorted or re-filtered while edits are pending ends in the right order.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Model, RestProxy, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';

interface Row {
  id: number;
  name: string;
  dept: string;
  age: number;
}

class Person extends Model<Row> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', 'dept', { name: 'age', type: 'int' }];
}

const ROWS: Row[] = [
  { id: 1, name: 'Carol', dept: 'eng', age: 41 },
  { id: 2, name: 'Dave', dept: 'ops', age: 29 },
  { id: 3, name: 'Bob', dept: 'eng', age: 35 },
  { id: 4, name: 'Ann', dept: 'ops', age: 29 },
  { id: 5, name: 'Eve', dept: 'sales', age: 23 },
];

const ids = (store: Store<Person>): unknown[] => store.getRange().map((record) => record.getId());
const shownIds = (store: Store<Person>): unknown[] => store.getSnapshot().records.map((record) => record.getId());
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

function people(config: ConstructorParameters<typeof Store<Person>>[0] = {}): Store<Person> {
  return new Store<Person>({ model: Person, data: ROWS.map((row) => ({ ...row })), ...config });
}

function record(store: Store<Person>, id: number): Person {
  const found = store.getById(id);
  if (found === undefined) throw new Error(`no record ${id}`);
  return found;
}

describe('a locally sorted store keeps its order as records change', () => {
  it('a record whose sort key changes moves to its place, in the store and in its snapshot', () => {
    const store = people({ sorters: [{ property: 'age', direction: 'ASC' }] });
    expect(ids(store)).toEqual([5, 2, 4, 3, 1]);
    record(store, 5).set('age', 50);
    expect(ids(store)).toEqual([2, 4, 3, 1, 5]);
    expect(shownIds(store)).toEqual([2, 4, 3, 1, 5]);
    record(store, 1).set('age', 1);
    expect(shownIds(store)).toEqual([1, 2, 4, 3, 5]);
    expect(store.indexOf(record(store, 3))).toBe(3);
  });

  it('ties keep the order the records were added in, wherever the record comes from', () => {
    const store = people({ sorters: [{ property: 'age', direction: 'ASC' }] });
    // 2 and 4 are 29; 3 (35) joins them: it goes between them, as it was added between them.
    record(store, 3).set('age', 29);
    expect(ids(store)).toEqual([5, 2, 3, 4, 1]);
    record(store, 1).set('age', 29);
    expect(ids(store)).toEqual([5, 1, 2, 3, 4]);
    record(store, 1).set('age', 41);
    expect(ids(store)).toEqual([5, 2, 3, 4, 1]);
  });

  it('descending, with empty values last when ascending and first when descending, as a full sort does', () => {
    const store = people({ sorters: [{ property: 'name', direction: 'DESC' }] });
    expect(ids(store)).toEqual([5, 2, 1, 3, 4]);
    record(store, 4).set('name', 'Zoe');
    expect(ids(store)).toEqual([4, 5, 2, 1, 3]);
    record(store, 2).set('name', null);
    expect(ids(store)).toEqual([2, 4, 5, 1, 3]);
    void store.sort('name', 'ASC');
    expect(ids(store)).toEqual([3, 1, 5, 4, 2]);
  });

  it('an added record takes its place; a removed one leaves; a reject moves a record back', () => {
    const store = people({ sorters: [{ property: 'name', direction: 'ASC' }] });
    const [fay] = store.add({ name: 'Bea', dept: 'eng', age: 30 });
    expect(store.getRange().map((r) => r.get('name'))).toEqual(['Ann', 'Bea', 'Bob', 'Carol', 'Dave', 'Eve']);
    if (fay) store.remove(fay);
    record(store, 3).set('name', 'Zed');
    expect(ids(store)).toEqual([4, 1, 2, 5, 3]);
    record(store, 3).reject();
    expect(ids(store)).toEqual([4, 3, 1, 2, 5]);
  });

  it('sorted by several sorters and a sorter function, an edit still lands in place', () => {
    const age = (record: unknown): number => (record instanceof Person ? record.get('age') : 0);
    const store = people({ sorters: [{ property: 'dept', direction: 'ASC' }, { property: 'age', sorterFn: (a, b) => age(a) - age(b) }] });
    expect(ids(store)).toEqual([3, 1, 2, 4, 5]);
    record(store, 1).set('age', 20);
    expect(ids(store)).toEqual([1, 3, 2, 4, 5]);
    record(store, 5).set('dept', 'eng');
    record(store, 2).set('age', 99);
    expect(ids(store)).toEqual([1, 5, 3, 4, 2]);
  });

  it('a remote-sorted store is never sorted locally: an edit leaves the order as the server gave it', () => {
    const store = people({ remoteSort: true, sorters: [{ property: 'age', direction: 'ASC' }] });
    expect(ids(store)).toEqual([1, 2, 3, 4, 5]);
    record(store, 1).set('age', 1);
    expect(ids(store)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('a locally filtered store re-tests only the record that changed', () => {
  it('a record that stops matching leaves, one that starts matching appears in its place', () => {
    const store = people({ filters: [{ property: 'dept', value: 'eng' }] });
    expect(ids(store)).toEqual([1, 3]);
    record(store, 1).set('dept', 'ops');
    expect(ids(store)).toEqual([3]);
    expect(store.getCount()).toBe(1);
    record(store, 4).set('dept', 'eng');
    record(store, 1).set('dept', 'eng');
    expect(ids(store)).toEqual([1, 3, 4]);
    expect(shownIds(store)).toEqual([1, 3, 4]);
  });

  it('records removed one by one, the first before anything changed, all leave (found by fast-check)', () => {
    const store = people({ filters: [{ property: 'age', operator: '!=', value: 0 }] });
    expect(ids(store)).toEqual([1, 2, 3, 4, 5]);
    for (const id of [1, 2, 3]) store.remove(record(store, id));
    expect(ids(store)).toEqual([4, 5]);
    expect(shownIds(store)).toEqual([4, 5]);
    record(store, 4).set('age', 0);
    expect(ids(store)).toEqual([5]);
  });

  it('sorted and filtered: a record joins at its sorted place', () => {
    const store = people({ sorters: [{ property: 'age', direction: 'DESC' }], filters: [{ property: 'age', operator: '>=', value: 29 }] });
    expect(ids(store)).toEqual([1, 3, 2, 4]);
    record(store, 5).set('age', 30);
    expect(ids(store)).toEqual([1, 3, 5, 2, 4]);
    record(store, 1).set('age', 10);
    expect(ids(store)).toEqual([3, 5, 2, 4]);
    void store.clearFilter();
    expect(ids(store)).toEqual([3, 5, 2, 4, 1]);
  });
});

describe('groups follow the records', () => {
  it('a record whose group field changes moves to its new group', () => {
    const store = people({ groupField: 'dept' });
    const groups = (): [unknown, unknown[]][] => store.getGroups().map((group) => [group.name, group.records.map((r) => r.getId())]);
    expect(groups()).toEqual([['eng', [1, 3]], ['ops', [2, 4]], ['sales', [5]]]);
    record(store, 3).set('dept', 'sales');
    expect(groups()).toEqual([['eng', [1]], ['ops', [2, 4]], ['sales', [3, 5]]]);
    record(store, 1).set('dept', 'ops');
    expect(groups()).toEqual([['ops', [1, 2, 4]], ['sales', [3, 5]]]);
  });
});

describe('snapshots keep section 8 identity rules', () => {
  it('an edit of a record a local filter hides makes no new snapshot; the first edit of the store does (hasChanges)', () => {
    const store = people({ filters: [{ property: 'dept', value: 'eng' }] });
    record(store, 1).set('age', 42);
    const before = store.getSnapshot();
    expect(before.hasChanges).toBe(true);
    record(store, 2).set('age', 30);
    expect(store.getSnapshot()).toBe(before);
    record(store, 4).set({ name: 'Anna', age: 31 });
    expect(store.getSnapshot()).toBe(before);
  });

  it('an edit of a shown record makes a new records array; one that changes nothing keeps it', async () => {
    const store = people({ sorters: [{ property: 'age', direction: 'ASC' }] });
    const told: unknown[] = [];
    store.subscribe((snapshot) => told.push(snapshot));
    const before = store.getSnapshot();
    record(store, 3).set('name', 'Bobby');
    const edited = store.getSnapshot();
    expect(edited).not.toBe(before);
    expect(edited.records).not.toBe(before.records);
    expect(edited.records).toEqual(before.records);
    record(store, 3).set('name', 'Bobby');
    expect(store.getSnapshot()).toBe(edited);
    await settle();
    expect(told).toEqual([before, edited]);
  });

  it('a record that leaves the view while hidden, or is hidden and edited, is told only when shown', async () => {
    const store = people({ filters: [{ property: 'dept', value: 'eng' }] });
    record(store, 1).set('age', 42);
    const told: unknown[] = [];
    store.subscribe((snapshot) => told.push(snapshot));
    record(store, 5).set('age', 24);
    await settle();
    expect(told).toHaveLength(1);
    record(store, 5).set('dept', 'eng');
    await settle();
    expect(told).toHaveLength(2);
    expect(shownIds(store)).toEqual([1, 3, 5]);
  });

  it('hasChanges follows edits, commits and removals without a stale answer', () => {
    const store = people({ sorters: [{ property: 'name', direction: 'ASC' }] });
    expect(store.getSnapshot().hasChanges).toBe(false);
    record(store, 2).set('age', 1);
    expect(store.getSnapshot().hasChanges).toBe(true);
    record(store, 2).commit();
    expect(store.getSnapshot().hasChanges).toBe(false);
    store.remove(record(store, 2));
    expect(store.getSnapshot().hasChanges).toBe(true);
    store.commitChanges();
    expect(store.getSnapshot().hasChanges).toBe(false);
  });
});

describe('a store reloaded, re-sorted or re-filtered while edits are pending ends in the right order', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({ resources: { people: ROWS } });
  });
  afterEach(async () => {
    await server.close();
  });

  it('edits made before a load answers, and kept on top of it, are in order after it', async () => {
    const store = new Store<Person>({ model: Person, proxy: new RestProxy({ url: `${server.url}/people` }), sorters: [{ property: 'age', direction: 'ASC' }], pageSize: 0 });
    await store.load();
    expect(ids(store)).toEqual([5, 2, 4, 3, 1]);
    const loading = store.load();
    record(store, 5).set('age', 60); // kept on top of the server's value (the record is dirty)
    record(store, 1).set('age', 10);
    expect(ids(store)).toEqual([1, 2, 4, 3, 5]);
    await loading;
    expect(ids(store)).toEqual([1, 2, 4, 3, 5]);
    expect(shownIds(store)).toEqual([1, 2, 4, 3, 5]);
    record(store, 4).set('age', 61);
    expect(ids(store)).toEqual([1, 2, 3, 5, 4]);
  });

  it('edits made and not yet read when the sorters or filters change are in the new order', async () => {
    const store = new Store<Person>({ model: Person, proxy: new RestProxy({ url: `${server.url}/people` }), sorters: [{ property: 'age', direction: 'ASC' }], pageSize: 0 });
    await store.load();
    record(store, 2).set('name', 'Aaron');
    record(store, 5).set('age', 99);
    await store.sort('name', 'ASC');
    expect(ids(store)).toEqual([2, 4, 3, 1, 5]);
    record(store, 1).set('name', 'Zack');
    record(store, 4).set('dept', 'eng');
    await store.filter('dept', 'eng');
    expect(ids(store)).toEqual([4, 3, 1]);
    record(store, 3).set('dept', 'ops');
    record(store, 2).set('dept', 'eng');
    await store.sort('age', 'DESC');
    expect(ids(store)).toEqual([1, 2, 4]);
  });
});

describe('a sorter or filter function that throws', () => {
  it('throws where the view is read, and the store is in order again once it stops', () => {
    let fail = false;
    const age = (record: unknown): number => {
      if (fail) throw new Error('sorter failed');
      return record instanceof Person ? record.get('age') : 0;
    };
    const store = people({ sorters: [{ property: 'age', sorterFn: (a, b) => age(a) - age(b) }] });
    expect(ids(store)).toEqual([5, 2, 4, 3, 1]);
    fail = true;
    record(store, 5).set('age', 99);
    record(store, 1).set('age', 1);
    expect(() => store.getRange()).toThrow('sorter failed');
    fail = false;
    expect(ids(store)).toEqual([1, 2, 4, 3, 5]);
    expect(shownIds(store)).toEqual([1, 2, 4, 3, 5]);
  });
});

describe('a field named like an Object.prototype member', () => {
  class Thing extends Model {
    static override fields = [{ name: 'id', type: 'int' }, 'constructor'];
  }

  it('sorts an unset value last, as any empty value, not by the inherited function', () => {
    const store = new Store<Thing>({ model: Thing, data: [{ id: 1 }, { id: 2, constructor: 'z' }], sorters: [{ property: 'constructor', direction: 'ASC' }] });
    expect(store.getRange().map((record) => record.getId())).toEqual([2, 1]);
    store.getById(1)?.set('constructor', 'a');
    expect(store.getRange().map((record) => record.getId())).toEqual([1, 2]);
  });
});
