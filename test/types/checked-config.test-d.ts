/**
 * The typed surface a user's editor and compiler see (issue "Works in a production build"): a
 * proxy config checked with `satisfies ProxySpec`, fields with `satisfies FieldsOf<D>`, preset
 * names as a union, errors narrowed by `kind`, and `record.errors` keyed by field.
 */
import { describe, expectTypeOf, it } from 'vitest';
import {
  BatchError,
  Model,
  ProxyError,
  RestProxy,
  Store,
  type FieldsOf,
  type PresetName,
  type ProxyErrorKind,
  type ProxySpec,
  type RecordSnapshot,
} from '../../src/index.js';

interface UserData {
  id: number;
  name: string;
  age: number | null;
}

describe('static proxy and static fields, checked with satisfies', () => {
  it('a correct config compiles; a misspelt option, a wrong preset or a wrong type does not', () => {
    class User extends Model<UserData> {
      static override fields = ['id', 'name', { name: 'age', type: 'int' }] satisfies FieldsOf<UserData>;
      static override proxy = { type: 'rest', url: '/users', preset: 'django-rest', trailingSlash: true } satisfies ProxySpec;
    }
    expectTypeOf(User.proxy).toMatchTypeOf<ProxySpec>();

    // @ts-expect-error -- trailingSlahs is not an option
    void ({ type: 'rest', url: '/users', trailingSlahs: true } satisfies ProxySpec);
    // @ts-expect-error -- 'django_rest' is not a preset
    void ({ type: 'rest', url: '/users', preset: 'django_rest' } satisfies ProxySpec);
    // @ts-expect-error -- appendId is a boolean
    void ({ type: 'rest', url: '/users', appendId: 'yes' } satisfies ProxySpec);
    // @ts-expect-error -- the memory proxy has no url
    void ({ type: 'memory', url: '/users' } satisfies ProxySpec);
    // @ts-expect-error -- 'nmae' is no field of UserData
    void (['id', 'nmae'] satisfies FieldsOf<UserData>);
    // @ts-expect-error -- a field config names a field too
    void ([{ name: 'agee', type: 'int' }] satisfies FieldsOf<UserData>);
  });

  it('preset is a union of the preset names (the built-in ones, and those an app declares)', () => {
    for (const name of ['json-server', 'django-rest', 'rails', 'laravel', 'spring-data-rest', 'json-api'] as const) expectTypeOf(name).toMatchTypeOf<PresetName>();
    expectTypeOf<string>().not.toMatchTypeOf<PresetName>();
    // @ts-expect-error -- not a preset
    void new RestProxy({ url: '/users', preset: 'nope' });
  });
});

describe('errors narrowed by kind', () => {
  it("a store's exception error is a BatchError when its kind is 'batch', else a ProxyError", () => {
    const store = new Store();
    store.on('exception', ({ error }) => {
      if (error.kind === 'batch') {
        expectTypeOf(error).toEqualTypeOf<BatchError>();
        expectTypeOf(error.errors).toEqualTypeOf<ProxyError[]>();
      } else {
        expectTypeOf(error).toEqualTypeOf<ProxyError>();
        expectTypeOf(error.kind).toEqualTypeOf<ProxyErrorKind>();
      }
    });
    expectTypeOf(store.getSnapshot().error).toEqualTypeOf<ProxyError | BatchError | undefined>();
  });
});

describe('record.errors and snapshots are typed by the model', () => {
  it('errors are keyed by the field names (and any other key a server uses)', () => {
    class User extends Model<UserData> {}
    const user = new User();
    expectTypeOf(user.errors.name).toEqualTypeOf<readonly string[] | undefined>();
    expectTypeOf(user.errors['non_field_errors']).toEqualTypeOf<readonly string[] | undefined>();
    const snapshot = user.getSnapshot();
    expectTypeOf(snapshot).toEqualTypeOf<RecordSnapshot<User>>();
    expectTypeOf(snapshot.get('name')).toEqualTypeOf<string>();
    expectTypeOf(snapshot.getId()).toEqualTypeOf<number | undefined>();
    // @ts-expect-error -- no such field
    snapshot.get('nme');
  });
});
