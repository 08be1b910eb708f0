/**
 * The types of rest-proxy/react and rest-proxy/vue: snapshots typed by the store's and the
 * record's model, wrong arguments refused at compile time, readonly Vue refs, and Vue's ref() /
 * reactive() typed as the store or record itself (which is what they return).
 */
import { describe, expectTypeOf, test } from 'vitest';
import { reactive, ref, shallowRef, type ShallowRef } from 'vue';
import { Model, Store, type RecordSnapshot, type StoreSnapshot } from '../../src/index.js';
import type { Outbox, OutboxSnapshot } from '../../src/offline.js';
import * as react from '../../src/react.js';
import * as vue from '../../src/vue.js';

interface UserData {
  id: number;
  name: string;
  age: number | null;
}

class User extends Model<UserData> {
  static override fields = ['id', 'name', { name: 'age', type: 'int' }];
}

class Post extends Model<{ id: number; title: string }> {
  static override fields = ['id', 'title'];
}

declare const users: Store<User>;
declare const user: User;
declare const post: Post;
declare const untyped: Model;
declare const outbox: Outbox;
declare const anyRecord: Model<object>;
declare const selected: User | undefined;
declare const maybeUntyped: Model | null;
declare const maybePost: Post | undefined;

describe('rest-proxy/react', () => {
  test("useStore returns the store's snapshot, typed by its model", () => {
    const snapshot = react.useStore(users);
    expectTypeOf(snapshot).toEqualTypeOf<StoreSnapshot<User>>();
    expectTypeOf(snapshot.records).toEqualTypeOf<readonly User[]>();
    // @ts-expect-error a record is not a store
    react.useStore(user);
    // @ts-expect-error nor is a plain object
    react.useStore({ records: [] });
  });

  test("useRecord returns the record's snapshot, typed by its model", () => {
    const snapshot = react.useRecord(user);
    expectTypeOf(snapshot).toEqualTypeOf<RecordSnapshot<User>>();
    expectTypeOf(snapshot.get('name')).toEqualTypeOf<string>();
    expectTypeOf(snapshot.get('age')).toEqualTypeOf<number | null>();
    // @ts-expect-error a store is not a record
    react.useRecord(users);
  });

  test('useRecord with the model class types a record known as a Model, and refuses a record of another model', () => {
    expectTypeOf(react.useRecord(untyped, User)).toEqualTypeOf<RecordSnapshot<User>>();
    expectTypeOf(react.useRecord(anyRecord, User)).toEqualTypeOf<RecordSnapshot<User>>();
    expectTypeOf(react.useRecord(user, User).get('name')).toEqualTypeOf<string>();
    // @ts-expect-error a Post where a User is expected
    react.useRecord(post, User);
    // @ts-expect-error the second argument is a model class
    react.useRecord(user, 'User');
  });

  test('useRecord of a record or nothing (undefined, null) may give undefined', () => {
    expectTypeOf(react.useRecord(selected)).toEqualTypeOf<RecordSnapshot<User> | undefined>();
    expectTypeOf(react.useRecord(maybeUntyped, User)).toEqualTypeOf<RecordSnapshot<User> | undefined>();
    expectTypeOf(react.useRecord(undefined, User)).toEqualTypeOf<RecordSnapshot<User> | undefined>();
    // @ts-expect-error a Post where a User is expected, even when it may be missing
    react.useRecord(maybePost, User);
  });
});

describe('rest-proxy/vue', () => {
  test('useStore and useRecord return readonly shallow refs of the snapshots', () => {
    const snapshot = vue.useStore(users);
    expectTypeOf(snapshot).toEqualTypeOf<Readonly<ShallowRef<StoreSnapshot<User>>>>();
    expectTypeOf(snapshot.value.records).toEqualTypeOf<readonly User[]>();
    const record = vue.useRecord(user);
    expectTypeOf(record.value.get('name')).toEqualTypeOf<string>();
    // @ts-expect-error readonly
    snapshot.value = users.getSnapshot();
    // @ts-expect-error readonly
    record.value = user.getSnapshot();
  });

  test('they take a getter or a ref, and check the model like the React hooks', () => {
    expectTypeOf(vue.useRecord(() => user)).toEqualTypeOf<Readonly<ShallowRef<RecordSnapshot<User>>>>();
    expectTypeOf(vue.useRecord(shallowRef(user))).toEqualTypeOf<Readonly<ShallowRef<RecordSnapshot<User>>>>();
    expectTypeOf(vue.useRecord(() => untyped, User)).toEqualTypeOf<Readonly<ShallowRef<RecordSnapshot<User>>>>();
    expectTypeOf(vue.useStore(() => users)).toEqualTypeOf<Readonly<ShallowRef<StoreSnapshot<User>>>>();
    // @ts-expect-error a Post where a User is expected
    vue.useRecord(post, User);
    // @ts-expect-error a Post where a User is expected
    vue.useRecord(() => post, User);
    // @ts-expect-error a record is not a store
    vue.useStore(user);
  });

  test('useRecord of a getter or ref that may give nothing holds undefined then', () => {
    expectTypeOf(vue.useRecord(() => selected)).toEqualTypeOf<Readonly<ShallowRef<RecordSnapshot<User> | undefined>>>();
    expectTypeOf(vue.useRecord(shallowRef<User | null>(null))).toEqualTypeOf<Readonly<ShallowRef<RecordSnapshot<User> | undefined>>>();
    expectTypeOf(vue.useRecord(() => maybeUntyped, User)).toEqualTypeOf<Readonly<ShallowRef<RecordSnapshot<User> | undefined>>>();
    expectTypeOf(vue.useRecord(() => user)).toEqualTypeOf<Readonly<ShallowRef<RecordSnapshot<User>>>>();
  });

  test("Vue's ref() and reactive() are typed as the store or record itself", () => {
    expectTypeOf(ref(users).value).toEqualTypeOf<Store<User>>();
    expectTypeOf(reactive(users)).toEqualTypeOf<Store<User>>();
    expectTypeOf(ref(user).value).toEqualTypeOf<User>();
    expectTypeOf(reactive({ users, selected: user }).users).toEqualTypeOf<Store<User>>();
    expectTypeOf(reactive({ users, selected: user }).selected).toEqualTypeOf<User>();
  });
});

describe('useOutbox', () => {
  test('gives the outbox snapshot (React) and a readonly shallow ref of it (Vue); refuses what is not an outbox', () => {
    expectTypeOf(react.useOutbox).parameter(0).toExtend<Pick<Outbox, 'subscribe' | 'getSnapshot'>>();
    expectTypeOf(react.useOutbox(outbox)).toEqualTypeOf<OutboxSnapshot>();
    expectTypeOf(react.useOutbox(outbox).paused).toEqualTypeOf<false | 'offline' | 'rate-limit' | 'auth'>();
    expectTypeOf(vue.useOutbox(outbox)).toEqualTypeOf<Readonly<ShallowRef<OutboxSnapshot>>>();
    // @ts-expect-error a store is not an outbox
    react.useOutbox(users);
    // @ts-expect-error a record is not an outbox
    vue.useOutbox(user);
  });
});
