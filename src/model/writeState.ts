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
 * Its request (records, body, idempotency key) is kept until the create succeeds, and is what
 * any later send of the record sends, so no retry can create it twice.
 */

import type { RecordLike } from '../operation/types.js';

/** Field values as a write sent them. */
export type Values = Readonly<Record<string, unknown>>;

/** Per field, what an update whose answer was lost may have set: `[confirmed, sent]`. */
export type Unsure = Readonly<Record<string, readonly [unknown, unknown]>>;

/**
 * The request a create was sent in. Until the create is confirmed it is sent again as it was, by
 * whoever sends it next: the same records in the same order (a server's replayed answer is
 * matched to them by position), the same body (a server may refuse a key reused with another),
 * the same Idempotency-Key.
 */
export interface CreateRequest {
  readonly key: string;
  readonly records: readonly RecordLike[];
  /** The body as first written and the writer's data for each record; set once, when first written. */
  body?: { readonly data: unknown; readonly written: (Record<string, unknown> | undefined)[] };
}

export type WriteState =
  /** Not on the server: never sent, or nothing sent can have been applied. `key`: that of its last create, sent alone, that failed. */
  | { readonly status: 'new'; readonly key: string | undefined }
  /**
   * A create is in flight, in `request`. `sent`: the record's values now; `applied`: those of the
   * earlier try that may have been applied (the request is then re-sent with them, and the
   * server's replay answers for them).
   */
  | { readonly status: 'creating'; readonly request: CreateRequest; readonly sent: Values; readonly applied: Values | undefined }
  /** A create was sent in `request` and may have been applied; not confirmed. */
  | { readonly status: 'unconfirmed'; readonly request: CreateRequest; readonly applied: Values }
  /**
   * On the server. `unsure`: the body of the last update whose answer was lost; `sent`: the fields
   * such updates may have set, until a write succeeds or a read shows them applied. `gone`: a
   * destroy of it may have been applied (its DELETE then goes alone, where a 404 says it is gone).
   */
  | { readonly status: 'saved'; readonly unsure: unknown; readonly sent?: Unsure; readonly gone?: boolean | undefined }
  /** Destroyed on the server (or dropped while new). */
  | { readonly status: 'erased' };

export type WriteEvent =
  /** A create is sent in `request` (an update or a destroy changes nothing until it ends). */
  | { readonly type: 'send'; readonly values: Values; readonly request: CreateRequest }
  /** The write was applied and its answer taken (or a read showed a lost update applied). */
  | { readonly type: 'succeed' }
  /** The write failed; `applied`: whether it may still have reached the server. `body`: what it sent. `destroy`: it was a destroy. */
  | { readonly type: 'fail'; readonly applied: 'no' | 'maybe'; readonly body?: unknown; readonly sent?: Unsure; readonly destroy?: boolean }
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
      if (state.status === 'new') return { status: 'creating', request: event.request, sent: event.values, applied: undefined };
      // Its create belongs to the request it was first sent in.
      if (state.status === 'unconfirmed') return { ...state, status: 'creating', sent: event.values };
      return state;
    case 'succeed':
      return state.status === 'creating' || (state.status === 'saved' && (state.unsure !== undefined || state.sent !== undefined || state.gone)) ? SAVED : state;
    case 'fail':
      if (state.status === 'creating') {
        const applied = event.applied === 'maybe' ? (state.applied ?? state.sent) : state.applied;
        if (applied !== undefined) return { status: 'unconfirmed', request: state.request, applied };
        // Nothing was applied: a record sent alone keeps its key (a server may have kept the refusal under it otherwise).
        return state.request.records.length === 1 ? { status: 'new', key: state.request.key } : NEW;
      }
      if (state.status === 'saved' && event.applied === 'maybe') {
        return event.destroy ? { ...state, gone: true } : { ...state, unsure: event.body, sent: event.sent };
      }
      return state;
  }
}

/** Not on the server yet, as far as the record knows (`phantom`). */
export function isPhantom(state: WriteState): boolean {
  return state.status !== 'saved' && state.status !== 'erased';
}

/** A create of the record was sent and may exist on the server: it must be confirmed before it can be dropped. */
export function mayExist(state: WriteState): boolean {
  return 'request' in state && state.applied !== undefined;
}

/** A destroy of the record may have been applied: its DELETE goes alone, where a 404 says it is gone. */
export function mayBeGone(state: WriteState): boolean {
  return state.status === 'saved' && state.gone === true;
}

/** The request the record's create was sent in, while it is in flight or unconfirmed. */
export function requestOf(state: WriteState): CreateRequest | undefined {
  return 'request' in state ? state.request : undefined;
}
