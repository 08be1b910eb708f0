/**
 * A local sort, filter or group on a name the model's declared fields do not have is a TypeError
 * naming it (API.md section 6), instead of a sort that does nothing and a filter that shows 0
 * rows; remote ones send what they are given (a server may sort on more); a model that declares
 * no fields takes any name; sorterFn and filterFn reach anything.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Model, RestProxy, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';

class User extends Model.define({ fields: { id: 'int', name: 'string', age: 'int' } }) {}

const ROWS = [
  { id: 1, name: 'Cy', age: 30 },
  { id: 2, name: 'Ann', age: 40 },
];

/** A name the types refuse, as plain JavaScript (or a cast) would pass it. */
const typo = 'nmae' as 'name';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { users: ROWS } });
});

afterEach(async () => {
  await server.close();
});

function localStore(): Store<User> {
  return new Store({ model: User, data: ROWS });
}

describe('local: an undeclared name is a TypeError naming it, and nothing changes', () => {
  it('sort', () => {
    const store = localStore();
    expect(() => store.sort(typo)).toThrow(new TypeError('Store.sort: Record has no field "nmae" (fields: id, name, age)'));
    expect(() => store.sort([{ property: 'name' }, { property: 'agee' as 'age' }])).toThrow(/Store.sort: Record has no field "agee"/);
    expect(store.sorters).toEqual([]);
  });

  it('filter', () => {
    const store = localStore();
    expect(() => store.filter('agee' as 'age', 30, '>=')).toThrow(/Store.filter: Record has no field "agee"/);
    expect(() => store.filter([{ property: 'x' as 'name', value: 1 }])).toThrow(/Store.filter: Record has no field "x"/);
    expect(store.filters).toEqual([]);
    expect(store.getCount()).toBe(2);
  });

  it('group', () => {
    const store = localStore();
    expect(() => store.group('x' as 'name')).toThrow(/Store.group: Record has no field "x"/);
    expect(store.groupField).toBeUndefined();
  });

  it('the sorters, filters and groupField options', () => {
    expect(() => new Store({ model: User, sorters: [{ property: typo }] })).toThrow(/Store.sorters: Record has no field "nmae"/);
    expect(() => new Store({ model: User, filters: [{ property: typo, value: 'Ed' }] })).toThrow(/Store.filters: Record has no field "nmae"/);
    expect(() => new Store({ model: User, groupField: typo })).toThrow(/Store.groupField: Record has no field "nmae"/);
  });

  it('declared names work, and so does the id though it is not declared', async () => {
    class Named extends Model.define({ fields: { name: 'string' } }) {}
    const store = new Store({ model: Named, data: [{ id: 2, name: 'b' }, { id: 1, name: 'a' }] });
    await store.sort('id');
    expect(store.getRange().map((record) => record.get('name'))).toEqual(['a', 'b']);
    await store.filter('name', 'b');
    expect(store.getCount()).toBe(1);
  });

  it('sorterFn and filterFn reach anything', async () => {
    const store = localStore();
    await store.sort([{ property: 'computed', sorterFn: (a, b) => (a instanceof User && b instanceof User ? String(a.get('name')).localeCompare(String(b.get('name'))) : 0) }]);
    expect(store.getRange().map((record) => record.get('name'))).toEqual(['Ann', 'Cy']);
    await store.filter([{ property: 'anything', filterFn: (_value, record) => record instanceof User && record.get('age') === 30 }]);
    expect(store.getRange().map((record) => record.get('name'))).toEqual(['Cy']);
  });

  it('a model that declares no fields takes any name', async () => {
    const store = new Store({ data: [{ b: 2 }, { b: 1 }] });
    await store.sort('b');
    expect(store.getRange().map((record) => record.get('b'))).toEqual([1, 2]);
    await store.group('whatever');
    await store.filter('b', 1);
    expect(store.getCount()).toBe(1);
  });
});

describe('remote: the name is sent as given', () => {
  it('sort, filter and group on a name the model does not declare reach the server', async () => {
    const store = new Store({ model: User, proxy: new RestProxy({ url: `${server.url}/users`, retry: 0 }), remoteSort: true, remoteFilter: true, remoteGroup: true });
    await store.sort('computedRank' as 'name');
    await store.filter('q' as 'name', 'x');
    await store.group('team' as 'name');
    const queries = server.requests.map((request) => Object.fromEntries(request.query));
    expect(queries[0]?.sort).toBe('[{"property":"computedRank","direction":"ASC"}]');
    expect(queries[1]?.filter).toBe('[{"property":"q","value":"x"}]');
    expect(queries[2]?.group).toBe('{"property":"team","direction":"ASC"}');
  });
});
