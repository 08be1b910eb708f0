import { expectTypeOf, test } from 'vitest';
import { Model, Store } from '../src/index.js';
class User extends Model<{ id: number; name: string; email: string }> {
  static override fields = ['id', 'name', { name: 'email', type: 'string' }];
  static override proxy = { type: 'rest', url: 'http://x/users' };
}
test('types', async () => {
  const u = new User({ name: 'Ed' });
  expectTypeOf(u.get('name')).toEqualTypeOf<string>();
  // @ts-expect-error unknown field
  u.set('nope', 1);
  // @ts-expect-error wrong type
  u.set('name', 5);
  expectTypeOf(User.load(1)).toEqualTypeOf<Promise<User>>();
  const s = new Store({ model: User });
  expectTypeOf(s.getAt(0)).toEqualTypeOf<User | undefined>();
});
