/**
 * The validators (API.md 9.2) at their edges: empty values, emoji, NaN, Dates, `g`/`y` regexps,
 * messages (Rails' wording, overridable), several rules on one field, bad configuration as a
 * TypeError when the model is defined (or when `static validators` is first used).
 */
import { describe, expect, it } from 'vitest';
import { custom, email, exclusion, format, inclusion, length, Model, presence, range, type Validator } from '../../src/index.js';

/** The messages of one rule for a value (the record is a plain record: no rule here reads it). */
function check(rule: Validator, value: unknown): readonly string[] {
  return rule(value, new Model());
}

describe('presence', () => {
  it('fails undefined, null, empty text, white space and an empty array: "is required"', () => {
    for (const value of [undefined, null, '', '  \n\t', []]) expect(check(presence(), value), String(value)).toEqual(['is required']);
  });

  it('passes anything else, 0 and false included', () => {
    for (const value of ['a', 0, false, [0], {}, new Date(0), NaN]) expect(check(presence(), value)).toEqual([]);
  });

  it('allowEmpty lets empty text pass, not null nor undefined', () => {
    expect(check(presence({ allowEmpty: true }), '')).toEqual([]);
    expect(check(presence({ allowEmpty: true }), null)).toEqual(['is required']);
    expect(check(presence({ allowEmpty: true }), undefined)).toEqual(['is required']);
  });
});

describe('length', () => {
  it('counts code points: an emoji is one character', () => {
    const rule = length({ min: 2, max: 3 });
    expect(check(rule, '👍👍👍')).toEqual([]); // 6 UTF-16 units
    expect(check(rule, '👍')).toEqual(['is too short (minimum is 2 characters)']);
    expect(check(rule, '👍👍👍👍')).toEqual(['is too long (maximum is 3 characters)']);
  });

  it('counts the items of an array, and says so', () => {
    expect(check(length({ max: 1 }), ['a', 'b'])).toEqual(['is too long (maximum is 1 item)']);
    expect(check(length({ min: 1 }), [])).toEqual(['is too short (minimum is 1 item)']);
  });

  it('passes undefined, null and empty text (presence refuses them)', () => {
    for (const value of [undefined, null, '']) expect(check(length({ min: 3 }), value)).toEqual([]);
  });

  it('refuses min > max, a negative or fractional bound, and no bound at all', () => {
    expect(() => length({ min: 5, max: 3 })).toThrow(/length: min \(5\) is greater than max \(3\)/);
    expect(() => length({ min: -1 })).toThrow(/length: min must be a non-negative integer, got -1/);
    expect(() => length({ max: 1.5 })).toThrow(TypeError);
    expect(() => length({})).toThrow(/length: give min, max or both/);
  });
});

describe('range', () => {
  it('compares numbers, both bounds included', () => {
    const rule = range({ min: 0, max: 10 });
    expect(check(rule, 0)).toEqual([]);
    expect(check(rule, 10)).toEqual([]);
    expect(check(rule, -1)).toEqual(['must be greater than or equal to 0']);
    expect(check(rule, 11)).toEqual(['must be less than or equal to 10']);
  });

  it('fails NaN, and what is not a number: "is not a number"', () => {
    expect(check(range({ min: 0 }), NaN)).toEqual(['is not a number']);
    expect(check(range({ min: 0 }), '5')).toEqual(['is not a number']);
    expect(check(range({ min: 0 }), new Date(NaN))).toEqual(['is not a number']);
  });

  it('compares Dates by time', () => {
    const rule = range({ min: new Date('2020-01-01T00:00:00Z') });
    expect(check(rule, new Date('2020-01-01T00:00:00Z'))).toEqual([]);
    expect(check(rule, new Date('2019-12-31T23:59:59Z'))).toEqual(['must be greater than or equal to 2020-01-01T00:00:00.000Z']);
  });

  it('refuses min > max, NaN and invalid Dates as bounds', () => {
    expect(() => range({ min: 2, max: 1 })).toThrow(/range: min \(2\) is greater than max \(1\)/);
    expect(() => range({ min: NaN })).toThrow(/range: min must be a number or a valid Date/);
    expect(() => range({ max: new Date('nope') })).toThrow(TypeError);
    expect(() => range({ min: new Date(2000, 1), max: new Date(1999, 1) })).toThrow(/greater than max/);
  });
});

describe('format', () => {
  it('fails text that does not match: "is invalid"', () => {
    const rule = format({ matcher: /^[a-z]+$/ });
    expect(check(rule, 'abc')).toEqual([]);
    expect(check(rule, 'ab1')).toEqual(['is invalid']);
    expect(check(rule, 5)).toEqual(['is invalid']);
  });

  it('refuses a matcher with the g or y flag (test() would remember where it stopped)', () => {
    expect(() => format({ matcher: /a/g })).toThrow(/format: the matcher \/a\/g has the g or y flag/);
    expect(() => format({ matcher: /a/y })).toThrow(TypeError);
    expect(() => format({ matcher: 'a' as unknown as RegExp })).toThrow(/matcher must be a RegExp/);
  });
});

describe('email', () => {
  it('follows the WHATWG valid e-mail address grammar', () => {
    for (const ok of ['ed@example.com', 'a.b+c@x', "o'neil!#$%&*/=?^_`{|}~-@sub.example.org", 'x@a-b.c']) expect(check(email(), ok), ok).toEqual([]);
    for (const bad of ['ed', 'ed@', '@x.com', 'ed@-x.com', 'ed@x-.com', 'ed@x..com', 'é@x.com', 'ed@x.com ', 'a b@x.com', 'ed@exämple.com', `ed@${'a'.repeat(64)}.com`]) {
      expect(check(email(), bad), bad).toEqual(['is not a valid e-mail address']);
    }
  });
});

describe('inclusion and exclusion', () => {
  it('compare by SameValueZero: NaN is in [NaN], 0 in [-0]', () => {
    expect(check(inclusion({ list: ['a', NaN, -0] }), NaN)).toEqual([]);
    expect(check(inclusion({ list: ['a', NaN, -0] }), 0)).toEqual([]);
    expect(check(inclusion({ list: ['a'] }), 'b')).toEqual(['is not included in the list']);
    expect(check(exclusion({ list: ['admin'] }), 'admin')).toEqual(['is reserved']);
    expect(check(exclusion({ list: ['admin'] }), 'ed')).toEqual([]);
  });

  it('refuse an empty or missing list', () => {
    expect(() => inclusion({ list: [] })).toThrow(/inclusion: list must be a non-empty array/);
    expect(() => exclusion({ list: undefined as unknown as unknown[] })).toThrow(TypeError);
  });
});

describe('custom', () => {
  it('is always called, also for an empty value; true passes, a message or messages fail', () => {
    const seen: unknown[] = [];
    const rule = custom((value) => {
      seen.push(value);
      return value === 'ok' || ['is wrong', 'is bad'];
    });
    expect(check(rule, undefined)).toEqual(['is wrong', 'is bad']);
    expect(check(rule, 'ok')).toEqual([]);
    expect(seen).toEqual([undefined, 'ok']);
    expect(check(custom(() => 'no'), 1)).toEqual(['no']);
    expect(check(custom(() => false), 1)).toEqual(['is invalid']);
  });

  it('sees the record, for rules across fields', () => {
    class Account extends Model.define({
      fields: { password: 'string', confirm: 'string' },
      validators: { confirm: custom((value, record) => value === record.get('password') || 'does not match the password') },
    }) {}
    expect(new Account({ password: 'a', confirm: 'b' }).validate()).toEqual({ confirm: ['does not match the password'] });
    expect(new Account({ password: 'a', confirm: 'a' }).isValid()).toBe(true);
  });

  it('refuses what is not a function', () => {
    expect(() => custom('x' as unknown as () => true)).toThrow(/custom: expected a function/);
  });
});

describe('messages', () => {
  it('a message option replaces the rule\'s own: a string, or a function of the value and the options', () => {
    expect(check(presence({ message: 'cannot be empty' }), '')).toEqual(['cannot be empty']);
    expect(check(length({ max: 2, message: (value, options) => `${String(value)} has more than ${String(options.max)}` }), 'abc')).toEqual(['abc has more than 2']);
    expect(check(custom(() => ['a', 'b'], { message: 'one message' }), 1)).toEqual(['one message']);
    expect(() => presence({ message: 5 as unknown as string })).toThrow(/presence: message must be a string or a function, got 5/);
  });
});

describe('validate() and isValid()', () => {
  class User extends Model.define({
    fields: { name: 'string', email: 'string', age: 'int' },
    validators: { name: [presence(), length({ min: 3 })], email: email(), age: range({ min: 0 }) },
  }) {}

  it('returns the failing fields only, every message in the order declared, frozen', () => {
    const user = new User({ name: 'Ed', email: 'nope', age: 30 });
    const errors = user.validate();
    expect(errors).toEqual({ name: ['is too short (minimum is 3 characters)'], email: ['is not a valid e-mail address'] });
    expect(Object.isFrozen(errors)).toBe(true);
    expect(Object.isFrozen(errors.name)).toBe(true);
    expect(user.isValid()).toBe(false);
    expect(new User({ name: 'Edward' }).validate()).toEqual({});
    expect(new User({ name: 'Edward' }).isValid()).toBe(true);
  });

  it('gives a field failing several rules every message', () => {
    class Tag extends Model.define({ fields: { code: 'string' }, validators: { code: [length({ min: 3 }), format({ matcher: /^[A-Z]+$/ }), exclusion({ list: ['ab'] })] } }) {}
    expect(new Tag({ code: 'ab' }).validate()).toEqual({ code: ['is too short (minimum is 3 characters)', 'is invalid', 'is reserved'] });
  });

  it('changes nothing: not the errors, not dirty', () => {
    const user = new User({ name: '' });
    user.validate();
    expect(user.errors).toEqual({});
    expect(user.dirty).toBe(true);
  });

  it('fields named like Object.prototype members are own keys of the errors', () => {
    class Odd extends Model.define({ fields: { constructor: 'string', toString: 'string', hasOwnProperty: 'string' }, validators: { constructor: presence(), toString: [presence(), presence()], hasOwnProperty: presence() } }) {}
    const errors = new Odd({ constructor: '', toString: ' ', hasOwnProperty: '' }).validate();
    expect(Object.keys(errors)).toEqual(['constructor', 'toString', 'hasOwnProperty']);
    expect(errors.toString).toEqual(['is required', 'is required']);
    expect(Object.hasOwn(errors, 'constructor')).toBe(true);
  });

  it('a model without validators is always valid', () => {
    expect(new Model({ anything: 1 }).isValid()).toBe(true);
  });
});

describe('bad configuration is a TypeError when the model is defined', () => {
  it('a validator on an undeclared field', () => {
    expect(() => Model.define({ fields: { name: 'string' }, validators: { nmae: presence() } as never })).toThrow(/validators: "nmae" is no declared field/);
  });

  it('something that is not a validator', () => {
    expect(() => Model.define({ fields: { name: 'string' }, validators: { name: 'presence' as unknown as Validator } })).toThrow(/validators "name": expected validators such as presence\(\), got "presence"/);
  });

  it('the class syntax: at the first use of static validators', () => {
    class Old extends Model<{ id: number; name: string }> {
      static override fields = ['id', 'name'];
      static override validators = { nmae: presence() };
    }
    const old = new Old({ name: 'x' });
    expect(() => old.validate()).toThrow(/validators: "nmae" is no declared field/);
  });

  it('a validator on the id is allowed, also when the id is not declared', () => {
    class Item extends Model.define({ fields: { name: 'string' }, validators: { id: presence() } }) {}
    expect(new Item().validate()).toEqual({ id: ['is required'] });
  });
});
