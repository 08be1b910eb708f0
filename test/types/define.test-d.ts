/**
 * Model.define (API.md 9.1): the record type follows the field declarations as the runtime
 * converts them; fieldsFor checks a hand-written type against fields both ways; store methods
 * and options that name a field take the model's field names (9.2 validators typed by field);
 * getProxy has the type of the declared proxy. Also compiled under exactOptionalPropertyTypes by
 * test/types/strict.test.ts.
 */
import { describe, expectTypeOf, it } from 'vitest';
import {
  auto,
  custom,
  email,
  fieldsFor,
  length,
  MemoryProxy,
  Model,
  presence,
  range,
  RestProxy,
  Store,
  type DataOf,
  type FieldErrorsOf,
  type Proxy,
  type ProxySpec,
  type ValidatorsOf,
} from '../../src/index.js';

class User extends Model.define({
  fields: {
    name: 'string',
    nick: { type: 'string', allowNull: false },
    age: { type: 'int', allowNull: false },
    score: 'number',
    active: 'boolean',
    born: { type: 'date', allowNull: false },
    seen: 'date',
    extra: 'auto',
    loose: {},
    tags: auto<string[]>(),
    roles: auto<string[]>({ allowNull: false, defaultValue: [] }),
    upper: { type: 'string', convert: (value: unknown) => String(value).toUpperCase() },
    parsed: { convert: (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined) },
  },
  proxy: { type: 'rest', url: '/users' },
  validators: { name: presence(), age: [range({ min: 0 })], nick: custom((value, record) => value !== record.get('name') || 'must differ') },
}) {
  greeting(): string {
    return `Hello ${this.get('nick')}`;
  }
}

type U = DataOf<User>;

describe('the record type follows the runtime', () => {
  it('maps each field type, with | null unless allowNull: false', () => {
    expectTypeOf<U['name']>().toEqualTypeOf<string | null>();
    expectTypeOf<U['nick']>().toEqualTypeOf<string>();
    expectTypeOf<U['age']>().toEqualTypeOf<number>();
    expectTypeOf<U['score']>().toEqualTypeOf<number | null>();
    expectTypeOf<U['active']>().toEqualTypeOf<boolean | null>();
  });

  it('a date is Date | null whatever allowNull says', () => {
    expectTypeOf<U['born']>().toEqualTypeOf<Date | null>();
    expectTypeOf<U['seen']>().toEqualTypeOf<Date | null>();
  });

  it('auto is unknown; auto<T>() is T | null, T with allowNull: false', () => {
    expectTypeOf<U['extra']>().toEqualTypeOf<unknown>();
    expectTypeOf<U['loose']>().toEqualTypeOf<unknown>();
    expectTypeOf<U['tags']>().toEqualTypeOf<string[] | null>();
    expectTypeOf<U['roles']>().toEqualTypeOf<string[]>();
  });

  it('a field with convert has exactly its return type', () => {
    expectTypeOf<U['upper']>().toEqualTypeOf<string>();
    expectTypeOf<U['parsed']>().toEqualTypeOf<number | undefined>();
  });

  it('an undeclared id is string | number; a declared one has its field type', () => {
    expectTypeOf<U['id']>().toEqualTypeOf<string | number>();
    class Item extends Model.define({ fields: { id: { type: 'int', allowNull: false } } }) {}
    expectTypeOf<DataOf<Item>['id']>().toEqualTypeOf<number>();
    class Keyed extends Model.define({ idProperty: 'key', fields: { title: 'string' } }) {}
    expectTypeOf<keyof DataOf<Keyed>>().toEqualTypeOf<'key' | 'title'>();
    expectTypeOf<DataOf<Keyed>['key']>().toEqualTypeOf<string | number>();
  });

  it('has exactly the declared keys (and the id)', () => {
    expectTypeOf<keyof U>().toEqualTypeOf<'id' | 'name' | 'nick' | 'age' | 'score' | 'active' | 'born' | 'seen' | 'extra' | 'loose' | 'tags' | 'roles' | 'upper' | 'parsed'>();
  });

  it('a section 5 array infers too', () => {
    class Post extends Model.define({ fields: ['id', 'title', { name: 'views', type: 'int', allowNull: false }, { name: 'at', type: 'date' }] }) {}
    expectTypeOf<DataOf<Post>>().toEqualTypeOf<{ id: unknown; title: unknown; views: number; at: Date | null }>();
  });

  it('get, set and the constructor use it', () => {
    const user = new User({ name: 'Ed', age: 3 });
    expectTypeOf(user.get('age')).toEqualTypeOf<number>();
    expectTypeOf(user.get('tags')).toEqualTypeOf<string[] | null>();
    user.set('roles', ['admin']);
    // @ts-expect-error: age is a number
    user.set('age', 'three');
    // @ts-expect-error: not a field
    user.get('nmae');
    // @ts-expect-error: not a field
    new User({ nmae: 'Ed' });
    expectTypeOf(user.validate()).toEqualTypeOf<FieldErrorsOf<U>>();
    expectTypeOf(user.isValid()).toEqualTypeOf<boolean>();
  });
});

describe('statics return and take the subclass', () => {
  it('load resolves with the subclass; fromServer makes one', async () => {
    const user = await User.load(1);
    expectTypeOf(user).toEqualTypeOf<User>();
    expectTypeOf(user.greeting()).toEqualTypeOf<string>();
    expectTypeOf(User.fromServer({ id: 1 })).toEqualTypeOf<User>();
  });

  it('a store of the subclass hands out the subclass', () => {
    const users = new Store({ model: User });
    expectTypeOf(users.getAt(0)).toEqualTypeOf<User | undefined>();
  });
});

describe('getProxy has the type of the declared proxy', () => {
  it('a rest config gives a RestProxy (so its url can be set)', () => {
    expectTypeOf(User.getProxy()).toEqualTypeOf<RestProxy>();
    User.getProxy().url = '/api/users';
  });

  it('a memory config gives a MemoryProxy, a proxy instance its own class, none a Proxy', () => {
    class Local extends Model.define({ fields: { name: 'string' }, proxy: { type: 'memory', data: [] } }) {}
    expectTypeOf(Local.getProxy()).toEqualTypeOf<MemoryProxy>();
    class Made extends Model.define({ fields: { name: 'string' }, proxy: new RestProxy({ url: '/made' }) }) {}
    expectTypeOf(Made.getProxy()).toEqualTypeOf<RestProxy>();
    class None extends Model.define({ fields: { name: 'string' } }) {}
    expectTypeOf(None.getProxy()).toEqualTypeOf<Proxy>();
  });

  it('the class syntax: a proxy instance, or a config that satisfies ProxySpec', () => {
    class A extends Model<{ id: number }> {
      static override proxy = new RestProxy({ url: '/a' });
    }
    class B extends Model<{ id: number }> {
      static override proxy = { type: 'rest', url: '/b' } satisfies ProxySpec;
    }
    expectTypeOf(A.getProxy()).toEqualTypeOf<RestProxy>();
    expectTypeOf(B.getProxy()).toEqualTypeOf<RestProxy>();
    expectTypeOf(Model.getProxy()).toEqualTypeOf<Proxy>();
  });
});

describe('validators are typed by field name', () => {
  it('a validator on a name that is no field does not compile', () => {
    Model.define({
      fields: { name: 'string' },
      // @ts-expect-error: "nmae" is not a field
      validators: { nmae: presence() },
    });
    Model.define({ fields: { email: 'string' }, validators: { email: [presence(), email(), length({ max: 80 })] } });
  });
});

describe('fieldsFor', () => {
  interface UserData {
    id: number;
    name: string | null;
    age: number;
  }

  it('returns the fields when they give exactly the type', () => {
    const fields = fieldsFor<UserData>()({ id: { type: 'int', allowNull: false }, name: 'string', age: { type: 'int', allowNull: false } });
    class Checked extends Model.define({ fields }) {}
    expectTypeOf<DataOf<Checked>>().toEqualTypeOf<UserData>();
    const list = fieldsFor<{ title: string | null; views: number }>()([{ name: 'title', type: 'string' }, { name: 'views', type: 'int', allowNull: false }]);
    expectTypeOf(list[0].name).toEqualTypeOf<'title'>();
    // @ts-expect-error: views is not declared
    fieldsFor<{ title: string | null; views: number }>()([{ name: 'title', type: 'string' }]);
  });

  it('does not compile on a name not in the type', () => {
    // @ts-expect-error: "extra" is not in UserData
    fieldsFor<UserData>()({ id: { type: 'int', allowNull: false }, name: 'string', age: { type: 'int', allowNull: false }, extra: 'string' });
  });

  it('does not compile on a key of the type that is not declared', () => {
    // @ts-expect-error: age is not declared
    fieldsFor<UserData>()({ id: { type: 'int', allowNull: false }, name: 'string' });
  });

  it('does not compile when a type differs either way', () => {
    // @ts-expect-error: age may be null (allowNull defaults to true) but the type says number
    fieldsFor<UserData>()({ id: { type: 'int', allowNull: false }, name: 'string', age: 'int' });
    // @ts-expect-error: name is never null here, but the type says it may be
    fieldsFor<UserData>()({ id: { type: 'int', allowNull: false }, name: { type: 'string', allowNull: false }, age: { type: 'int', allowNull: false } });
    // @ts-expect-error: a string field for a number
    fieldsFor<UserData>()({ id: { type: 'int', allowNull: false }, name: 'string', age: { type: 'string', allowNull: false } });
  });
});

describe('store methods and options take the field names', () => {
  const users = new Store({ model: User });

  it('sort, filter and group compile on fields', () => {
    void users.sort('name');
    void users.sort([{ property: 'age', direction: 'DESC' }]);
    void users.filter('age', 30, '>=');
    void users.filter([{ property: 'name', value: 'Ed' }]);
    void users.group('active');
    new Store({ model: User, sorters: [{ property: 'name' }], filters: [{ property: 'age', value: 3 }], groupField: 'active' });
  });

  it('a misspelt name does not compile', () => {
    // @ts-expect-error: no field nmae
    void users.sort('nmae');
    // @ts-expect-error: no field agee
    void users.filter('agee', 30, '>=');
    // @ts-expect-error: no field x
    void users.group('x');
    // @ts-expect-error: no field nmae
    void users.sort([{ property: 'nmae' }]);
    // @ts-expect-error: no field nmae
    new Store({ model: User, sorters: [{ property: 'nmae' }] });
    // @ts-expect-error: no field agee
    new Store({ model: User, filters: [{ property: 'agee', value: 1 }] });
    // @ts-expect-error: no field x
    new Store({ model: User, groupField: 'x' });
  });

  it('sorterFn and filterFn reach anything; a search filter takes any name; an untyped store any name', () => {
    void users.sort([{ property: 'computed', sorterFn: (a, b) => String(a).localeCompare(String(b)) }]);
    void users.filter([{ property: 'anything', filterFn: () => true }]);
    void users.filter('q', 'ed', 'search');
    void new Store().sort('whatever');
  });
});

describe('the class syntax keeps working', () => {
  it('a hand-written data type', () => {
    class Old extends Model<{ id: number; name: string }> {
      static override fields = ['id', 'name'];
      static override validators = { name: presence() };
    }
    expectTypeOf(new Old().get('name')).toEqualTypeOf<string>();
    class Checked extends Model<{ id: number; name: string }> {
      static override fields = ['id', 'name'];
      static override validators = { name: presence() } satisfies ValidatorsOf<{ id: number; name: string }>;
    }
    void Checked;
    // @ts-expect-error: nmae is not a field
    void ({ nmae: presence() } satisfies ValidatorsOf<{ id: number; name: string }>);
    void new Store({ model: Old }).sort('name');
    // @ts-expect-error: no field nmae
    void new Store({ model: Old }).sort('nmae');
  });
});
