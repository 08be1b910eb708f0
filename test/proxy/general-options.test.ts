/**
 * The general options that the presets are made of, each on its own: a server with its own
 * conventions can use them without a preset.
 */
import { describe, expect, it } from 'vitest';
// The built-in presets are registered where they are imported, as in an app.
import '../../src/presets.js';
import { Model, Operation, RestProxy, Store, type Filter, type Sorter } from '../../src/index.js';
import { recordingFetch } from '../helpers/recordingFetch.js';
import { proxyErrorOf, queryOf } from '../helpers/proxyTestKit.js';

interface BookData {
  id: number;
  title: string;
  year: number;
}

class Book extends Model<BookData> {
  static override fields = ['id', 'title', { name: 'year', type: 'int' }];
}

const URL_BASE = 'http://api.test/books';

describe('ServerProxy: firstPage', () => {
  it('sends page n as n - 1 for a server whose pages start at 0', async () => {
    const rec = recordingFetch(() => ({ body: [] }));
    const proxy = new RestProxy({ url: URL_BASE, fetch: rec, firstPage: 0, noCache: false });
    await proxy.read(new Operation({ action: 'read', page: 1, start: 0, limit: 10 }));
    await proxy.read(new Operation({ action: 'read', page: 3, start: 20, limit: 10 }));
    expect(rec.calls.map((call) => queryOf(call.url).get('page'))).toEqual(['0', '2']);
  });

  it('accepts only 0 or 1', () => {
    expect(() => new RestProxy({ url: URL_BASE, firstPage: 2 })).toThrow(/firstPage must be 0 or 1, got 2/);
  });
});

describe('ServerProxy: serializeSorters and serializeFilters', () => {
  it('turn sorters and filters into params of the server\'s own shape, replacing sort and filter', async () => {
    const rec = recordingFetch(() => ({ body: [] }));
    const proxy = new RestProxy({
      url: URL_BASE,
      fetch: rec,
      noCache: false,
      serializeSorters: (sorters: Sorter[]) => ({ order_by: sorters.map((s) => `${s.property}:${s.direction ?? 'ASC'}`).join('|') }),
      serializeFilters: (filters: Filter[]) => Object.fromEntries(filters.map((f) => [`where[${f.property}]`, f.value])),
    });
    await proxy.read(
      new Operation({
        action: 'read',
        sorters: [{ property: 'year', direction: 'DESC' }, { property: 'title' }],
        filters: [{ property: 'title', value: 'Dune' }],
      }),
    );
    const query = queryOf(rec.last().url);
    expect(query.get('order_by')).toBe('year:DESC|title:ASC');
    expect(query.get('where[title]')).toBe('Dune');
    expect(query.has('sort')).toBe(false);
    expect(query.has('filter')).toBe(false);
  });

  it('an error thrown by a serializer fails the read with kind config and its message', async () => {
    const rec = recordingFetch(() => ({ body: [] }));
    const proxy = new RestProxy({
      url: URL_BASE,
      fetch: rec,
      serializeFilters: () => {
        throw new TypeError('this server has no ">" filter');
      },
    });
    const error = await proxyErrorOf(proxy.read(new Operation({ action: 'read', filters: [{ property: 'year', operator: '>', value: 1 }] })));
    expect(error.kind).toBe('config');
    expect(error.message).toMatch(/no ">" filter/);
    expect(rec.calls).toHaveLength(0);
  });
});

describe('JsonReader: functions for root and total, and transformRecord', () => {
  it('reads records and total from any envelope, and reshapes each record', async () => {
    const rec = recordingFetch(() => ({
      body: { payload: { items: [{ book: { id: 1, title: 'Dune', year: '1965' } }] }, paging: { count: 41 } },
    }));
    const proxy = new RestProxy({
      url: URL_BASE,
      fetch: rec,
      reader: {
        rootProperty: (data) => {
          const payload: unknown = typeof data === 'object' && data !== null ? Reflect.get(data, 'payload') : undefined;
          return typeof payload === 'object' && payload !== null ? Reflect.get(payload, 'items') : undefined;
        },
        totalProperty: 'paging.count',
        transformRecord: (item) => {
          const inner = item['book'];
          return typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? { ...inner } : item;
        },
      },
    });
    const store = new Store({ model: Book, proxy });
    const [dune] = await store.load();
    expect(dune?.get('title')).toBe('Dune');
    expect(dune?.get('year')).toBe(1965);
    expect(store.getTotalCount()).toBe(41);

    proxy.reader.totalProperty = (data) => (typeof data === 'object' && data !== null ? 7 : undefined);
    await store.load();
    expect(store.getTotalCount()).toBe(7);
  });
});

describe('JsonWriter: rootProperty function, transformRecord and contentType', () => {
  it('wraps, reshapes and labels the body as the server wants', async () => {
    const rec = recordingFetch((call) => ({ status: 201, body: { data: { id: '9', attributes: { title: 'Dune', year: 1965 } } }, headers: { 'content-type': call.headers['content-type'] ?? '' } }));
    const proxy = new RestProxy({
      url: URL_BASE,
      fetch: rec,
      writer: {
        rootProperty: (request) => (request.action === 'create' ? 'data' : undefined),
        transformRecord: (data) => ({ type: 'books', attributes: data }),
        contentType: 'application/vnd.api+json',
      },
      reader: { rootProperty: 'data', transformRecord: (item) => ({ id: Number(item['id']), ...Object(item['attributes']) }) },
    });
    class LocalBook extends Book {
      static override proxy = proxy;
    }
    const book = new LocalBook({ title: 'Dune', year: 1965 });
    await book.save();
    expect(rec.last().headers['content-type']).toBe('application/vnd.api+json');
    expect(rec.last().json).toEqual({ data: { type: 'books', attributes: { title: 'Dune', year: 1965 } } });
    expect(book.getId()).toBe(9);
    expect(book.phantom).toBe(false);
  });
});

describe('ProxyError.mayHaveBeenApplied', () => {
  it('is true when no answer came back, and false for a clear refusal', async () => {
    const refused = recordingFetch(() => ({ status: 422, body: { errors: { title: ['is required'] } } }));
    const lost = recordingFetch(() => new TypeError('fetch failed'));
    const make = (fetch: typeof refused): RestProxy => new RestProxy({ url: URL_BASE, fetch, retry: 0 });
    class RefusedBook extends Book {
      static override proxy = make(refused);
    }
    class LostBook extends Book {
      static override proxy = make(lost);
    }
    const refusal = await proxyErrorOf(new RefusedBook({ title: '' }).save());
    expect(refusal.kind).toBe('validation');
    expect(refusal.mayHaveBeenApplied).toBe(false);
    const loss = await proxyErrorOf(new LostBook({ title: 'Dune' }).save());
    expect(loss.kind).toBe('network');
    expect(loss.mayHaveBeenApplied).toBe(true);
  });
});
