/**
 * A record's write lifecycle: where it stands with the server, as one union that only `reduce`
 * changes. One word per idea:
 *
 *     new ──send──> creating ──succeed──> saved ──erase──> erased
 *      ^               │  fail('no', nothing earlier may be applied)
 *      └───────────────┤
 *                      └─fail('maybe')──> unconfirmed ──send──> creating
 *
 * "Unconfirmed" is the one name for a create that may exist on the server without the record
 * knowing its id: no answer, a 5xx, or a 2xx that could not be taken (no id, a hook that threw).
 * Its idempotency key is kept until the create succeeds, so no retry can create it twice.
 */

/** Field values as a write sent them. */
export type Values = Readonly<Record<string, unknown>>;

export type WriteState =
  /** Not on the server: never sent, or nothing sent can have been applied. `key`: a key minted by an earlier try, kept. */
  | { readonly status: 'new'; readonly key: string | undefined }
  /**
   * A create is in flight. `sent`: the values of this try; `applied`: those of an earlier try that
   * may have been applied (the server's replay then answers for them); `batch`: the key of the
   * batched create the record was first sent in.
   */
  | { readonly status: 'creating'; readonly key: string; readonly sent: Values; readonly applied: Values | undefined; readonly batch: string | undefined }
  /** A create was sent and may have been applied; not confirmed. */
  | { readonly status: 'unconfirmed'; readonly key: string; readonly applied: Values; readonly batch: string | undefined }
  /** On the server. `unsure`: the body of the last update or destroy whose answer was lost. */
  | { readonly status: 'saved'; readonly unsure: unknown }
  /** Destroyed on the server (or dropped while new). */
  | { readonly status: 'erased' };

export type WriteEvent =
  /** A create is sent with these values (an update or a destroy changes nothing until it ends). */
  | { readonly type: 'send'; readonly values: Values; readonly key: string; readonly batch: string | undefined }
  /** The write was applied and its answer taken. */
  | { readonly type: 'succeed' }
  /** The write failed; `applied`: whether it may still have reached the server. `body`: what it sent. */
  | { readonly type: 'fail'; readonly applied: 'no' | 'maybe'; readonly body?: unknown }
  /** The record is gone from the server. */
  | { readonly type: 'erase' };

export const NEW: WriteState = Object.freeze({ status: 'new', key: undefined });
export const SAVED: WriteState = Object.freeze({ status: 'saved', unsure: undefined });
export const ERASED: WriteState = Object.freeze({ status: 'erased' });

/** The next state. Returns `state` itself when nothing changes. */
export function reduce(state: WriteState, event: WriteEvent): WriteState {
  switch (event.type) {
    case 'erase':
      return ERASED;
    case 'send':
      if (state.status === 'new') return { status: 'creating', key: state.key ?? event.key, sent: event.values, applied: undefined, batch: event.batch };
      if (state.status === 'unconfirmed') return { status: 'creating', key: state.key, sent: event.values, applied: state.applied, batch: state.batch ?? event.batch };
      return state;
    case 'succeed':
      return state.status === 'creating' || (state.status === 'saved' && state.unsure !== undefined) ? SAVED : state;
    case 'fail':
      if (state.status === 'creating') {
        const applied = event.applied === 'maybe' ? (state.applied ?? state.sent) : state.applied;
        return applied === undefined ? { status: 'new', key: state.key } : { status: 'unconfirmed', key: state.key, applied, batch: state.batch };
      }
      if (state.status === 'saved' && event.applied === 'maybe') return { status: 'saved', unsure: event.body };
      return state;
  }
}

/** Not on the server yet, as far as the record knows (`phantom`). */
export function isPhantom(state: WriteState): boolean {
  return state.status === 'new' || state.status === 'creating' || state.status === 'unconfirmed';
}

/** A create of the record was sent and may exist on the server: it must be confirmed before it can be dropped. */
export function mayExist(state: WriteState): boolean {
  return state.status === 'unconfirmed' || (state.status === 'creating' && state.applied !== undefined);
}

/** The key of the batched create the record was sent in, while it may be re-sent. */
export function batchOf(state: WriteState): string | undefined {
  return state.status === 'creating' || state.status === 'unconfirmed' ? state.batch : undefined;
}
