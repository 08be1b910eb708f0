/** Why an outbox cannot take or keep a write. */
export type OutboxErrorKind =
  | 'unavailable' // the storage cannot be opened (private mode, a SecurityError, a lock held by a live process)
  | 'full' // past maxEntries or maxBytes
  | 'quota'; // the storage refused the write (QuotaExceededError, ENOSPC)

/** A write the outbox refused, or storage it could not open. Nothing was sent, and the record keeps its edits. */
export class OutboxError extends Error {
  override readonly name = 'OutboxError';

  constructor(
    readonly kind: OutboxErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
