/**
 * Type tests of the Model and Store generics (API.md sections 5 and 6): field types flow from the
 * declared data shape to get/set, statics return the subclass, stores hand out the model's type.
 */
import { describe, expectTypeOf, test } from 'vitest';
import { Batch, Model, Operation, Store } from '../../src/index.js';

interface UserData {
  id: number;
  name: string;
  email: string;
  active: boolean;
  born: Date | null;
}

class User extends Model<UserData> {
  static override fields = ['id', 'name', { name: 'email', type: 'string' }, { name: 'active', type: 'boolean' }, { name: 'born', type: 'date', allowNull: true }];
  static override proxy = { type: 'rest', url: 'http://api.test/users' };

  /** A method of the subclass, to prove statics hand out the subclass and not the base Model. */
  greeting(): string {
    return `Hello ${this.get('name')}`;
  }
}

class Post extends Model<{ id: number; title: string }> {
  static override fields = ['id', 'title'];
}

declare const user: User;

describe('Model: get', () => {
  test('returns the declared type of each field', () => {
    expectTypeOf(user.get('name')).toEqualTypeOf<string>();
    expectTypeOf(user.get('active')).toEqualTypeOf<boolean>();
    expectTypeOf(user.get('born')).toEqualTypeOf<Date | null>();
    expectTypeOf(user.get('email')).toEqualTypeOf<string>();
  });
});

describe('Model: set', () => {
  test('accepts a value of the field\'s type, alone or in an object', () => {
    expectTypeOf(user.set).toBeCallableWith('name', 'Ed');
    expectTypeOf(user.set).toBeCallableWith('born', null);
    expectTypeOf(user.set).toBeCallableWith({ name: 'Ed', active: true });
  });

  test('refuses unknown fields and wrong types', () => {
    // @ts-expect-error 'nope' is not a field of User
    user.set('nope', 1);
    // @ts-expect-error name is a string
    user.set('name', 5);
    // @ts-expect-error active is a boolean
    user.set('active', 'yes');
    // @ts-expect-error born is not nullable to a string
    user.set('born', '2020-01-01');
    // @ts-expect-error name is a string
    user.set({ name: 5 });
    // @ts-expect-error 'nope' is not a field of User
    user.set({ nope: 1 });
  });

  test('the constructor takes partial data of the declared shape', () => {
    expectTypeOf(new User({ name: 'Ed' })).toEqualTypeOf<User>();
    // @ts-expect-error name is a string
    new User({ name: 5 });
  });
});

describe('Model: data and state', () => {
  test('getData and getChanges are shaped by the declared data', () => {
    expectTypeOf(user.getChanges()).toMatchTypeOf<Partial<UserData>>();
    expectTypeOf(user.modified).toMatchTypeOf<Partial<UserData>>();
    expectTypeOf(user.phantom).toEqualTypeOf<boolean>();
    expectTypeOf(user.dirty).toEqualTypeOf<boolean>();
    expectTypeOf(user.isModified).toBeCallableWith('name');
  });
});

describe('Model: persistence', () => {
  test('User.load resolves to a User', () => {
    expectTypeOf(User.load(1)).resolves.toEqualTypeOf<User>();
    expectTypeOf(Post.load(1)).resolves.toEqualTypeOf<Post>();
  });

  test('a loaded User keeps its subclass methods', async () => {
    const loaded = await User.load(1);
    expectTypeOf(loaded.greeting()).toEqualTypeOf<string>();
  });

  test('save and destroy resolve with an operation', () => {
    expectTypeOf(user.save()).resolves.toMatchTypeOf<Operation>();
    expectTypeOf(user.destroy()).resolves.toMatchTypeOf<Operation>();
  });
});

describe('Store generics', () => {
  const store = new Store({ model: User });

  test('records come out as the model\'s type', () => {
    expectTypeOf(store.getAt(0)).toEqualTypeOf<User | undefined>();
    expectTypeOf(store.getById(1)).toEqualTypeOf<User | undefined>();
    expectTypeOf(store.getRange()).toEqualTypeOf<User[]>();
    expectTypeOf(store.add({ name: 'Ed' })).toEqualTypeOf<User[]>();
    expectTypeOf(store.load()).resolves.toEqualTypeOf<User[]>();
    expectTypeOf(store.sync()).resolves.toEqualTypeOf<Batch>();
    for (const record of store) {
      expectTypeOf(record).toEqualTypeOf<User>();
    }
  });

  test('add refuses records of another model', () => {
    // @ts-expect-error a Post is not a User
    store.add(new Post({ title: 'x' }));
  });

  test('event listeners get typed payloads and on() returns an unsubscribe function', () => {
    const off = store.on('add', (event) => {
      expectTypeOf(event.records).toEqualTypeOf<User[]>();
    });
    expectTypeOf(off).toEqualTypeOf<() => void>();
    store.on('update', (event) => {
      expectTypeOf(event.record).toEqualTypeOf<User>();
    });
    store.on('load', (event) => {
      expectTypeOf(event.records).toEqualTypeOf<User[]>();
    });
    // @ts-expect-error no such event
    store.on('nonsense', () => undefined);
  });
});

describe('Model: records of different models are different types', () => {
  test('a record of one model is not accepted where another is expected', () => {
    const post = new Post();
    // @ts-expect-error a Post is not a User
    const asUser: User = post;
    // @ts-expect-error a User is not a Post, although it has every method a Post has
    const asPost: Post = new User();
    // @ts-expect-error a store of Users takes no Post
    new Store({ model: User }).add(post);
    expectTypeOf<Post>().not.toMatchTypeOf<Model<{ id: number; name: string }>>();
    void asUser;
    void asPost;
  });

  test('a record is still a Model, and a subclass record is its parent model', () => {
    class Admin extends User {}
    expectTypeOf<Admin>().toMatchTypeOf<User>();
    expectTypeOf<User>().toMatchTypeOf<Model<UserData>>();
    expectTypeOf<Post>().toMatchTypeOf<Model>();
  });
});
