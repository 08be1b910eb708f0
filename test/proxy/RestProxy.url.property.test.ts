/**
 * Property tests of RestProxy url building (API.md section 2, url rules 1 to 5): any id
 * round-trips through the path, a base url's query (and fragment) survives, the format ends the
 * path, the path never holds "//", and buildUrl is idempotent.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Model, Operation, RestProxy } from '../../src/index.js';
import { rawPathOf } from '../helpers/proxyTestKit.js';

class User extends Model<{ id: number | string; name: string }> {
  static override fields = ['id', 'name'];
}

type RestConfig = NonNullable<ConstructorParameters<typeof RestProxy>[0]>;

const ORIGIN = 'http://api.test';

/**
 * Ids: any string of full unicode graphemes or ascii (controls included), url-special
 * characters, and integers. "." and ".." are left out: as path segments every url parser
 * removes them, whatever their encoding, so no path can carry them to a server.
 */
const idArbitrary: fc.Arbitrary<string | number> = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
  fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 12 }),
  fc.constantFrom('/', '?', '#', '%', '%2F', ' ', '+', '&', '=', 'a.b', '../x', 'Foo & Bar', '\u00e9', '\u{1F600}'),
  fc.integer(),
).filter((id) => id !== '.' && id !== '..');

const segment = fc.stringMatching(/^[a-z0-9_-]{1,8}$/);
const basePathArbitrary = fc
  .tuple(fc.array(segment, { minLength: 1, maxLength: 3 }), fc.boolean())
  .map(([segments, trailing]) => `/${segments.join('/')}${trailing ? '/' : ''}`);
const formatArbitrary = fc.stringMatching(/^[a-z0-9]{1,5}$/);

function buildReadUrl(config: RestConfig, id?: string | number): string {
  const proxy = new RestProxy({ model: User, ...config });
  const operation = id === undefined ? new Operation({ action: 'read' }) : new Operation({ action: 'read', id });
  return proxy.buildUrl(proxy.buildRequest(operation));
}

function withoutTrailingSlash(path: string): string {
  return path.endsWith('/') ? path.slice(0, -1) : path;
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

beforeEach(() => {
  vi.spyOn(Date, 'now').mockReturnValue(1_700_000_000_000);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('RestProxy url building: properties', () => {
  it('any id round-trips through the path: decodeURIComponent of the last segment gives it back', () => {
    fc.assert(
      fc.property(basePathArbitrary, idArbitrary, (basePath, id) => {
        const path = rawPathOf(buildReadUrl({ url: ORIGIN + basePath }, id));
        expect(path).toBe(`${withoutTrailingSlash(basePath)}/${lastSegment(path)}`);
        expect(decodeURIComponent(lastSegment(path))).toBe(String(id));
      }),
    );
  });

  it('with trailingSlash, the path ends with "/" and the segment before it is the id', () => {
    fc.assert(
      fc.property(basePathArbitrary, idArbitrary, (basePath, id) => {
        const path = rawPathOf(buildReadUrl({ url: ORIGIN + basePath, trailingSlash: true }, id));
        expect(path.endsWith('/')).toBe(true);
        expect(decodeURIComponent(lastSegment(path.slice(0, -1)))).toBe(String(id));
      }),
    );
  });

  it('the format ends the path of instance and collection urls, and the id still round-trips', () => {
    const idNotEndingWithDot = idArbitrary.filter((id) => !String(id).endsWith('.'));
    fc.assert(
      fc.property(basePathArbitrary, idNotEndingWithDot, formatArbitrary, fc.boolean(), (basePath, id, format, trailingSlash) => {
        const instancePath = rawPathOf(buildReadUrl({ url: ORIGIN + basePath, format, trailingSlash }, id));
        expect(instancePath.endsWith(`.${format}`)).toBe(true);
        const idSegment = lastSegment(instancePath).slice(0, -(format.length + 1));
        expect(decodeURIComponent(idSegment)).toBe(String(id));

        const collectionBase = withoutTrailingSlash(basePath);
        const collectionPath = rawPathOf(buildReadUrl({ url: ORIGIN + collectionBase, format, trailingSlash }));
        expect(collectionPath).toBe(`${collectionBase}.${format}`);
      }),
    );
  });

  it("a base url's query string (and fragment) survive, after the path", () => {
    const key = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== '_dc' && k !== 'id');
    const value = fc.string({ maxLength: 8 });
    const fragment = fc.option(fc.stringMatching(/^[a-z0-9]{1,6}$/), { nil: undefined });
    fc.assert(
      fc.property(basePathArbitrary, idArbitrary, key, value, fragment, fc.option(formatArbitrary, { nil: undefined }), (basePath, id, k, v, hash, format) => {
        const base = `${ORIGIN}${basePath}?${encodeURIComponent(k)}=${encodeURIComponent(v)}${hash === undefined ? '' : `#${hash}`}`;
        const url = buildReadUrl({ url: base, format }, id);
        const parsed = new URL(url);
        expect(parsed.searchParams.get(k)).toBe(v);
        expect(parsed.searchParams.get('_dc')).toBe('1700000000000');
        expect(parsed.hash).toBe(hash === undefined ? '' : `#${hash}`);
        const path = rawPathOf(url);
        const expectedEnd = `/${encodeURIComponent(String(id))}${format === undefined ? '' : `.${format}`}`;
        expect(path).toBe(withoutTrailingSlash(basePath) + expectedEnd);
      }),
    );
  });

  it('the path never holds "//", whatever the base, id, format and trailingSlash', () => {
    fc.assert(
      fc.property(
        basePathArbitrary,
        fc.option(idArbitrary, { nil: undefined }),
        fc.option(formatArbitrary, { nil: undefined }),
        fc.boolean(),
        (basePath, id, format, trailingSlash) => {
          const path = rawPathOf(buildReadUrl({ url: ORIGIN + basePath, format, trailingSlash }, id));
          expect(path).not.toContain('//');
        },
      ),
    );
  });

  it('buildUrl is idempotent on the same request (reads and writes, with and without the cache buster)', () => {
    fc.assert(
      fc.property(
        basePathArbitrary,
        fc.option(idArbitrary, { nil: undefined }),
        fc.option(formatArbitrary, { nil: undefined }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom('read', 'update'),
        (basePath, id, format, trailingSlash, withQuery, noCache, action) => {
          const proxy = new RestProxy({ url: `${ORIGIN}${basePath}${withQuery ? '?tenant=5' : ''}`, model: User, format, trailingSlash, noCache });
          const operation =
            action === 'update'
              ? new Operation({ action, records: [new User({ id: id ?? 1, name: 'Ed' })] })
              : id === undefined
                ? new Operation({ action })
                : new Operation({ action, id });
          const request = proxy.buildRequest(operation);
          const first = proxy.buildUrl(request);
          expect(proxy.buildUrl(request)).toBe(first);
          expect(proxy.buildUrl(request)).toBe(first);
        },
      ),
    );
  });
});
