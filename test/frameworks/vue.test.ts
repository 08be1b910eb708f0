/**
 * rest-proxy/vue in Node with real Vue 3: the composables in an effect scope, in components
 * mounted by a DOM-less renderer (Vue's createRenderer) and rendered by vue/server-renderer;
 * and stores and records wrapped by Vue's reactive() and ref(). How the composables render in a
 * browser (render counts, 10,000 rows) is in renders.test.ts; the Vue example in examples.test.ts.
 */
import { createRenderer, createSSRApp, defineComponent, effectScope, h, isProxy, isReactive, isReadonly, reactive, readonly, ref, shallowRef, watch, type EffectScope } from 'vue';
import { renderToString } from 'vue/server-renderer';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChainedStore, MemoryProxy, Store } from '../../src/index.js';
import { Post, User, countSubscriptions, loadedStore, settled, userOf } from './models.js';
import { useRecord, useStore } from '../../src/vue.js';

const scopes: EffectScope[] = [];
function inScope<T>(run: () => T): { value: T; scope: EffectScope } {
  const scope = effectScope();
  scopes.push(scope);
  const value = scope.run(run);
  if (value === undefined) throw new Error('the scope did not run');
  return { value, scope };
}

afterEach(() => {
  for (const scope of scopes.splice(0)) scope.stop();
});

describe('useStore and useRecord in an effect scope', () => {
  it("useStore is a shallow ref of the store's snapshot, replaced once per batch of changes", async () => {
    const store = await loadedStore();
    const { value: users } = inScope(() => useStore(store));
    expect(users.value).toBe(store.getSnapshot());
    const seen: number[] = [];
    inScope(() => watch(users, (snapshot) => seen.push(snapshot.records.length)));

    store.add({ name: 'Cy' });
    store.add({ name: 'Di' });
    userOf(store, 1).set('name', 'Edward');
    await settled();
    expect(seen).toEqual([4]);
    expect(users.value).toBe(store.getSnapshot());
    expect(users.value.records.map((record) => record.get('name'))).toEqual(['Edward', 'Ann', 'Cy', 'Di']);
    expect(users.value.hasChanges).toBe(true);
  });

  it("useStore follows a ChainedStore: its records in its own order, replaced once per batch (issue 30)", async () => {
    const store = await loadedStore();
    const sorted = new ChainedStore({ source: store, sorters: [{ property: 'name', direction: 'ASC' }] });
    const { value: users } = inScope(() => useStore(sorted));
    expect(users.value.records.map((record) => record.get('name'))).toEqual(['Ann', 'Ed']);
    const seen: number[] = [];
    inScope(() => watch(users, (snapshot) => seen.push(snapshot.records.length)));
    store.add({ name: 'Bo' });
    userOf(store, 1).set('name', 'Al');
    await settled();
    expect(seen).toEqual([3]);
    expect(users.value.records.map((record) => record.get('name'))).toEqual(['Al', 'Ann', 'Bo']);
  });

  it("useRecord is a shallow ref of the record's snapshot: edits, reject, a store load that changes it", async () => {
    const proxy = new MemoryProxy({ data: [{ id: 1, name: 'Ed' }] });
    const store = new Store<User>({ model: User, proxy });
    await store.load();
    const ed = userOf(store, 1);
    const { value: user } = inScope(() => useRecord(ed));
    expect(user.value.get('name')).toBe('Ed');

    ed.set('name', 'Edward');
    await settled();
    expect([user.value.get('name'), user.value.dirty]).toEqual(['Edward', true]);
    ed.reject();
    await settled();
    expect([user.value.get('name'), user.value.dirty]).toEqual(['Ed', false]);

    proxy.data[0] = { id: 1, name: 'Ed from the server' };
    await store.load();
    await settled();
    expect(store.getById(1)).toBe(ed);
    expect(user.value.get('name')).toBe('Ed from the server');
  });

  it('the refs are readonly', async () => {
    const store = await loadedStore();
    const { value: users } = inScope(() => useStore(store));
    const { value: user } = inScope(() => useRecord(userOf(store, 1)));
    expect([isReadonly(users), isReadonly(user)]).toEqual([true, true]);
    const before = users.value;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      Reflect.set(users, 'value', { records: [] });
    } finally {
      warn.mockRestore();
    }
    expect(users.value).toBe(before);
  });

  it('the subscription ends with the effect scope', async () => {
    const store = await loadedStore();
    const ed = userOf(store, 1);
    const storeSubscriptions = countSubscriptions(store);
    const recordSubscriptions = countSubscriptions(ed);
    const { value, scope } = inScope(() => ({ users: useStore(store), user: useRecord(ed) }));
    expect([storeSubscriptions(), recordSubscriptions()]).toEqual([1, 1]);

    scope.stop();
    expect([storeSubscriptions(), recordSubscriptions()]).toEqual([0, 0]);
    const [users, user] = [value.users.value, value.user.value];
    ed.set('name', 'Not followed');
    await settled();
    expect(value.users.value).toBe(users);
    expect(value.user.value).toBe(user);
    expect(user.get('name')).toBe('Ed');
  });

  it('given a getter or a ref, follows the record it gives, then the next one', async () => {
    const store = await loadedStore();
    const [ed, ann] = [userOf(store, 1), userOf(store, 2)];
    const selected = shallowRef<User>(ed);
    const subscriptions = [countSubscriptions(ed), countSubscriptions(ann)];
    const { value: fromRef } = inScope(() => useRecord(selected));
    const { value: fromGetter } = inScope(() => useRecord(() => selected.value, User));
    expect([fromRef.value.get('name'), fromGetter.value.get('name')]).toEqual(['Ed', 'Ed']);

    selected.value = ann;
    expect([fromRef.value.get('name'), fromGetter.value.get('name')]).toEqual(['Ann', 'Ann']);
    expect(subscriptions.map((alive) => alive())).toEqual([0, 2]);
    ed.set('name', 'Edward');
    ann.set('name', 'Anna');
    await settled();
    expect([fromRef.value.get('name'), fromGetter.value.get('name')]).toEqual(['Anna', 'Anna']);
  });

  it('given nothing (a detail pane with no selection), holds undefined, then follows the record given', async () => {
    const store = await loadedStore();
    const ed = userOf(store, 1);
    const selected = shallowRef<User | undefined>(undefined);
    const subscriptions = countSubscriptions(ed);
    const { value: detail } = inScope(() => useRecord(() => selected.value));
    const { value: typed } = inScope(() => useRecord(selected, User));
    const { value: none } = inScope(() => useRecord(null));
    expect([detail.value, typed.value, none.value]).toEqual([undefined, undefined, undefined]);

    selected.value = ed;
    expect([detail.value?.get('name'), typed.value?.get('name')]).toEqual(['Ed', 'Ed']);
    ed.set('name', 'Edward');
    await settled();
    expect(detail.value?.get('name')).toBe('Edward');

    selected.value = undefined;
    expect([detail.value, typed.value, subscriptions()]).toEqual([undefined, undefined, 0]);
    expect(() => inScope(() => Reflect.apply(useRecord, undefined, [undefined, {}]))).toThrow(new TypeError('useRecord: the second argument must be a Model class, got an object'));
  });

  it('checks its arguments', async () => {
    const store = await loadedStore();
    const post = new Post({ id: 1, title: 'Hello' });
    expect(() => inScope(() => Reflect.apply(useStore, undefined, [userOf(store, 1)]))).toThrow(new TypeError('useStore: expected a Store, got a record of users'));
    expect(() => inScope(() => Reflect.apply(useRecord, undefined, [store]))).toThrow(new TypeError('useRecord: expected a record (a Model), got a Store'));
    expect(() => inScope(() => Reflect.apply(useRecord, undefined, [post, User]))).toThrow(new TypeError('useRecord: expected a record of users, got a record of posts'));
    expect(() => inScope(() => Reflect.apply(useRecord, undefined, [() => post, User]))).toThrow(new TypeError('useRecord: expected a record of users, got a record of posts'));
    expect(() => inScope(() => Reflect.apply(useRecord, undefined, [post, {}]))).toThrow(new TypeError('useRecord: the second argument must be a Model class, got an object'));
    expect(inScope(() => useRecord(post, Post)).value.value.get('title')).toBe('Hello');
  });
});

// ---- components --------------------------------------------------------------------------------

/** A node of the DOM-less renderer: an element with children, or a text. */
interface TestNode {
  tag: string;
  text: string;
  children: TestNode[];
  parent: TestNode | null;
}

function node(tag: string, text = ''): TestNode {
  return { tag, text, children: [], parent: null };
}

function textOf(target: TestNode): string {
  return target.tag === '#text' ? target.text : target.children.map(textOf).join('');
}

/** Vue's own renderer over plain objects: what Vue documents for custom targets. */
const { createApp } = createRenderer<TestNode, TestNode>({
  createElement: (tag) => node(tag),
  createText: (text) => node('#text', text),
  createComment: (text) => node('#comment', text),
  setText: (target, text) => {
    target.text = text;
  },
  setElementText: (target, text) => {
    target.children = text === '' ? [] : [{ ...node('#text', text), parent: target }];
  },
  insert: (child, parent, anchor) => {
    child.parent?.children.splice(child.parent.children.indexOf(child), 1);
    const at = anchor ? parent.children.indexOf(anchor) : -1;
    parent.children.splice(at === -1 ? parent.children.length : at, 0, child);
    child.parent = parent;
  },
  remove: (child) => {
    child.parent?.children.splice(child.parent.children.indexOf(child), 1);
    child.parent = null;
  },
  parentNode: (child) => child.parent,
  nextSibling: (child) => (child.parent ? (child.parent.children[child.parent.children.indexOf(child) + 1] ?? null) : null),
  patchProp: () => undefined,
});

describe('useStore and useRecord in components', () => {
  it('render again on a change, once per batch, and let go when unmounted', async () => {
    const store = await loadedStore();
    const ed = userOf(store, 1);
    const subscriptions = [countSubscriptions(store), countSubscriptions(ed), countSubscriptions(userOf(store, 2))];
    const renders = { list: 0, rows: 0 };
    const Row = defineComponent(
      (props: { record: User }) => {
        const user = useRecord(() => props.record);
        return () => {
          renders.rows++;
          return h('li', `${user.value.get('name')}${user.value.dirty ? '*' : ''};`);
        };
      },
      { props: ['record'] },
    );
    const List = defineComponent(() => {
      const users = useStore(store);
      return () => {
        renders.list++;
        return h('ul', users.value.records.map((record) => h(Row, { key: record.clientId, record })));
      };
    });
    const root = node('root');
    const app = createApp(List);
    app.mount(root);
    expect(textOf(root)).toBe('Ed;Ann;');
    expect(renders).toEqual({ list: 1, rows: 2 });
    expect(subscriptions.map((alive) => alive())).toEqual([1, 1, 1]);

    ed.set('name', 'Edward');
    ed.set('name', 'Eddie');
    await settled();
    expect(textOf(root)).toBe('Eddie*;Ann;');
    // The list once (its store's snapshot changed), the edited row once, the other row not at all.
    expect(renders).toEqual({ list: 2, rows: 3 });

    app.unmount();
    expect(subscriptions.map((alive) => alive())).toEqual([0, 0, 0]);
    ed.set('name', 'After');
    await settled();
    expect(renders).toEqual({ list: 2, rows: 3 });
  });

  it('render on the server with the snapshot, and subscribe to nothing there', async () => {
    const store = await loadedStore();
    userOf(store, 2).set('name', 'Anna');
    const subscriptions = [countSubscriptions(store), countSubscriptions(userOf(store, 1)), countSubscriptions(userOf(store, 2))];
    const Row = defineComponent(
      (props: { record: User }) => {
        const user = useRecord(() => props.record, User);
        return () => h('li', `${user.value.get('name')}${user.value.dirty ? ' (edited)' : ''}`);
      },
      { props: ['record'] },
    );
    const List = defineComponent(() => {
      const users = useStore(store);
      return () => h('ul', users.value.records.map((record) => h(Row, { key: record.clientId, record })));
    });
    expect(await renderToString(createSSRApp(List))).toBe('<ul><li>Ed</li><li>Anna (edited)</li></ul>');
    // Vue never ends a server-rendered component's scope: a subscription made there would stay.
    expect(subscriptions.map((alive) => alive())).toEqual([0, 0, 0]);
  });
});

// ---- reactive() and ref() ----------------------------------------------------------------------

describe("Vue's reactive() and ref() leave stores and records as they are", () => {
  it('returns the store and the record themselves, not proxies', async () => {
    const store = await loadedStore();
    const ed = userOf(store, 1);
    expect(reactive(store)).toBe(store);
    expect(readonly(store)).toBe(store);
    expect(ref(store).value).toBe(store);
    expect(ref(ed).value).toBe(ed);
    expect(reactive(ed)).toBe(ed);
    const state = reactive({ store, selected: ed, list: [ed] });
    expect(state.store).toBe(store);
    expect(state.selected).toBe(ed);
    expect(state.list[0]).toBe(ed);
    expect([isReactive(state.store), isProxy(state.selected)]).toEqual([false, false]);
  });

  it('so that they keep working inside reactive state', async () => {
    const store = await loadedStore();
    const state = reactive({ store });
    // A proxy would break here: methods reading private fields through it throw a TypeError.
    await state.store.load();
    state.store.getAt(0)?.set('name', 'Through reactive');
    expect(state.store.hasChanges()).toBe(true);
    expect(store.getAt(0)?.get('name')).toBe('Through reactive');
  });
});
