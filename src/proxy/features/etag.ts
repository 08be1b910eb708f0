/**
 * Optimistic concurrency: a record's PUT, PATCH and DELETE carry its last ETag as `If-Match`, so
 * that the server refuses the write (412) when someone else changed the record meanwhile.
 */
import { ProxyError } from '../../errors/ProxyError.js';
import { CANNOT_SEND, cannotSend } from '../../errors/messages.js';
import { WRITE_STATE } from '../../operation/protocol.js';
import { isPlainObject } from '../../util/options.js';
import { onlyRecord, type Feature } from './feature.js';

/** Whether the server's current version holds every value that was sent. */
export function echoes(sent: unknown, current: unknown): boolean {
  return isPlainObject(sent) && isPlainObject(current) && Object.entries(sent).every(([key, value]) => JSON.stringify(current[key]) === JSON.stringify(value));
}

export const etags: Feature = {
  beforeSend(request, headers) {
    const method = request.method;
    if (method !== 'PUT' && method !== 'PATCH' && method !== 'DELETE') return;
    const etag = onlyRecord(request.operation.records)?.etag;
    if (etag === undefined || etag === '*') return;
    // Only one strong entity-tag (`"v1"`): a weak one never matches If-Match's strong comparison
    // (every write would be a 412); a list or an unquoted value is not what the server sent for
    // this version, and sending it could match some other.
    if (!/^"[\x21\x23-\x7e\x80-\xff]*"$/.test(etag)) throw new ProxyError('config', cannotSend(`${method} ${request.url ?? ''}`, CANNOT_SEND.etag(etag)), { mayHaveBeenApplied: false });
    headers['if-match'] ??= etag;
  },

  /**
   * A 412 that says only that this record's earlier write, whose answer was lost, was applied
   * (the server's current version is that write), while this request carries newer edits or
   * removes the record: take the 412's ETag and send the request again.
   */
  recover(request, exchange, error) {
    const record = onlyRecord(request.operation.records);
    if (error.status !== 412 || record === undefined || (request.action !== 'update' && request.action !== 'destroy')) return undefined;
    const state = record[WRITE_STATE];
    const etag = exchange.response.headers.get('etag')?.trim();
    if (state.status !== 'saved' || state.unsure === undefined || etag === undefined || !echoes(state.unsure, error.body)) return undefined;
    record.etag = etag;
    return 'again';
  },
};
