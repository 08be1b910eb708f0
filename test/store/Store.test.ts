/**
 * Store contract (API.md section 6), the collection side: lookup, add/insert/remove, iteration,
 * local sorting, filtering and grouping, a MemoryProxy load, and the events with their payloads.
 * Remote loading is in Store.load.test.ts, sync in Store.sync.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Model, Store } from '../../src/index.js';

interface PersonData {
  id: number;
  name: string;
  dept: string;
  age: number;
}

class Person extends Model<PersonData> {
  static override fields = ['id', 'name', 'dept', { name: 'age', type: 'int' }];
}

/** A model with the very same shape, so TypeScript accepts its records where a Person is asked for. */
class Impostor extends Model<PersonData> {
  static override fields = ['id', 'name', 'dept', { name: 'age', type: 'int' }];
}

const PEOPLE: PersonData[] = [
  { id: 1, name: 'Carol', dept: 'eng', age: 41 },
  { id: 2, name: 'alice', dept: 'ops', age: 29 },
  { id: 3, name: 'Bob', dept: 'eng', age: 35 },
  { id: 4, name: 'Dave', dept: 'ops', age: 52 },
  { id: 5, name: 'Erin', dept: 'sales', age: 23 },
];

function people(): Store<Person> {
  return new Store({ model: Person, data: PEOPLE.map((row) => ({ ...row })) });
}

function names(store: Store<Person>): string[] {
  return store.getRange().map((record) => record.get('name'));
}

describe('Store: reading the collection', () => {
  it('builds records of the model from data and counts them', () => {
    const store = people();
    expect(store.getCount()).toBe(5);
    expect(store.getTotalCount()).toBe(5);
    const first = store.getAt(0);
    expect(first).toBeInstanceOf(Person);
    expect(first?.get('name')).toBe('Carol');
    expect(first?.phantom).toBe(false);
    expect(first?.dirty).toBe(false);
    expect(store.getAt(5)).toBeUndefined();
  });

  it('finds records by id, and indexOf gives their position', () => {
    const store = people();
    const bob = store.getById(3);
    expect(bob?.get('name')).toBe('Bob');
    expect(bob && store.indexOf(bob)).toBe(2);
    expect(store.getById(99)).toBeUndefined();
    expect(store.indexOf(new Person({ id: 3, name: 'Bob' }))).toBe(-1);
  });

  it('getRange() gives all records in order and for...of iterates them', () => {
    const store = people();
    expect(names(store)).toEqual(['Carol', 'alice', 'Bob', 'Dave', 'Erin']);
    const seen: unknown[] = [];
    for (const record of store) seen.push(record.getId());
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it('finds a record by id after its id was set', () => {
    const store = people();
    const [added] = store.add({ name: 'Zed', dept: 'eng', age: 30 });
    expect(added).toBeDefined();
    added?.setId(50);
    expect(store.getById(50)).toBe(added);
  });
});

describe('Store: add and insert', () => {
  it('add takes a data object and returns the new records, phantom and pending creation', () => {
    const store = people();
    const added = store.add({ name: 'Frank', dept: 'eng', age: 33 });
    expect(added).toHaveLength(1);
    const frank = added[0];
    expect(frank).toBeInstanceOf(Person);
    expect(frank?.phantom).toBe(true);
    expect(store.getCount()).toBe(6);
    expect(store.getAt(5)).toBe(frank);
    expect(store.getNewRecords()).toEqual([frank]);
  });

  it('add takes a record, or an array of records and data objects', () => {
    const store = people();
    const gina = new Person({ name: 'Gina', dept: 'ops', age: 40 });
    expect(store.add(gina)).toEqual([gina]);
    const added = store.add([new Person({ name: 'Hal', dept: 'eng', age: 20 }), { name: 'Ivy', dept: 'ops', age: 21 }]);
    expect(added.map((record) => record.get('name'))).toEqual(['Hal', 'Ivy']);
    expect(names(store).slice(-3)).toEqual(['Gina', 'Hal', 'Ivy']);
  });

  it('insert puts records at an index', () => {
    const store = people();
    const inserted = store.insert(1, [{ name: 'X', dept: 'eng', age: 1 }, { name: 'Y', dept: 'eng', age: 2 }]);
    expect(inserted).toHaveLength(2);
    expect(names(store)).toEqual(['Carol', 'X', 'Y', 'alice', 'Bob', 'Dave', 'Erin']);
    expect(store.indexOf(inserted[1] ?? new Person({}))).toBe(2);
  });

  it('refuses a record of another model with a clear error and changes nothing', () => {
    const store = people();
    const stranger = new Impostor({ id: 9, name: 'Mallory', dept: 'eng', age: 30 });
    expect(() => store.add(stranger)).toThrow(/Impostor|Person|model/);
    expect(() => store.insert(0, [stranger])).toThrow(/Impostor|Person|model/);
    expect(store.getCount()).toBe(5);
    expect(store.getById(9)).toBeUndefined();
    expect(store.getNewRecords()).toEqual([]);
  });

  it('refuses records of another model given as data', () => {
    expect(() => new Store({ model: Person, data: [new Impostor({ id: 1, name: 'M', dept: 'x', age: 1 })] })).toThrow(/Impostor|Person|model/);
  });

  it('adding a record that is already in the store does not duplicate it', () => {
    const store = people();
    const carol = store.getAt(0);
    if (!carol) throw new Error('no first record');
    store.add(carol);
    expect(store.getRange().filter((record) => record === carol)).toHaveLength(1);
    expect(store.getCount()).toBe(5);
  });
});

describe('Store: remove', () => {
  it('remove takes a record or an array and keeps saved ones for deletion', () => {
    const store = people();
    const carol = store.getById(1);
    const bob = store.getById(3);
    if (!carol || !bob) throw new Error('fixture');
    store.remove(carol);
    expect(store.getCount()).toBe(4);
    expect(store.getById(1)).toBeUndefined();
    expect(store.indexOf(carol)).toBe(-1);
    store.remove([bob]);
    expect(names(store)).toEqual(['alice', 'Dave', 'Erin']);
    expect(store.getRemovedRecords()).toEqual([carol, bob]);
  });

  it('removeAt removes by position', () => {
    const store = people();
    store.removeAt(1);
    expect(names(store)).toEqual(['Carol', 'Bob', 'Dave', 'Erin']);
    expect(store.getRemovedRecords().map((record) => record.getId())).toEqual([2]);
  });

  it('removeAll empties the store', () => {
    const store = people();
    store.removeAll();
    expect(store.getCount()).toBe(0);
    expect(store.getRange()).toEqual([]);
    expect(store.getById(1)).toBeUndefined();
    expect(store.getRemovedRecords()).toHaveLength(5);
  });

  it('a removed phantom record is simply dropped: nothing to delete on the server', () => {
    const store = people();
    const [fresh] = store.add({ name: 'Tmp', dept: 'eng', age: 1 });
    if (!fresh) throw new Error('fixture');
    store.remove(fresh);
    expect(store.getNewRecords()).toEqual([]);
    expect(store.getRemovedRecords()).toEqual([]);
    expect(store.getCount()).toBe(5);
  });
});

describe('Store: local sorting', () => {
  it('sort(property) orders ascending, sort(property, "DESC") descending', async () => {
    const store = people();
    await store.sort('age');
    expect(store.getRange().map((record) => record.get('age'))).toEqual([23, 29, 35, 41, 52]);
    await store.sort('age', 'DESC');
    expect(store.getRange().map((record) => record.get('age'))).toEqual([52, 41, 35, 29, 23]);
  });

  it('sort(sorters) orders by several properties', async () => {
    const store = people();
    await store.sort([{ property: 'dept', direction: 'DESC' }, { property: 'age', direction: 'ASC' }]);
    expect(store.getRange().map((record) => record.getId())).toEqual([5, 2, 4, 3, 1]);
  });

  it('applies the configured sorters to its data', () => {
    const store = new Store({ model: Person, data: PEOPLE.map((row) => ({ ...row })), sorters: [{ property: 'age', direction: 'ASC' }] });
    expect(store.getRange().map((record) => record.get('age'))).toEqual([23, 29, 35, 41, 52]);
  });

  it('keeps lookups right after sorting', async () => {
    const store = people();
    await store.sort('age', 'DESC');
    const dave = store.getById(4);
    expect(dave?.get('name')).toBe('Dave');
    expect(dave && store.indexOf(dave)).toBe(0);
  });
});

describe('Store: local filtering', () => {
  it('filter(property, value) keeps matching records, clearFilter brings the rest back', async () => {
    const store = people();
    await store.filter('dept', 'eng');
    expect(store.getRange().map((record) => record.getId())).toEqual([1, 3]);
    expect(store.getCount()).toBe(2);
    await store.clearFilter();
    expect(store.getCount()).toBe(5);
    expect(store.getRange().map((record) => record.getId())).toEqual([1, 2, 3, 4, 5]);
  });

  it('filter(filters) applies all of them', async () => {
    const store = people();
    await store.filter([{ property: 'dept', value: 'ops' }, { property: 'name', value: 'Dave' }]);
    expect(store.getRange().map((record) => record.getId())).toEqual([4]);
  });

  it('applies the configured filters to its data', () => {
    const store = new Store({ model: Person, data: PEOPLE.map((row) => ({ ...row })), filters: [{ property: 'dept', value: 'sales' }] });
    expect(store.getRange().map((record) => record.getId())).toEqual([5]);
  });

  it('does not lose a filtered-out record that was edited', async () => {
    const store = people();
    store.getById(2)?.set('age', 30);
    await store.filter('dept', 'eng');
    await store.clearFilter();
    expect(store.getById(2)?.get('age')).toBe(30);
    expect(store.getUpdatedRecords().map((record) => record.getId())).toEqual([2]);
  });
});

describe('Store: local grouping', () => {
  it('group(property) puts the records of one group together, in group order', async () => {
    const store = people();
    await store.group('dept');
    expect(store.getRange().map((record) => record.get('dept'))).toEqual(['eng', 'eng', 'ops', 'ops', 'sales']);
    await store.group('dept', 'DESC');
    expect(store.getRange().map((record) => record.get('dept'))).toEqual(['sales', 'ops', 'ops', 'eng', 'eng']);
  });

  it('sorts within a group by the sorters', async () => {
    const store = people();
    await store.sort('age', 'DESC');
    await store.group('dept');
    expect(store.getRange().map((record) => record.getId())).toEqual([1, 3, 4, 2, 5]);
  });

  it('groups by the configured groupField and groupDir', () => {
    const store = new Store({ model: Person, data: PEOPLE.map((row) => ({ ...row })), groupField: 'dept', groupDir: 'DESC' });
    expect(store.getRange().map((record) => record.get('dept'))).toEqual(['sales', 'ops', 'ops', 'eng', 'eng']);
  });

  it('clearGrouping lets the sorters alone decide the order', async () => {
    const store = people();
    await store.group('dept');
    await store.clearGrouping();
    await store.sort('age');
    expect(store.getRange().map((record) => record.get('age'))).toEqual([23, 29, 35, 41, 52]);
  });
});

describe('Store: MemoryProxy', () => {
  it('loads records from a memory proxy, a page at a time, with the total', async () => {
    const store = new Store({ model: Person, proxy: { type: 'memory', data: PEOPLE }, pageSize: 2 });
    const records = await store.load();
    expect(records.map((record) => record.getId())).toEqual([1, 2]);
    expect(store.getCount()).toBe(2);
    expect(store.getTotalCount()).toBe(5);
    await store.loadPage(3);
    expect(store.currentPage).toBe(3);
    expect(store.getRange().map((record) => record.getId())).toEqual([5]);
  });

  it('pageSize 0 takes every record', async () => {
    const store = new Store({ model: Person, proxy: { type: 'memory', data: PEOPLE }, pageSize: 0 });
    await store.load();
    expect(store.getCount()).toBe(5);
  });

  it('remote sort and filter are done by the memory proxy over all its data', async () => {
    const store = new Store({
      model: Person, proxy: { type: 'memory', data: PEOPLE }, pageSize: 2, remoteSort: true, remoteFilter: true,
    });
    await store.sort('age', 'DESC');
    expect(store.getRange().map((record) => record.get('age'))).toEqual([52, 41]);
    await store.filter('dept', 'eng');
    expect(store.getRange().map((record) => record.getId())).toEqual([1, 3]);
    expect(store.getTotalCount()).toBe(2);
  });
});

describe('Store: events', () => {
  it('add fires with the records and their index', () => {
    const store = people();
    const seen: unknown[] = [];
    store.on('add', (event) => {
      seen.push(event);
    });
    const added = store.add({ name: 'Frank', dept: 'eng', age: 33 });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ records: added, index: 5 });
  });

  it('remove fires with the removed records', () => {
    const store = people();
    const bob = store.getById(3);
    const seen: unknown[] = [];
    store.on('remove', (event) => {
      seen.push(event);
    });
    if (bob) store.remove(bob);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ records: [bob] });
  });

  it('remove gives each removed record the index it was shown at, in a filtered store too', async () => {
    const store = people();
    await store.filter('dept', 'eng'); // shows Carol, Bob
    const carol = store.getById(1);
    const bob = store.getById(3);
    const seen: { records: Person[]; indexes: number[] }[] = [];
    store.on('remove', ({ records, indexes }) => {
      seen.push({ records, indexes });
    });
    if (carol && bob) store.remove([bob, carol]);
    expect(seen).toEqual([{ records: [carol, bob], indexes: [0, 1] }]);
    expect(names(store)).toEqual([]);
  });

  it('update fires when a record of the store is edited', () => {
    const store = people();
    const seen: unknown[] = [];
    store.on('update', (event) => {
      seen.push(event);
    });
    const bob = store.getById(3);
    bob?.set('age', 36);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ record: bob });
  });

  it('update stops once a new record has left the store', () => {
    const store = people();
    const [bob] = store.add({ name: 'Bob2', dept: 'eng', age: 1 });
    if (!bob) throw new Error('fixture');
    store.remove(bob);
    let updates = 0;
    store.on('update', () => {
      updates++;
    });
    bob.set('age', 99);
    expect(updates).toBe(0);
  });

  it('datachanged fires on add, remove and sort', async () => {
    const store = people();
    let changes = 0;
    store.on('datachanged', () => {
      changes++;
    });
    store.add({ name: 'Frank', dept: 'eng', age: 33 });
    expect(changes).toBe(1);
    store.removeAt(0);
    expect(changes).toBe(2);
    await store.sort('name');
    expect(changes).toBe(3);
  });

  it('on() returns a function that unsubscribes', () => {
    const store = people();
    let adds = 0;
    const off = store.on('add', () => {
      adds++;
    });
    store.add({ name: 'A', dept: 'eng', age: 1 });
    off();
    store.add({ name: 'B', dept: 'eng', age: 2 });
    expect(adds).toBe(1);
  });
});
