/**
 * What Store and ChainedStore share: the records shown, read the same way (API.md sections 6
 * and 12). A subclass says which records it shows; the reads here are one line each.
 */
import type { Model } from '../model/Model.js';
import { Observable } from '../util/events.js';

/** @internal The records shown, in order (the store's own array: copy before keeping it). */
export const SHOWN: unique symbol = Symbol('rest-proxy.shown');

export abstract class StoreBase<M extends Model, Events extends object> extends Observable<Events> implements Iterable<M> {
  /** @internal */
  abstract [SHOWN](): M[];

  /** The number of records shown (local filters applied). */
  getCount(): number {
    return this[SHOWN]().length;
  }

  /** The record shown at an index. */
  getAt(index: number): M | undefined {
    return this[SHOWN]()[index];
  }

  /** Where a record is shown, else -1. */
  indexOf(record: M): number {
    return this[SHOWN]().indexOf(record);
  }

  /** The records shown from `start` to `end`, both included (all by default). */
  getRange(start = 0, end?: number): M[] {
    const list = this[SHOWN]();
    const to = end === undefined ? list.length : end + 1;
    // The whole list spread, not sliced: the view's array may be frozen (a snapshot holds it), and V8 slices those slowly.
    return start === 0 && to >= list.length ? [...list] : list.slice(start, to);
  }

  [Symbol.iterator](): Iterator<M> {
    return this[SHOWN]()[Symbol.iterator]();
  }
}
