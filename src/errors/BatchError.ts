import type { Batch } from '../operation/Batch.js';
import type { ProxyError } from './ProxyError.js';

/**
 * A sync or batch in which at least one operation failed. What succeeded is committed; the
 * records of the failed operations, and of those not sent (`batch.unsent`: the batch stopped),
 * are still new, dirty or removed, ready for the next sync.
 */
export class BatchError extends Error {
  override name = 'BatchError';
  /** Tells a BatchError from a ProxyError where either may come (a store's `exception` event, its snapshot's `error`). */
  readonly kind = 'batch';
  declare readonly batch: Batch;
  /** The error of each failed operation, in run order. */
  declare readonly errors: ProxyError[];
  /** Through an outbox (rest-proxy/offline): true when every failed operation is kept, to be sent again (each error's `queued`). */
  declare readonly queued?: boolean;

  constructor(batch: Batch, errors: ProxyError[]) {
    const failed = errors.length;
    const total = batch.operations.length;
    const first = errors.slice(0, 3).map((error) => error.message).join('; ');
    const more = failed > 3 ? `; and ${failed - 3} more` : '';
    const unsent = batch.unsent.length;
    super(`${failed} of ${total} operation${total === 1 ? '' : 's'} failed${unsent > 0 ? `; ${unsent} not sent` : ''}: ${first}${more}`);
    this.batch = batch;
    this.errors = errors;
  }
}

/** @internal A BatchError of writes through an outbox: `queued` when every failed operation is kept. */
export function queuedBatch(error: BatchError): BatchError {
  if (error.errors.some((one) => one.queued !== undefined)) Object.defineProperty(error, 'queued', { value: error.errors.every((one) => one.queued === true), enumerable: true });
  return error;
}
