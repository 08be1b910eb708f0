/**
 * The validate hook of the core: a model's validators read once, a record checked against them,
 * and what save() and sync() do with a record that fails. The rules themselves (presence(),
 * length(), ...) are in validators.ts, which an app that uses none never bundles.
 */
import { ProxyError, type FieldErrors } from '../errors/ProxyError.js';
import { Operation } from '../operation/Operation.js';
import type { Action, RecordLike } from '../operation/types.js';
import { describeValue, isPlainObject } from '../util/options.js';
import { touch, type Internals } from './internal.js';
import { entityNameOf, infoOf, recordInfo, type ModelStatics } from './modelInfo.js';
import { isField, readField, type ValueHolder } from './values.js';
import { metaOf } from './internal.js';
import { dev } from '../util/dev.js';

/** A rule for one field: the messages of what fails (none when the value passes). Made by presence(), length(), ... custom(). */
export type Validator = (value: unknown, record: RecordLike) => readonly string[];

/** A model's validators: one or several per field, checked in the order given. */
export type Validators = { readonly [field: string]: Validator | readonly Validator[] };

/**
 * Validators typed by a model's fields: a name that is not a field does not compile.
 * @example static override validators = { name: presence() } satisfies ValidatorsOf<UserData>;
 */
export type ValidatorsOf<D> = { readonly [K in keyof D & string]?: Validator | readonly Validator[] };

/** The errors of a valid record (and of one never checked). */
export const NO_ERRORS: FieldErrors = Object.freeze(Object.create(null));
const rulesByModel = new WeakMap<object, [string, readonly Validator[]][]>();

/** A model's validators, checked the first time they are used (a TypeError names what is wrong). */
export function rulesOf(model: ModelStatics & { readonly validators?: unknown }): [string, readonly Validator[]][] {
  let rules = rulesByModel.get(model);
  if (rules !== undefined) return rules;
  rules = [];
  const given = model.validators;
  const where = `${entityNameOf(model)}.validators`;
  if (given !== undefined) {
    if (!isPlainObject(given)) throw new TypeError(`${where} must be an object, got ${describeValue(given)}`);
    const info = infoOf(model);
    for (const [field, value] of Object.entries(given)) {
      const list: unknown[] = Array.isArray(value) ? value : [value];
      if (field === '__proto__' || !isField(info, field)) throw new TypeError(`${where}: "${field}" is no declared field`);
      if (!list.every((rule): rule is Validator => typeof rule === 'function')) throw new TypeError(`${where} "${field}": expected validators${dev(' such as presence()')}, got ${describeValue(value)}`);
      rules.push([field, list]);
    }
  }
  rulesByModel.set(model, rules);
  return rules;
}

/** The failing fields of a record and their messages (frozen; empty when it is valid). */
export function validateRecord(record: ValueHolder): FieldErrors {
  const rules = rulesOf(recordInfo(record).model);
  if (rules.length === 0) return NO_ERRORS;
  const errors: FieldErrors = {};
  for (const [field, list] of rules) {
    const value = readField(record, field);
    const messages = list.flatMap((rule) => rule(value, record));
    // Each field once (the rules are by field): an own key, also for one named `constructor`.
    if (messages.length > 0) errors[field] = messages;
    Object.freeze(messages);
  }
  return Object.freeze(errors);
}

/**
 * Check a record before its create or update is sent: when it fails, its errors are put on
 * `record.errors` and the failure is returned (a ProxyError of kind 'validation' that sent nothing).
 */
export function invalidError(record: ValueHolder & Internals, action: Action): ProxyError | undefined {
  const errors = validateRecord(record);
  if (errors === NO_ERRORS) return undefined; // no rules: nothing to list (a sync checks every record)
  const fields = Object.entries(errors);
  if (fields.length === 0) return undefined;
  metaOf(record).errors = errors;
  touch(record);
  const name = record.phantom ? record.clientId : `${entityNameOf(recordInfo(record).model)} ${String(record.getId())}`;
  const said = fields.flatMap(([field, messages]) => messages.map((message) => `${field} ${message}`)).join(', ');
  const operation = new Operation({ action, records: [record] });
  const error = new ProxyError('validation', `${name} not saved: ${said}`, { fieldErrors: errors, mayHaveBeenApplied: false });
  operation.setException(error);
  return error;
}

/**
 * A sync's hook: take the invalid records out of `create` and `update` (in place; a removed
 * record's create, which only confirms it before its destroy, is not checked) and return their
 * failed operations, for the sync's Batch. Nothing is sent for them; they stay pending.
 */
export function holdInvalid<M extends ValueHolder & Internals>(create: M[], update: M[], removed: ReadonlySet<M>): Operation[] {
  const failed: Operation[] = [];
  for (const [list, action] of [[create, 'create'], [update, 'update']] as const) {
    let kept = 0;
    for (const record of list) {
      const error = removed.has(record) ? undefined : invalidError(record, action);
      if (error?.operation !== undefined) failed.push(error.operation);
      else list[kept++] = record;
    }
    list.length = kept;
  }
  return failed;
}
