/**
 * Bad declarations (API.md 9.3): an unknown target, a key that is not a field, a wrong or
 * duplicate inverse, an inverse over another key. Targets are lazy, so each throws at the model's
 * first use (a record, a store, an accessor), a TypeError naming both sides, and again at the next use.
 */
import { describe, expect, it } from 'vitest';
import { Model, Store } from '../../src/index.js';
import { belongsTo, hasMany } from '../../src/associations.js';

function base<const F extends Record<string, 'int' | 'string'>>(name: string, fields: F) {
  return Model.define({ entityName: name, fields });
}

describe('declarations are checked at first use', () => {
  it('an unknown target: at the first record, and again at the next use', () => {
    class A extends base('A', { id: 'int' }) {
      static associations = { things: hasMany((() => undefined) as never, { foreignKey: 'aId' as never }) };
    }
    expect(() => new A()).toThrow(/A\.things: unknown target/);
    expect(() => new A()).toThrow(TypeError);
    expect(() => new Store({ model: A })).toThrow(/A\.things: unknown target/);
  });

  it('a key that is not a declared field of the model that holds it', () => {
    class Child extends base('Child', { id: 'int', parentId: 'int' }) {}
    class Parent extends base('Parent', { id: 'int' }) {
      static associations = { children: hasMany(() => Child, { foreignKey: 'parent_id' as 'parentId' }) };
    }
    expect(() => new Parent()).toThrow(/Parent\.children: the foreignKey "parent_id" is not a declared field of Child/);
    class Orphan extends base('Orphan', { id: 'int' }) {
      static associations = { parent: belongsTo(() => Parent, { foreignKey: 'parentId' }) };
    }
    expect(() => new Store({ model: Orphan })).toThrow(/Orphan\.parent: the foreignKey "parentId" is not a declared field of Orphan/);
  });

  it('an inverse that is not declared, or aimed at another model, names both sides', () => {
    class Post extends base('Post', { id: 'int', userId: 'int' }) {
      static associations = { author: belongsTo(() => User, { foreignKey: 'userId' }) };
    }
    class User extends base('User', { id: 'int' }) {
      static associations = { posts: hasMany(() => Post, { foreignKey: 'userId', inverse: 'writer' }) };
    }
    expect(() => new User()).toThrow(/User\.posts: its inverse Post\.writer is not declared/);
    class Admin extends base('Admin', { id: 'int' }) {
      static associations = { posts: hasMany(() => Post, { foreignKey: 'userId', inverse: 'author' }) };
    }
    expect(() => new Admin()).toThrow(/Admin\.posts: its inverse Post\.author is aimed at User, not Admin/);
  });

  it('an inverse over another key names both sides and both keys', () => {
    class Post extends base('Post', { id: 'int', userId: 'int', editorId: 'int' }) {
      static associations = { editor: belongsTo(() => User, { foreignKey: 'editorId', inverse: 'posts' }) };
    }
    class User extends base('User', { id: 'int' }) {
      static associations = { posts: hasMany(() => Post, { foreignKey: 'userId' }) };
    }
    expect(() => new Post()).toThrow(/Post\.editor and its inverse User\.posts are over different keys \(editorId, userId\)/);
    expect(() => new User()).toThrow(/Post\.editor and its inverse User\.posts/);
  });

  it('two associations naming one inverse', () => {
    class Post extends base('Post', { id: 'int', userId: 'int' }) {
      static associations = { user: belongsTo(() => User, { foreignKey: 'userId' }) };
    }
    class User extends base('User', { id: 'int' }) {
      static associations = {
        posts: hasMany(() => Post, { foreignKey: 'userId', inverse: 'user' }),
        drafts: hasMany(() => Post, { foreignKey: 'userId', inverse: 'user' }),
      };
    }
    expect(() => new User()).toThrow(/User\.posts and User\.drafts both name Post\.user as their inverse/);
  });

  it('an inverse that names another association back', () => {
    class Post extends base('Post', { id: 'int', userId: 'int' }) {
      static associations = { user: belongsTo(() => User, { foreignKey: 'userId', inverse: 'drafts' }) };
    }
    class User extends base('User', { id: 'int' }) {
      static associations = {
        posts: hasMany(() => Post, { foreignKey: 'userId', inverse: 'user' }),
        drafts: hasMany(() => Post, { foreignKey: 'userId' }),
      };
    }
    expect(() => new User()).toThrow(/User\.posts names Post\.user as its inverse, but Post\.user names User\.drafts/);
  });

  it('an accessor that would hide a member of the record', () => {
    class Post extends base('Post', { id: 'int', userId: 'int' }) {}
    class User extends base('User', { id: 'int' }) {
      static associations = { save: hasMany(() => Post, { foreignKey: 'userId' }) };
    }
    expect(() => new User()).toThrow(/User\.save: its accessor save would hide a member of the record/);
  });

  it('a good declaration passes, and a model without associations is untouched', () => {
    class Post extends base('Post', { id: 'int', userId: 'int' }) {
      static associations = { user: belongsTo(() => User, { foreignKey: 'userId', inverse: 'posts' }) };
    }
    class User extends base('User', { id: 'int' }) {
      static associations = { posts: hasMany(() => Post, { foreignKey: 'userId', inverse: 'user' }) };
    }
    class Plain extends base('Plain', { id: 'int' }) {}
    expect(new User()).toBeInstanceOf(User);
    expect(new Post()).toBeInstanceOf(Post);
    expect(new Store({ model: Plain }).session).toBeUndefined();
  });
});
