/**
 * A large locally sorted store moves an edited record by the cheapest way for the distance
 * (issue 20 in Chromium): a loop for a few places, a block move or two splices for many, found
 * near where it was last seen or by binary search when it drifted. Each edit is checked against
 * sorting from scratch, in the store and in its snapshot, and the snapshot handed out before
 * stays as it was.
 */
import { describe, expect, it } from 'vitest';
import { Model, Store } from '../../src/index.js';

interface Row {
  id: number;
  age: number;
  dept: string;
}

class Person extends Model<Row> {
  static override fields = [{ name: 'id', type: 'int' }, { name: 'age', type: 'int' }, 'dept'];
}

const N = 40_000;

/** Ages with many ties (ties keep the order added: the id here), every fourth record in dept 'b'. */
function setup(filtered: boolean): { store: Store<Person>; ages: number[]; check: () => void } {
  const ages = Array.from({ length: N + 1 }, (_, id) => (id * 7919) % 1000);
  const data = Array.from({ length: N }, (_, i) => ({ id: i + 1, age: ages[i + 1] ?? 0, dept: (i + 1) % 4 === 0 ? 'b' : 'a' }));
  const store = new Store<Person>({ model: Person, data, sorters: [{ property: 'age', direction: 'ASC' }], filters: filtered ? [{ property: 'dept', value: 'a' }] : [] });
  const check = (): void => {
    const before = store.getSnapshot().records;
    const kept = [...before];
    const expected = data
      .filter((row) => !filtered || row.dept === 'a')
      .map((row) => row.id)
      .sort((a, b) => (ages[a] ?? 0) - (ages[b] ?? 0) || a - b);
    // Joined: toEqual on 40,000 items takes seconds.
    expect(store.getRange().map((record) => record.getId()).join()).toBe(expected.join());
    expect(store.getSnapshot().records.map((record) => record.getId()).join()).toBe(expected.join());
    // The snapshot taken before this check was not changed by the edits since.
    expect(before.every((record, i) => record === kept[i])).toBe(true);
  };
  return { store, ages, check };
}

function edit(store: Store<Person>, ages: number[], id: number, age: number): void {
  const record = store.getById(id);
  if (record === undefined) throw new Error(`no record ${id}`);
  record.set('age', age);
  ages[id] = age;
}

describe.each([false, true])('a large sorted store (filtered: %s) moves a record near or far', (filtered) => {
  it('one place, a few places, to the start, to the end, across most of the store, both ways', () => {
    const { store, ages, check } = setup(filtered);
    check();
    const snapshots = [store.getSnapshot()];
    const wanted = [false];
    const moves: [number, number][] = [
      [5, 5], // same key: stays
      [5, 6], // a neighbour's tie: a place or two
      [40, 38],
      [100, -1], // to the start
      [100, 2000], // to the end
      [N / 2, 0],
      [N - 4, 999],
      [N - 1, 500],
      [1, 2],
      [2, 998],
    ];
    for (const [id, age] of moves) {
      wanted.push(ages[id] !== age && (!filtered || id % 4 !== 0));
      edit(store, ages, id, age);
      check();
      snapshots.push(store.getSnapshot());
    }
    // A new records array for each edit of a shown record, the same one otherwise; all frozen.
    expect(snapshots.map((snapshot, i) => snapshot.records !== snapshots[i - 1]?.records)).toEqual([true, ...wanted.slice(1)]);
    for (const snapshot of snapshots) expect(Object.isFrozen(snapshot.records)).toBe(true);
  });

  it('a record not edited for many moves is still found and moved (it drifted from where it was seen)', () => {
    const { store, ages, check } = setup(filtered);
    check();
    // 300 records moved from the start to the end: every other record shifts by 300 places.
    for (let id = 1; id <= 300; id++) {
      edit(store, ages, id, 1500 + id);
      store.getSnapshot();
    }
    check();
    for (const id of [N / 2 + 1, N - 3, 1000]) {
      edit(store, ages, id, 0);
      check();
    }
    // Several records edited in one run, then read once.
    for (let id = 400; id < 420; id++) edit(store, ages, id, (id * 31) % 1000);
    check();
  });
});
