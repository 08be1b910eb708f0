/**
 * Finders and aggregates are typed by field name (API.md section 12): a misspelt field does not
 * compile, `sum`/`average` take only numeric fields, `min`/`max` return the field's type,
 * `grouped: true` a Map. Also compiled under the strictest tsconfig by test/types/strict.test.ts.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { ChainedStore, count, Model, Store, sum, type NumericFieldName } from '../../src/index.js';

interface OrderData {
  id: number;
  name: string;
  amount: number | null;
  at: Date;
  extra: unknown;
}

class Order extends Model<OrderData> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', { name: 'amount', type: 'number', allowNull: true }, { name: 'at', type: 'date' }, 'extra'];
}

const orders = new Store<Order>({ model: Order });

describe('finders and aggregates by field name', () => {
  it('take the model\'s field names', () => {
    expectTypeOf(orders.find('name', 'a')).toEqualTypeOf<number>();
    expectTypeOf(orders.findRecord('name', 'a', { anyMatch: true })).toEqualTypeOf<Order | undefined>();
    expectTypeOf(orders.query('amount', 3)).toEqualTypeOf<Order[]>();
    expectTypeOf(orders.collect('name')).toEqualTypeOf<string[]>();
    expectTypeOf(orders.findExact('at', new Date())).toEqualTypeOf<number>();
    // @ts-expect-error a misspelt field
    orders.find('nmae', 'a');
    // @ts-expect-error a misspelt field
    orders.query('amout', 3);
    // @ts-expect-error findExact's value has the field's type
    orders.findExact('amount', 'three');
  });

  it('sum and average take numeric fields; min and max return the field\'s type', () => {
    expectTypeOf<NumericFieldName<Order>>().toEqualTypeOf<'id' | 'amount' | 'extra'>();
    expectTypeOf(orders.sum('amount')).toEqualTypeOf<number>();
    expectTypeOf(orders.average('amount')).toEqualTypeOf<number | null>();
    expectTypeOf(orders.min('at')).toEqualTypeOf<Date | null>();
    expectTypeOf(orders.max('name')).toEqualTypeOf<string | null>();
    expectTypeOf(orders.sum('amount', { grouped: true })).toEqualTypeOf<Map<unknown, number>>();
    expectTypeOf(orders.count({ grouped: true })).toEqualTypeOf<Map<unknown, number>>();
    expectTypeOf(orders.first({ grouped: true })).toEqualTypeOf<Map<unknown, Order>>();
    // @ts-expect-error a text field
    orders.sum('name');
    // @ts-expect-error a Date field
    orders.average('at');
    // @ts-expect-error a misspelt field
    orders.min('amout');
  });

  it('live summaries and chained stores take the same names', () => {
    const totals = orders.summarize({ total: sum('amount'), n: count() });
    expectTypeOf(totals.getSnapshot().values.total).toEqualTypeOf<number>();
    expectTypeOf(totals.getSnapshot().values.n).toEqualTypeOf<number>();
    // @ts-expect-error a text field
    orders.summarize({ total: sum('name') });
    const north = new ChainedStore({ source: orders, filters: [{ property: 'name', value: 'n' }] });
    expectTypeOf(north.findRecord('name', 'x')).toEqualTypeOf<Order | undefined>();
    // @ts-expect-error a misspelt field
    new ChainedStore({ source: orders, sorters: [{ property: 'nmae' }] });
  });
});
