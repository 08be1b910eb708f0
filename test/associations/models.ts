/** Models for the association tests: users, their posts, the posts' comments, and a profile per user. */
import { Model } from '../../src/index.js';
import { belongsTo, hasMany, hasOne, manyToMany, type Accessor } from '../../src/associations.js';

export class User extends Model.define({ entityName: 'User', fields: { id: 'int', name: 'string' }, proxy: { type: 'rest', url: '/users' } }) {
  static associations = {
    posts: hasMany(() => Post, { foreignKey: 'userId', inverse: 'user' }),
    profile: hasOne(() => Profile, { foreignKey: 'userId' }),
  };
  declare posts: Accessor<typeof User.associations.posts>;
  declare getProfile: Accessor<typeof User.associations.profile>;
  declare setProfile: Accessor<typeof User.associations.profile, 'set'>;
  declare loadProfile: Accessor<typeof User.associations.profile, 'load'>;
}

export class Post extends Model.define({ entityName: 'Post', fields: { id: 'int', title: 'string', userId: 'int' }, proxy: { type: 'rest', url: '/posts' } }) {
  static associations = {
    user: belongsTo(() => User, { foreignKey: 'userId', inverse: 'posts' }),
    comments: hasMany(() => Comment, { foreignKey: 'postId', owned: true }),
  };
  declare getUser: Accessor<typeof Post.associations.user>;
  declare setUser: Accessor<typeof Post.associations.user, 'set'>;
  declare loadUser: Accessor<typeof Post.associations.user, 'load'>;
  declare comments: Accessor<typeof Post.associations.comments>;
}

export class Comment extends Model.define({ entityName: 'Comment', fields: { id: 'int', body: 'string', postId: 'int' }, proxy: { type: 'rest', url: '/comments' } }) {}

export class Profile extends Model.define({ entityName: 'Profile', fields: { id: 'int', bio: 'string', userId: 'int' }, proxy: { type: 'rest', url: '/profiles' } }) {}

/** Point the models at a test server. */
export function serve(url: string): void {
  User.setProxy({ type: 'rest', url: `${url}/users` });
  Post.setProxy({ type: 'rest', url: `${url}/posts` });
  Comment.setProxy({ type: 'rest', url: `${url}/comments` });
  Profile.setProxy({ type: 'rest', url: `${url}/profiles` });
}

export class Group extends Model.define({ entityName: 'Group', fields: { id: 'int', title: 'string' }, proxy: { type: 'rest', url: '/groups' } }) {}

export class Membership extends Model.define({ entityName: 'Membership', fields: { id: 'int', memberId: 'int', groupId: 'int' }, proxy: { type: 'rest', url: '/memberships' } }) {}

export class Member extends Model.define({ entityName: 'Member', fields: { id: 'int', name: 'string' }, proxy: { type: 'rest', url: '/members' } }) {
  static associations = { groups: manyToMany(() => Group, { through: () => Membership, foreignKey: 'memberId', otherKey: 'groupId' }) };
  declare groups: Accessor<typeof Member.associations.groups>;
}

/** Point the many-to-many models at a test server. */
export function serveGroups(url: string): void {
  Group.setProxy({ type: 'rest', url: `${url}/groups` });
  Membership.setProxy({ type: 'rest', url: `${url}/memberships` });
  Member.setProxy({ type: 'rest', url: `${url}/members` });
}
