/**
 * Idempotency keys: every create carries an `Idempotency-Key`, the same for every try and every
 * later sync of the record until the create succeeds (a batched create: the key of its batch), so
 * that a server can answer a repeated create with its first answer instead of creating twice.
 */
import { batchOf } from '../../model/writeState.js';
import { WRITE_STATE } from '../../operation/protocol.js';
import type { Feature } from './feature.js';

export const idempotencyKeys: Feature = {
  beforeSend(request, headers) {
    if (request.action !== 'create') return;
    const records = request.operation.records;
    const first = records[0];
    if (first === undefined) return;
    const state = first[WRITE_STATE];
    const key = records.length === 1 ? ('key' in state ? state.key : undefined) : batchOf(state);
    if (key !== undefined) headers['idempotency-key'] ??= key;
  },
};
