import { Model, type FieldDeclaration } from '../../src/index.js';
// Users have posts: hasMany / belongsTo, and one record per id (the session) for the grid and the panel.
import { belongsTo, hasMany, type Accessor } from '../../src/associations.js';
// Registers the built-in presets (json-server's among them), as an app does with 'rest-proxy/presets'.
import '../../src/presets.js';
import { requestLog } from './requestLog.js';

export interface UserData {
  id: number;
  name: string;
  email: string;
  age: number | null;
  active: boolean;
  created: Date;
}

/**
 * A user of the demo's json-server. The proxy config is all the library needs to map create,
 * read, update and destroy to POST, GET, PUT and DELETE on /api/users; the json-server preset
 * brings that server's paging, sorting and filtering params and its X-Total-Count header.
 */
export class User extends Model<UserData> {
  static override fields: readonly FieldDeclaration[] = [
    { name: 'id', type: 'int' },
    { name: 'name', type: 'string' },
    { name: 'email', type: 'string' },
    { name: 'age', type: 'int' },
    { name: 'active', type: 'boolean', defaultValue: true },
    { name: 'created', type: 'date' },
  ];

  static override proxy = {
    type: 'rest',
    url: '/api/users',
    preset: 'json-server',
    // Only to show every request in the page's log: a fetch that records what it sends, and
    // the hook that tells a retry from a first try.
    fetch: requestLog.fetch,
    onRequest: requestLog.onRequest,
  };

  // `owned`: a post removed from `user.posts()` is destroyed by that store's next sync.
  static associations = { posts: hasMany(() => Post, { foreignKey: 'userId', inverse: 'user', owned: true }) };
  declare posts: Accessor<typeof User.associations.posts>;
}

/**
 * A user's post. `user.posts().load()` fills `{userId}` in the url: GET /api/users/7/posts,
 * json-server's nested route; a new post is POSTed there, once its user has an id; PUT and
 * DELETE go to /api/posts/{id}.
 */
export class Post extends Model.define({
  entityName: 'Post',
  fields: { id: 'int', userId: 'int', title: 'string' },
  proxy: {
    type: 'rest',
    url: '/api/users/{userId}/posts',
    // A post by id is json-server's /api/posts/7: no userId needed (a post the outbox restored after a reload may know only its id).
    api: { update: '/api/posts', destroy: '/api/posts' },
    preset: 'json-server',
    fetch: requestLog.fetch,
    onRequest: requestLog.onRequest,
  },
}) {
  static associations = { user: belongsTo(() => User, { foreignKey: 'userId', inverse: 'posts' }) };
  declare getUser: Accessor<typeof Post.associations.user>;
}
