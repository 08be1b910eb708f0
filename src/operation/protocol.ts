/**
 * The write protocol between records and proxies. A proxy tells a record that a write is sent,
 * succeeded or failed; the record keeps its own lifecycle (see model/writeState.ts). The members
 * are keyed by these symbols, which the package root does not export: they are not part of the
 * Model a user sees.
 */
import { dev } from '../util/dev.js';

/** The record's write state (a `WriteState`). */
export const WRITE_STATE: unique symbol = Symbol(dev('rest-proxy.writeState'));
/** `(action, request?) => snapshot`: a write (a create: in `request`) is about to be sent; returns what the record looks like now. */
export const SEND: unique symbol = Symbol(dev('rest-proxy.send'));
/** `(snapshot, item, assignedId, written)`: the write was applied; take the server's answer. */
export const SUCCEED: unique symbol = Symbol(dev('rest-proxy.succeed'));
/** `(applied, body?, fieldErrors?)`: the write failed; `applied`: whether it may have reached the server. */
export const FAIL: unique symbol = Symbol(dev('rest-proxy.fail'));
/** `()`: the record is gone from the server. */
export const ERASE: unique symbol = Symbol(dev('rest-proxy.erase'));
/** `(name) => unknown`: a field's value to write: undefined when it was given none, a date still held as the canonical ISO string it is written as, else its value as `get` reads it. */
export const STORED: unique symbol = Symbol(dev('rest-proxy.stored'));
/**
 * `(data, dataOf) => data`: the body of the record's create or update, with the records its write
 * carries (nested write, through `extensions.nestedWrite` of model/extensions.ts); `dataOf` writes
 * another record as the writer does.
 */
export const CARRY: unique symbol = Symbol(dev('rest-proxy.carry'));
