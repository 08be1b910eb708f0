/**
 * rest-proxy/react on the server (react-dom/server, the hooks' server snapshot) and its argument
 * checks. How the hooks render in a browser (updates, render counts, unmounting) is in
 * renders.test.ts; the React example in examples.test.ts.
 */
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ChainedStore, Model, Store } from '../../src/index.js';
import { Post, User, loadedStore } from './models.js';
import { useRecord, useStore } from '../../src/react.js';

function Users({ store }: { store: Store<User> }) {
  const { records, total, loading } = useStore(store);
  return h('ul', { 'data-total': total, 'aria-busy': loading }, records.map((record) => h(Name, { key: record.clientId, record })));
}

function Name({ record }: { record: User }) {
  const user = useRecord(record);
  return h('li', null, `${user.get('name')}${user.dirty ? ' (edited)' : ''}`);
}

/** What a component that calls `hook` renders on the server: its text, or the error it threw. */
function renderHook(hook: () => string): string {
  function Probe() {
    return h('p', null, hook());
  }
  try {
    return renderToString(h(Probe)).replace(/<[^>]+>/g, '');
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
}

describe('rest-proxy/react on the server', () => {
  it('renders the store and its records as they are (the server snapshot)', async () => {
    const store = await loadedStore();
    store.getById(2)?.set('name', 'Anna');
    expect(renderToString(h(Users, { store }))).toBe('<ul data-total="2" aria-busy="false"><li>Ed</li><li>Anna (edited)</li></ul>');
  });

  it('useStore takes a ChainedStore and a component renders its records (issue 30)', async () => {
    const store = await loadedStore();
    const sorted = new ChainedStore({ source: store, sorters: [{ property: 'name', direction: 'DESC' }] });
    expect(renderHook(() => useStore(sorted).records.map((record) => record.get('name')).join(','))).toBe('Ed,Ann');
  });

  it('useRecord with the model class renders a record typed only as a Model', async () => {
    const store = await loadedStore();
    const untyped: Model<object> | undefined = store.getAt(0);
    expect(renderHook(() => (untyped === undefined ? 'none' : useRecord(untyped, User).get('name')))).toBe('Ed');
  });
});

describe('rest-proxy/react checks its arguments', () => {
  const store = new Store<User>({ model: User });
  const user = new User({ id: 1, name: 'Ed' });

  it('useStore takes a Store', () => {
    expect(renderHook(() => String(useStore(store).total))).toBe('0');
    expect(renderHook(() => String(Reflect.apply(useStore, undefined, [user])))).toBe('TypeError: useStore: expected a Store, got a record of users');
    expect(renderHook(() => String(Reflect.apply(useStore, undefined, [{ records: [] }])))).toBe('TypeError: useStore: expected a Store, got an object');
    expect(renderHook(() => String(Reflect.apply(useStore, undefined, [undefined])))).toBe('TypeError: useStore: expected a Store, got undefined');
  });

  it('useRecord takes a record, of the model given when one is', () => {
    expect(renderHook(() => useRecord(user).get('name'))).toBe('Ed');
    expect(renderHook(() => useRecord(user, User).get('name'))).toBe('Ed');
    expect(renderHook(() => String(Reflect.apply(useRecord, undefined, [store])))).toBe('TypeError: useRecord: expected a record (a Model), got a Store');
    expect(renderHook(() => String(Reflect.apply(useRecord, undefined, [{ id: 1 }])))).toBe('TypeError: useRecord: expected a record (a Model), got an object');
    expect(renderHook(() => String(Reflect.apply(useRecord, undefined, [new Post({ id: 1 }), User])))).toBe('TypeError: useRecord: expected a record of users, got a record of posts');
    expect(renderHook(() => String(Reflect.apply(useRecord, undefined, [user, 'User'])))).toBe('TypeError: useRecord: the second argument must be a Model class, got "User"');
  });

  it('useRecord of undefined or null (nothing selected) gives undefined', () => {
    const selected = (): User | undefined => undefined;
    expect(renderHook(() => String(useRecord(selected())))).toBe('undefined');
    expect(renderHook(() => String(useRecord(null, User)))).toBe('undefined');
    expect(renderHook(() => useRecord(selected())?.get('name') ?? 'nothing selected')).toBe('nothing selected');
    expect(renderHook(() => String(Reflect.apply(useRecord, undefined, [undefined, 'User'])))).toBe('TypeError: useRecord: the second argument must be a Model class, got "User"');
  });

  it('says when a store or a record comes from another copy of the package', () => {
    // What an app that loads two copies of rest-proxy passes: our methods, another class.
    const copy = { sync: () => undefined, save: () => undefined, getSnapshot: () => undefined, subscribe: () => () => undefined };
    expect(renderHook(() => String(Reflect.apply(useStore, undefined, [copy])))).toBe(
      'TypeError: useStore: expected a Store, got one from another copy of rest-proxy: import rest-proxy and its bindings from one copy of the package',
    );
    expect(renderHook(() => String(Reflect.apply(useRecord, undefined, [copy])))).toMatch(/^TypeError: useRecord: expected a record \(a Model\), got one from another copy of rest-proxy/);
  });
});
