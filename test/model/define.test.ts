/**
 * Model.define at run time (API.md 9.1): the class it returns works as a section 5 class (fields,
 * proxy, idProperty, entityName, subclasses), its fields are checked when it is called, and
 * `auto()` and `fieldsFor()` are plain values at run time. The types are in
 * test/types/define.test-d.ts.
 */
import { describe, expect, it } from 'vitest';
import { auto, fieldsFor, MemoryProxy, Model, RestProxy } from '../../src/index.js';

describe('Model.define', () => {
  it('makes a class to extend whose fields convert as declared', () => {
    class User extends Model.define({
      fields: { name: 'string', age: { type: 'int', allowNull: false }, born: 'date', tags: auto<string[]>({ defaultValue: [] }) },
    }) {}
    const user = new User({ name: 'Ed', age: '42' as unknown as number, born: '2000-01-02T00:00:00.000Z' as unknown as Date });
    expect(user.get('age')).toBe(42);
    expect(user.get('born')).toEqual(new Date('2000-01-02T00:00:00.000Z'));
    expect(user.get('tags')).toEqual([]);
    user.set('age', null);
    expect(user.get('age')).toBe(0); // allowNull: false
    expect(User.getFields().map((field) => [field.name, field.type])).toEqual([['name', 'string'], ['age', 'int'], ['born', 'date'], ['tags', 'auto']]);
    expect(user).toBeInstanceOf(Model);
  });

  it('takes a section 5 array of fields, and the other statics', async () => {
    class Item extends Model.define({
      entityName: 'Item',
      idProperty: 'key',
      clientIdProperty: 'cid',
      fields: ['key', { name: 'title', type: 'string' }],
      proxy: { type: 'memory', data: [{ key: 'a', title: 'A' }] },
    }) {}
    expect(Item.idProperty).toBe('key');
    expect(Item.clientIdProperty).toBe('cid');
    expect(Item.getEntityName()).toBe('Item');
    expect(Item.getProxy()).toBeInstanceOf(MemoryProxy);
    expect(new Item().clientId).toMatch(/^Item-\d+$/);
    const item = await Item.load('a');
    expect(item).toBeInstanceOf(Item);
    expect(item.get('title')).toBe('A');
  });

  it('gives each subclass its own proxy, and lets a subclass add fields', () => {
    const Base = Model.define({ fields: { name: 'string' }, proxy: { type: 'rest', url: 'http://api.test/people' } });
    class Person extends Base {}
    class Admin extends Person {
      static override fields = [{ name: 'level', type: 'int' }];
    }
    expect(Person.getProxy()).toBeInstanceOf(RestProxy);
    Person.getProxy().url = 'http://api.test/persons';
    expect(Person.getProxy().url).toBe('http://api.test/persons');
    expect(Admin.getFields().map((field) => field.name)).toEqual(['name', 'level']);
    expect(() => new Person({ level: 1 } as never)).toThrow(/unknown field "level"/);
  });

  it('an undeclared id is taken by the constructor and set() (its type says string | number)', () => {
    class Tag extends Model.define({ fields: { label: 'string' } }) {}
    const tag = new Tag({ id: 'a', label: 'A' });
    expect(tag.getId()).toBe('a');
    expect(tag.phantom).toBe(false);
    tag.set({ id: 7 });
    expect(tag.getId()).toBe(7);
    expect(() => new Tag({ ids: 1 } as never)).toThrow(/unknown field "ids"/);
  });

  it('checks the fields now, with section 5\'s TypeErrors', () => {
    expect(() => Model.define({ fields: { age: 'integer' as 'int' } })).toThrow(/fields "age": type must be one of auto, string, int, number, boolean, date, got "integer"/);
    expect(() => Model.define({ fields: { age: { type: 'int', allowNul: false } as { type: 'int' } } })).toThrow(/fields "age": unknown field option "allowNul"/);
    expect(() => Model.define({ fields: { age: 5 as unknown as 'int' } })).toThrow(/fields "age": type must be one of/);
    expect(() => Model.define({ fields: 'name' as unknown as [] })).toThrow(/fields must be an array/);
  });

  it('refuses an unknown option and what is not an options object', () => {
    expect(() => Model.define({ fields: {}, validator: {} } as never)).toThrow(/Model.define: unknown option "validator"/);
    expect(() => Model.define(undefined as never)).toThrow(/Model.define: expected \{ fields/);
  });

  it('auto() is a plain auto field config; fieldsFor() returns the fields unchanged', () => {
    expect(auto<string[]>({ allowNull: false })).toEqual({ allowNull: false, type: 'auto' });
    const fields = { name: 'string' } as const;
    expect(fieldsFor<{ name: string | null }>()(fields)).toBe(fields);
  });
});
