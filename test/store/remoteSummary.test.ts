/**
 * Remote summaries (API.md section 12, issue 30): the reader's `summaryRootProperty`,
 * `store.getRemoteSummary()` and the store's `remoteSummary` sent as `summaryParam`, against the
 * test server on 127.0.0.1 (test/server/summary.ts answers a summary beside the rows). The local
 * aggregates cover the page held; the server's figure is apart and edits never change it.
 */
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { ChainedStore, count, Model, ProxyError, RestProxy, Store, sum, type RemoteSummary } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { serveSummaries } from '../server/summary.js';

interface Row {
  id: number;
  name: string;
  amount: number;
}

class Order extends Model<Row> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', { name: 'amount', type: 'number' }];
}

const ROWS: Row[] = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, name: `o${i + 1}`, amount: (i + 1) * 10 }));

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer({ resources: { orders: ROWS.map((row) => ({ ...row })) } });
});
afterEach(async () => {
  await server.close();
});

function paged(config: Partial<ConstructorParameters<typeof Store<Order>>[0]> = {}): Store<Order> {
  return new Store<Order>({
    model: Order,
    pageSize: 4,
    remoteSummary: { amount: 'sum', id: 'count' },
    proxy: new RestProxy({ url: `${server.url}/orders`, reader: { rootProperty: 'data', summaryRootProperty: 'summary' } }),
    ...config,
  });
}

describe('remote summaries', () => {
  it('sends remoteSummary with each load as summaryParam and keeps the answer apart from the page aggregates', async () => {
    serveSummaries(server, 'orders');
    const store = paged();
    await store.load();
    const sent = server.requests.at(-1)?.query.get('summary');
    expect(sent === undefined ? undefined : JSON.parse(sent ?? '')).toEqual([{ property: 'amount', summary: 'sum' }, { property: 'id', summary: 'count' }]);
    expect(store.getCount()).toBe(4);
    expect(store.sum('amount')).toBe(100); // the page held: 10 + 20 + 30 + 40
    expect(store.getRemoteSummary()).toEqual({ amount: 550, id: 10 }); // the whole collection
    expect(Object.isFrozen(store.getRemoteSummary())).toBe(true);
    const live = store.summarize({ total: sum('amount'), n: count() });
    expect(live.getSnapshot()).toMatchObject({ values: { total: 100, n: 4 }, partial: true });

    // An edit changes the local figures, never the server's.
    store.getAt(0)?.set('amount', 1000);
    expect(store.sum('amount')).toBe(1090);
    expect(live.getSnapshot().values.total).toBe(1090);
    expect(store.getRemoteSummary()).toEqual({ amount: 550, id: 10 });

    // The next page: the summary is sent again, a new one is read.
    server.db.orders?.push({ id: 11, name: 'o11', amount: 5 });
    await store.loadPage(2);
    expect(server.requests.at(-1)?.query.get('summary')).toBe('[{"property":"amount","summary":"sum"},{"property":"id","summary":"count"}]');
    expect(store.getRemoteSummary()).toEqual({ amount: 555, id: 11 });
    expect(store.sum('amount')).toBe(50 + 60 + 70 + 80);
    live.destroy();
  });

  it('tells subscribers of a new summary, and a reload keeps asking for it', async () => {
    serveSummaries(server, 'orders');
    const store = paged();
    const seen: unknown[] = [];
    const stop = store.subscribe(() => seen.push(store.getRemoteSummary()?.amount));
    await store.load();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen.at(-1)).toBe(550);
    server.db.orders?.splice(0, 1);
    await store.reload();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen.at(-1)).toBe(540);
    expect(server.requests.every((request) => request.query.has('summary'))).toBe(true);
    stop();
  });

  it('is undefined without summaryRootProperty, or when the answer has none; nothing sent without remoteSummary', async () => {
    serveSummaries(server, 'orders');
    const unread = paged({ proxy: new RestProxy({ url: `${server.url}/orders`, reader: { rootProperty: 'data' } }) });
    await unread.load();
    expect(unread.getRemoteSummary()).toBeUndefined();

    server.reset();
    server.respond('GET', /^\/orders$/, { status: 200, body: { data: ROWS.slice(0, 4), total: 10 } });
    const none = paged({ remoteSummary: undefined });
    await none.load();
    expect(none.getRemoteSummary()).toBeUndefined();
    expect(server.requests.at(-1)?.query.has('summary')).toBe(false);
  });

  it('summaryParam renames the param, null leaves it out', async () => {
    serveSummaries(server, 'orders');
    const renamed = paged({ proxy: new RestProxy({ url: `${server.url}/orders`, summaryParam: 'aggregates', reader: { rootProperty: 'data' } }) });
    await renamed.load();
    expect(server.requests.at(-1)?.query.get('aggregates')).toBe('[{"property":"amount","summary":"sum"},{"property":"id","summary":"count"}]');
    const off = paged({ proxy: new RestProxy({ url: `${server.url}/orders`, summaryParam: null, reader: { rootProperty: 'data' } }) });
    await off.load();
    expect(server.requests.at(-1)?.query.has('summary')).toBe(false);
  });

  it.each([
    ['an array', '{"data":[{"id":1,"name":"x","amount":1}],"total":1,"summary":[1,2]}', 'is an array'],
    ['a string', '{"data":[{"id":1,"name":"x","amount":1}],"total":1,"summary":"550"}', 'is a string'],
    ['an object with a __proto__ key', '{"data":[{"id":1,"name":"x","amount":1}],"total":1,"summary":{"__proto__":{"amount":1},"amount":2}}', '__proto__'],
  ])('a summary that is %s fails the load with kind parse, and nothing is applied', async (_, body, says) => {
    serveSummaries(server, 'orders');
    const store = paged();
    await store.load();
    const before = store.getRange();
    server.reset();
    server.respond('GET', /^\/orders$/, { status: 200, headers: { 'Content-Type': 'application/json' }, body });
    const error: unknown = await store.reload().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProxyError);
    expect(error instanceof ProxyError && error.kind).toBe('parse');
    expect(error instanceof ProxyError && error.message).toContain('summaryRootProperty');
    expect(error instanceof ProxyError && error.message).toContain(says);
    expect(store.getRange()).toEqual(before);
    expect(store.getRemoteSummary()).toEqual({ amount: 550, id: 10 });
    expect(({} as Record<string, unknown>).amount).toBeUndefined(); // Object.prototype untouched
  });

  it('remoteSummary is checked at construction; a chained store reads its source\'s', async () => {
    expect(() => new Store<Order>({ model: Order, remoteSummary: { amount: 'total' } as never })).toThrow(/remoteSummary/);
    serveSummaries(server, 'orders');
    const store = paged();
    await store.load();
    const chained = new ChainedStore({ source: store, filters: [{ property: 'amount', operator: '>', value: 20 }] });
    expect(chained.getRemoteSummary()).toEqual({ amount: 550, id: 10 });
    expect(chained.sum('amount')).toBe(70);
    chained.destroy();
  });

  it('is typed by field name', () => {
    const store = new Store<Order>({ model: Order });
    expectTypeOf(store.getRemoteSummary()).toEqualTypeOf<RemoteSummary<Order> | undefined>();
    expectTypeOf(store.getRemoteSummary()?.amount).toBeUnknown();
    const misspelt = (): Store<Order> =>
      // @ts-expect-error -- not a summary kind
      new Store<Order>({ model: Order, remoteSummary: { amount: 'total' } });
    const unknownField = (): Store<Order> =>
      // @ts-expect-error -- not a field of Order
      new Store<Order>({ model: Order, remoteSummary: { amout: 'sum' } });
    expect([misspelt, unknownField]).toHaveLength(2);
  });
});
