/**
 * mergeLoaded (src/store/pending.ts) on plain objects: how a load's answer meets what a store
 * holds. Cases first, then properties over random stores and answers (fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeLoaded, sinceLoad, type MergeContext, type SinceLoad } from '../../src/store/pending.js';

interface Row {
  readonly name: string;
  id: number | undefined;
  dirty: boolean;
}

const row = (name: string, id: number | undefined, dirty = false): Row => ({ name, id, dirty });

function context(options: Partial<MergeContext<Row>> = {}): MergeContext<Row> {
  return {
    key: (record) => (record.id === undefined ? undefined : String(record.id)),
    isNew: (record) => record.id === undefined,
    isDirty: (record) => record.dirty || record.id === undefined,
    removed: [],
    offPage: [],
    since: sinceLoad<Row>(),
    discard: false,
    append: false,
    ...options,
  };
}

const names = (records: readonly Row[]): string[] => records.map((record) => record.name);

describe('mergeLoaded: cases', () => {
  it('a first load lists the answer as it is, and keeps nothing', () => {
    const loaded = [row('a', 1), row('b', 2)];
    const plan = mergeLoaded([], loaded, context());
    expect(plan.list).toEqual(loaded);
    expect(plan.list[0]).toBe(loaded[0]);
    expect(plan.kept.size).toBe(0);
    expect(plan.updates).toEqual([]);
  });

  it('one record per id: a held record takes the loaded values (an update), and is listed in the answer\'s order', () => {
    const ann = row('ann', 1);
    const ben = row('ben', 2);
    const fresh = [row('ben*', 2), row('cy', 3), row('ann*', 1)];
    const plan = mergeLoaded([ann, ben], fresh, context());
    expect(names(plan.list)).toEqual(['ben', 'cy', 'ann']);
    expect(plan.updates).toEqual([
      [ben, fresh[0]],
      [ann, fresh[2]],
    ]);
    expect([...plan.kept]).toEqual([ben, ann]);
  });

  it('new records stay at the front; a held record the answer does not list is let go unless edited', () => {
    const draft = row('draft', undefined);
    const clean = row('clean', 1);
    const edited = row('edited', 2, true);
    const plan = mergeLoaded([draft, clean, edited], [row('other', 9)], context());
    expect(names(plan.list)).toEqual(['draft', 'other']);
    expect(plan.offPage).toEqual([edited]);
    expect(plan.kept.has(clean)).toBe(false);
    expect(plan.kept.has(edited)).toBe(true);
    expect(plan.kept.has(draft)).toBe(true);
  });

  it('a removed record does not come back; with discard it does, and its removal is dropped', () => {
    const gone = row('gone', 4);
    const answer = [row('gone*', 4), row('stay', 5)];
    const kept = mergeLoaded([], answer, context({ removed: [gone] }));
    expect(names(kept.list)).toEqual(['stay']);
    expect(kept.removed).toEqual([gone]);

    const discarded = mergeLoaded([], answer, context({ removed: [gone], discard: true }));
    expect(names(discarded.list)).toEqual(['gone', 'stay']);
    expect(discarded.removed).toEqual([]);
    expect(discarded.rejected).toEqual([gone]);
  });

  it('with discard, spared records (changed after the load was called, or written) keep their changes', () => {
    const draft = row('draft', undefined);
    const late = row('late', undefined);
    const edited = row('edited', 1, true);
    const editedLate = row('edited late', 2, true);
    const offLate = row('off late', 3, true);
    const gone = row('gone', 4);
    const goneLate = row('gone late', 5);
    const spared = new Set([late, editedLate, offLate, goneLate]);
    const answer = [row('1*', 1), row('2*', 2), row('4*', 4), row('5*', 5)];
    const plan = mergeLoaded([draft, late, edited, editedLate], answer, context({ offPage: [offLate], removed: [gone, goneLate], discard: true, spared: (record) => spared.has(record) }));
    expect(names(plan.list)).toEqual(['late', 'edited', 'edited late', 'gone']);
    expect(plan.rejected).toEqual([edited, gone]);
    expect(plan.offPage).toEqual([offLate]);
    expect(plan.removed).toEqual([goneLate]);
  });

  it('a new record is never matched to a row, whatever id it was given', () => {
    const draft = { name: 'draft', id: 1, dirty: true };
    const plan = mergeLoaded([draft], [row('row', 1)], context({ isNew: (record) => record.id === undefined || record === draft }));
    expect(names(plan.list)).toEqual(['draft', 'row']);
    expect(plan.updates).toEqual([]);
  });

  it('writes that completed after the load was sent are not undone by its answer', () => {
    const since: SinceLoad<Row> = sinceLoad();
    const saved = row('saved', 1);
    const created = row('created', 7);
    since.written.add(saved);
    since.created.add(created);
    since.erased.add('3');
    const plan = mergeLoaded([saved, created], [row('old', 1), row('destroyed', 3)], context({ since }));
    expect(names(plan.list)).toEqual(['created', 'saved']);
    expect(plan.updates).toEqual([]);
  });

  it('an id listed twice by the answer is listed once', () => {
    const held = row('held', 1);
    const plan = mergeLoaded([held], [row('x', 1), row('y', 1), row('z', 2), row('w', 2)], context());
    expect(names(plan.list)).toEqual(['held', 'z']);
  });

  it('a record both held new and read again (a memory proxy hands out its own objects) is listed once', () => {
    const shared = row('shared', undefined);
    const plan = mergeLoaded([shared], [shared, row('b', 2)], context());
    expect(names(plan.list)).toEqual(['shared', 'b']);
  });

  it('addRecords appends to what is listed', () => {
    const a = row('a', 1);
    const plan = mergeLoaded([a], [row('b', 2), row('a*', 1)], context({ append: true }));
    expect(names(plan.list)).toEqual(['a', 'b']);
    expect(plan.updates).toEqual([[a, expect.objectContaining({ name: 'a*' })]]);
  });
});

// ---- properties -------------------------------------------------------------------------------

interface World {
  previous: Row[];
  offPage: Row[];
  removed: Row[];
  loaded: Row[];
  written: number[];
  created: number[];
  erased: number[];
  discard: boolean;
  append: boolean;
}

const ID = fc.integer({ min: 1, max: 12 });

/** A store (held records with distinct ids, some new), a load's answer, and what happened meanwhile. */
const worlds: fc.Arbitrary<World> = fc
  .record({
    heldIds: fc.uniqueArray(ID, { maxLength: 10 }),
    newCount: fc.integer({ min: 0, max: 3 }),
    dirty: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
    place: fc.array(fc.constantFrom('listed', 'offPage', 'removed'), { minLength: 10, maxLength: 10 }),
    loadedIds: fc.oneof(fc.array(fc.option(ID, { nil: undefined }), { maxLength: 14 }), fc.array(ID, { maxLength: 14 }).map((ids): (number | undefined)[] => ids.sort((a, b) => a - b))),
    written: fc.uniqueArray(ID, { maxLength: 4 }),
    created: fc.uniqueArray(ID, { maxLength: 2 }),
    erased: fc.uniqueArray(ID, { maxLength: 3 }),
    discard: fc.boolean(),
    append: fc.boolean(),
  })
  .map(({ heldIds, newCount, dirty, place, loadedIds, written, created, erased, discard, append }) => {
    const previous: Row[] = [];
    const offPage: Row[] = [];
    const removed: Row[] = [];
    heldIds.forEach((id, index) => {
      const where = place[index] ?? 'listed';
      const record = row(`held ${id}`, id, where === 'offPage' ? true : (dirty[index] ?? false));
      (where === 'listed' ? previous : where === 'offPage' ? offPage : removed).push(record);
    });
    for (let index = 0; index < newCount; index++) previous.push(row(`new ${index}`, undefined));
    const loaded = loadedIds.map((id, index) => row(`loaded ${index}`, id));
    return { previous, offPage, removed, loaded, written, created, erased, discard, append };
  });

function plan(world: World, numericKeys = false, spared?: (record: Row) => boolean) {
  const since = sinceLoad<Row>();
  const all = [...world.previous, ...world.offPage, ...world.removed];
  for (const record of all) {
    if (record.id !== undefined && world.written.includes(record.id)) since.written.add(record);
    if (record.id !== undefined && world.created.includes(record.id) && world.previous.includes(record)) since.created.add(record);
  }
  for (const id of world.erased) since.erased.add(numericKeys ? id : String(id));
  const key = numericKeys ? (record: Row) => record.id : (record: Row) => (record.id === undefined ? undefined : String(record.id));
  const result = mergeLoaded(world.previous, world.loaded, context({ key, offPage: world.offPage, removed: world.removed, since, discard: world.discard, append: world.append, ...(spared ? { spared } : {}) }));
  return { result, since, all };
}

describe('mergeLoaded: properties', () => {
  it('a discarding load drops nothing spared: with every record spared, it merges as a load that keeps changes', () => {
    fc.assert(
      fc.property(worlds, (world) => {
        const kept = plan({ ...world, discard: false }).result;
        const discarded = plan({ ...world, discard: true }, false, () => true).result;
        expect({ ...discarded, rejected: [] }).toEqual(kept);
        expect(discarded.rejected).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['string', false],
    ['number (an answer in id order takes the path without a set)', true],
  ])('lists each object once and each id once (keys: %s)', (_, numericKeys) => {
    fc.assert(
      fc.property(worlds, (world) => {
        const { result } = plan(world, numericKeys);
        expect(new Set(result.list).size).toBe(result.list.length);
        const ids = result.list.map((record) => record.id).filter((id) => id !== undefined);
        expect(new Set(ids).size).toBe(ids.length);
      }),
      { numRuns: 500 },
    );
  });

  it('one record per id: a loaded row whose id the store holds is shown through the held record', () => {
    fc.assert(
      fc.property(worlds, (world) => {
        const { result, all } = plan(world);
        for (const record of result.list) {
          if (record.id === undefined || !record.name.startsWith('loaded')) continue;
          const holder = all.find((candidate) => candidate.id === record.id);
          // A held record with that id is listed instead, unless the store let it go for good.
          if (holder !== undefined) expect(world.removed.includes(holder) && !world.discard).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('nothing unsynced is lost: new, edited and removed records stay held unless discarded', () => {
    fc.assert(
      fc.property(worlds, (world) => {
        const { result } = plan(world);
        if (world.discard) return;
        const held = new Set([...result.list, ...result.offPage, ...result.removed]);
        for (const record of world.previous) if (record.id === undefined || record.dirty) expect(held.has(record)).toBe(true);
        for (const record of world.offPage) expect(held.has(record)).toBe(true);
        for (const record of world.removed) expect(result.removed.includes(record)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('a load never undoes a write made after it was sent: no update for a written record, no erased id listed from the answer', () => {
    fc.assert(
      fc.property(worlds, (world) => {
        const { result, since } = plan(world);
        for (const [held] of result.updates) expect(since.written.has(held) || since.created.has(held)).toBe(false);
        for (const record of result.list) if (record.name.startsWith('loaded') && record.id !== undefined) expect(since.erased.has(String(record.id))).toBe(false);
        for (const record of since.created) expect(result.list.includes(record)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('every loaded record is listed, or stands for a held record (an update), or is dropped, and only one of these', () => {
    fc.assert(
      fc.property(worlds, (world) => {
        const { result } = plan(world);
        const copies = new Set(result.updates.map(([, fresh]) => fresh));
        for (const record of world.loaded) {
          const fates = [result.list.includes(record), copies.has(record), result.dropped?.has(record) === true];
          // A loaded copy of a held record written meanwhile is neither listed nor an update: the held one stays as it is.
          expect(fates.filter(Boolean).length).toBeLessThanOrEqual(1);
          if (result.dropped?.has(record) === true) expect(result.list.includes(record)).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('kept is exactly the records held before that are still held', () => {
    fc.assert(
      fc.property(worlds, (world) => {
        const { result, all } = plan(world);
        const stillHeld = new Set([...result.list, ...result.offPage, ...result.removed]);
        for (const record of all) expect(result.kept.has(record)).toBe(stillHeld.has(record));
        for (const record of result.kept) expect(all.includes(record)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
