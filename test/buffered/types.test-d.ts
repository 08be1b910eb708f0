/** The types of rest-proxy/buffered and of useStore given a BufferedStore. */
import type { ShallowRef } from 'vue';
import { expectTypeOf, test } from 'vitest';
import { BufferedStore, isPlaceholder, type BufferedSnapshot, type Placeholder } from '../../src/buffered.js';
import { useStore as useReactStore } from '../../src/react.js';
import { useStore as useVueStore } from '../../src/vue.js';
import { Order } from './helpers.js';

test('rows are records or placeholders; useStore of React and Vue gives the buffered snapshot', () => {
  const store = new BufferedStore({ model: Order });
  expectTypeOf(store.getRange(0, 9)).toEqualTypeOf<(Order | Placeholder)[]>();
  expectTypeOf(store.loadRange(0, 9)).toEqualTypeOf<Promise<Order[]>>();
  expectTypeOf(store.getTotalCount()).toEqualTypeOf<number | undefined>();
  const row = store.getRange(0, 0)[0];
  if (row !== undefined && !isPlaceholder(row)) expectTypeOf(row.get('title')).toEqualTypeOf<string>();
  expectTypeOf(useReactStore(store)).toEqualTypeOf<BufferedSnapshot<Order>>();
  expectTypeOf(useVueStore(store)).toEqualTypeOf<Readonly<ShallowRef<BufferedSnapshot<Order>>>>();
  // @ts-expect-error: sort is remote and takes the model's fields
  void store.sort('colour');
});
