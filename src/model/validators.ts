/**
 * The validators a model can declare (`validators: { name: presence(), email: email() }`). Each
 * is a separate export, so that an app bundles only the ones it uses. Bad options are a
 * TypeError when the validator is made (that is, when the model is defined).
 */
import type { RecordLike } from '../operation/types.js';
import { describeValue } from '../util/options.js';
import type { Validator } from './validate.js';

/** A message that replaces a rule's own: a string, or made from the value and the rule's options. */
export type ValidatorMessage<O> = string | ((value: unknown, options: O) => string);

export interface PresenceOptions {
  /** Let an empty (or white space) text pass; `null`, `undefined` and `[]` still fail. Default false. */
  allowEmpty?: boolean;
  message?: ValidatorMessage<PresenceOptions>;
}
export interface LengthOptions {
  /** The fewest code points (or array items). */
  min?: number;
  /** The most code points (or array items). */
  max?: number;
  message?: ValidatorMessage<LengthOptions>;
}
export interface RangeOptions {
  /** The smallest number or Date allowed. */
  min?: number | Date;
  /** The largest number or Date allowed. */
  max?: number | Date;
  message?: ValidatorMessage<RangeOptions>;
}
export interface FormatOptions {
  /** The pattern a text must match (no `g` or `y` flag: they make `test` stateful). */
  matcher: RegExp;
  message?: ValidatorMessage<FormatOptions>;
}
export interface ListOptions {
  /** The values (compared by SameValueZero, as `Array.prototype.includes` does). */
  list: readonly unknown[];
  message?: ValidatorMessage<ListOptions>;
}
export interface MessageOptions {
  message?: ValidatorMessage<MessageOptions>;
}

const plural = (count: number, unit: string): string => `${count} ${unit}${count === 1 ? '' : 's'}`;
const shown = (bound: number | Date): string => (bound instanceof Date ? bound.toISOString() : String(bound));

/** The default messages (Rails' wording), in one place. */
const MESSAGES = {
  required: 'is required',
  short: (min: number, unit: string) => `is too short (minimum is ${plural(min, unit)})`,
  long: (max: number, unit: string) => `is too long (maximum is ${plural(max, unit)})`,
  notNumber: 'is not a number',
  low: (min: number | Date) => `must be greater than or equal to ${shown(min)}`,
  high: (max: number | Date) => `must be less than or equal to ${shown(max)}`,
  invalid: 'is invalid',
  email: 'is not a valid e-mail address',
  included: 'is not included in the list',
  excluded: 'is reserved',
};

const PASS: readonly string[] = Object.freeze([]);

/**
 * A rule from a test that returns the failure's default message (undefined: passes). `undefined`,
 * `null` and `''` pass, unless `always`.
 */
function rule<O extends { message?: ValidatorMessage<O> }>(name: string, options: O, test: (value: unknown) => string | undefined, always = false): Validator {
  const message: unknown = options.message;
  if (message !== undefined && typeof message !== 'string' && typeof message !== 'function') throw new TypeError(`${name}: message must be a string or a function, got ${describeValue(message)}`);
  return named(name, (value) => {
    if (!always && (value === undefined || value === null || value === '')) return PASS;
    const failed = test(value);
    return failed === undefined ? PASS : [options.message === undefined ? failed : typeof options.message === 'string' ? options.message : options.message(value, options)];
  });
}

/**
 * The rule as it is checked: one that throws (a custom() reading a property of null, a message
 * function) fails its field with a message naming it, and never stops the other records of a
 * sync from being checked and sent.
 */
function named(name: string, validator: Validator): Validator {
  return (value, record) => {
    try {
      return validator(value, record);
    } catch (error) {
      return [`is invalid (${name} threw: ${error instanceof Error ? error.message : String(error)})`];
    }
  };
}

function bounds(name: string, options: { min?: unknown; max?: unknown }, valid: (bound: unknown) => boolean, expect: string): void {
  for (const key of ['min', 'max'] as const) {
    if (options[key] !== undefined && !valid(options[key])) throw new TypeError(`${name}: ${key} must be ${expect}, got ${describeValue(options[key])}`);
  }
  if (options.min === undefined && options.max === undefined) throw new TypeError(`${name}: give min, max or both`);
  if (options.min !== undefined && options.max !== undefined && Number(options.min) > Number(options.max)) throw new TypeError(`${name}: min (${describeValue(options.min)}) is greater than max (${describeValue(options.max)})`);
}

/** Fails `undefined`, `null`, `''`, text of only white space and an empty array: "is required". */
export function presence(options: PresenceOptions = {}): Validator {
  return rule('presence', options, (value) => ((typeof value === 'string' ? value.trim() === '' && !options.allowEmpty : Array.isArray(value) && value.length === 0) || value === undefined || value === null ? MESSAGES.required : undefined), true);
}

/** A text's length in code points (an emoji is one), or an array's number of items. */
export function length(options: LengthOptions): Validator {
  bounds('length', options, (bound) => Number.isSafeInteger(bound) && Number(bound) >= 0, 'a non-negative integer');
  return rule('length', options, (value) => {
    const count = Array.isArray(value) ? value.length : [...String(value)].length;
    const unit = Array.isArray(value) ? 'item' : 'character';
    if (options.min !== undefined && count < options.min) return MESSAGES.short(options.min, unit);
    return options.max !== undefined && count > options.max ? MESSAGES.long(options.max, unit) : undefined;
  });
}

/** A number or a Date between min and max (both included); NaN and other values fail: "is not a number". */
export function range(options: RangeOptions): Validator {
  bounds('range', options, (bound) => (typeof bound === 'number' && !Number.isNaN(bound)) || (bound instanceof Date && !Number.isNaN(bound.getTime())), 'a number or a valid Date');
  return rule('range', options, (value) => {
    const number = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : NaN;
    if (Number.isNaN(number)) return MESSAGES.notNumber;
    if (options.min !== undefined && number < Number(options.min)) return MESSAGES.low(options.min);
    return options.max !== undefined && number > Number(options.max) ? MESSAGES.high(options.max) : undefined;
  });
}

/** A text that matches `matcher`: "is invalid". */
export function format(options: FormatOptions): Validator {
  const { matcher } = options;
  if (!(matcher instanceof RegExp)) throw new TypeError(`format: matcher must be a RegExp, got ${describeValue(matcher)}`);
  if (matcher.global || matcher.sticky) throw new TypeError(`format: the matcher ${String(matcher)} has the g or y flag, which makes test() remember where it stopped; drop the flag`);
  return rule('format', options, (value) => (typeof value === 'string' && matcher.test(value) ? undefined : MESSAGES.invalid));
}

/** The HTML standard's "valid e-mail address" (what `<input type="email">` accepts). */
const EMAIL = /^[\w.!#$%&'*+/=?^`{|}~-]+@[a-z\d](?:[a-z\d-]{0,61}[a-z\d])?(?:\.[a-z\d](?:[a-z\d-]{0,61}[a-z\d])?)*$/i;

/** An e-mail address by the WHATWG grammar: "is not a valid e-mail address". */
export function email(options: MessageOptions = {}): Validator {
  return rule('email', options, (value) => (typeof value === 'string' && EMAIL.test(value) ? undefined : MESSAGES.email));
}

function checkList(name: string, list: unknown): void {
  if (!Array.isArray(list) || list.length === 0) throw new TypeError(`${name}: list must be a non-empty array, got ${describeValue(list)}`);
}

/** One of `list`: "is not included in the list". */
export function inclusion(options: ListOptions): Validator {
  checkList('inclusion', options.list);
  return rule('inclusion', options, (value) => (options.list.includes(value) ? undefined : MESSAGES.included));
}

/** None of `list`: "is reserved". */
export function exclusion(options: ListOptions): Validator {
  checkList('exclusion', options.list);
  return rule('exclusion', options, (value) => (options.list.includes(value) ? MESSAGES.excluded : undefined));
}

/**
 * Your own rule, for rules across fields: `check` returns true (passes), a message or messages
 * (fails). Always called, also for an empty value. `message` replaces what it returns.
 * @example custom((value, record) => value === record.get('password') || 'does not match')
 */
export function custom(check: (value: unknown, record: RecordLike) => boolean | string | readonly string[], options: MessageOptions = {}): Validator {
  if (typeof check !== 'function') throw new TypeError(`custom: expected a function (value, record) => true | message, got ${describeValue(check)}`);
  const made = rule('custom', options, () => MESSAGES.invalid, true);
  return named('custom', (value, record) => {
    const result = check(value, record);
    if (result === true || (Array.isArray(result) && result.length === 0)) return PASS;
    const messages = typeof result === 'string' ? [result] : Array.isArray(result) && result.every((m) => typeof m === 'string') ? [...result] : made(value, record);
    return options.message === undefined ? messages : made(value, record);
  });
}
