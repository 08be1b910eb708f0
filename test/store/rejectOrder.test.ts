/**
 * rejectChanges() puts removed records back where they stood (API.md section 6: rejecting undoes
 * the removals), whatever order they were removed in, one by one or several at once, among edits and adds.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Model, Store } from '../../src/index.js';

class Item extends Model<{ id: number; name: string }> {
  static override fields = [{ name: 'id', type: 'int' }, 'name'];
}

function storeOf(count: number): Store<Item> {
  return new Store({ model: Item, data: Array.from({ length: count }, (_, i) => ({ id: i + 1, name: `n${i + 1}` })) });
}

const ids = (store: Store<Item>): unknown[] => store.getRange().map((record) => record.get('id'));

describe('rejectChanges() after removals', () => {
  it('restores the order when the first row is removed twice in a row', () => {
    const store = storeOf(3);
    store.remove(store.getAt(0) ?? []);
    store.remove(store.getAt(0) ?? []);
    expect(ids(store)).toEqual([3]);
    store.rejectChanges();
    expect(ids(store)).toEqual([1, 2, 3]);
    expect(store.getRemovedRecords()).toEqual([]);
  });

  it('restores the order for any sequence of removals, single or batched', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 3 })), { maxLength: 8 }), (count, steps) => {
        const store = storeOf(count);
        for (const [at, many] of steps) {
          const shown = store.getRange();
          if (shown.length === 0) break;
          const start = at % shown.length;
          // 0: an edit and an added record (new records go at the end, and rejecting drops them)
          if (many === 0) {
            shown[start]?.set('name', 'edited');
            store.add({ name: 'new' });
          } else store.remove(shown.slice(start, start + many));
        }
        store.rejectChanges();
        expect(ids(store)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
        expect(store.hasChanges()).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
