/**
 * Idempotency keys: every create carries an `Idempotency-Key`, the key of its request (one or
 * several records), sent again with the request until the create succeeds (model/writeState.ts),
 * so that a server can answer a repeated create with its first answer instead of creating twice.
 */
import type { Feature } from './feature.js';

export const idempotencyKeys: Feature = {
  beforeSend(request, headers) {
    const key = request.action === 'create' ? request.operation.sentAs?.key : undefined;
    if (key !== undefined) headers['idempotency-key'] ??= key;
  },
};
