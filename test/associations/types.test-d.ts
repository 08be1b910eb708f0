/** The accessors are typed from the declarations (API.md 9.3). */
import { describe, expectTypeOf, it } from 'vitest';
import { hasMany, Session, type AssociatedStore } from '../../src/associations.js';
import type { Store } from '../../src/index.js';
import { Comment, Post, Profile, User } from './models.js';

describe('Accessor', () => {
  it('types user.posts() as a Store of Post, and the to-one accessors by the target', () => {
    const user = new User();
    expectTypeOf(user.posts()).toEqualTypeOf<AssociatedStore<Post>>();
    expectTypeOf(user.posts()).toMatchTypeOf<Store<Post>>();
    expectTypeOf(user.posts().getAt(0)?.get('title')).toEqualTypeOf<string | null | undefined>();
    const post = new Post();
    expectTypeOf(post.getUser()).toEqualTypeOf<User | undefined>();
    expectTypeOf(post.setUser).parameter(0).toEqualTypeOf<User | null>();
    expectTypeOf(post.loadUser()).toEqualTypeOf<Promise<User | undefined>>();
    expectTypeOf(post.comments()).toEqualTypeOf<AssociatedStore<Comment>>();
    expectTypeOf(user.getProfile()).toEqualTypeOf<Profile | undefined>();
    expectTypeOf(user.session).toEqualTypeOf<Session | undefined>();
  });

  it('a foreignKey that is not a field of the target does not compile', () => {
    // @ts-expect-error: 'userid' is not a field of Post
    hasMany(() => Post, { foreignKey: 'userid' });
    // @ts-expect-error: the user's record is not a Post
    new Post().setUser(new Post());
  });

  it('Model.load and stores take a session', () => {
    expectTypeOf(User.load).toBeCallableWith(1, { session: new Session() });
    expectTypeOf<{ model: typeof User; session: Session }>().toMatchTypeOf<ConstructorParameters<typeof Store<User>>[0]>();
  });
});
