/**
 * The write lifecycle's reducer (src/model/writeState.ts), against random sequences of events: a
 * create that may have been applied keeps the request it was first sent in (its records, body
 * and key) and the values that request carried, whatever is sent or fails after, until it
 * succeeds or the record is erased.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Item } from '../resilience/helpers.js';
import { NEW, reduce, requestOf, SAVED, type CreateRequest, type WriteEvent, type WriteState } from '../../src/model/writeState.js';

// Requests of one record and of two (the records themselves play no part in the reducer).
const requests: CreateRequest[] = [
  { key: 'k1', records: [new Item()] },
  { key: 'k2', records: [new Item(), new Item()] },
  { key: 'k3', records: [new Item()] },
];

const event: fc.Arbitrary<WriteEvent> = fc.oneof(
  fc.record({ type: fc.constant('send' as const), values: fc.record({ name: fc.string({ maxLength: 2 }) }), request: fc.constantFrom(...requests) }),
  fc.constant({ type: 'succeed' as const }),
  fc.record({ type: fc.constant('fail' as const), applied: fc.constantFrom('no' as const, 'maybe' as const) }),
  fc.constant({ type: 'erase' as const }),
);

describe('reduce', () => {
  it('a create that may have been applied keeps its first request and values until it succeeds or is erased', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        let state: WriteState = NEW;
        let pinned: { request: CreateRequest; applied: unknown } | undefined;
        for (const next of events) {
          const before = state;
          state = reduce(state, next);
          if (pinned !== undefined) {
            if (state.status === 'saved' || state.status === 'erased') pinned = undefined;
            else {
              expect(requestOf(state)).toBe(pinned.request);
              expect(state.status === 'creating' || state.status === 'unconfirmed' ? state.applied : undefined).toBe(pinned.applied);
            }
          } else if (state.status === 'unconfirmed') {
            pinned = { request: state.request, applied: state.applied };
            // The values of the try that may have been applied: the ones sent in that request.
            expect(before.status === 'creating' ? (before.applied ?? before.sent) : undefined).toBe(state.applied);
          }
          // A try that certainly failed leaves a new record that keeps its request's key when it was sent alone.
          if (before.status === 'creating' && state.status === 'new') expect(state.key).toBe(before.request.records.length === 1 ? before.request.key : undefined);
        }
      }),
    );
  });

  it('a new record sent takes the request it is sent in; an unconfirmed one stays in its own', () => {
    const [first, other] = requests;
    if (first === undefined || other === undefined) throw new Error('requests');
    const creating = reduce(NEW, { type: 'send', values: { name: 'a' }, request: first });
    const unconfirmed = reduce(creating, { type: 'fail', applied: 'maybe' });
    expect(unconfirmed).toEqual({ status: 'unconfirmed', request: first, applied: { name: 'a' } });
    expect(reduce(unconfirmed, { type: 'send', values: { name: 'b' }, request: other })).toEqual({ status: 'creating', request: first, sent: { name: 'b' }, applied: { name: 'a' } });
    expect(reduce(creating, { type: 'fail', applied: 'no' })).toEqual({ status: 'new', key: 'k1' });
    expect(reduce(reduce(NEW, { type: 'send', values: {}, request: other }), { type: 'fail', applied: 'no' })).toEqual(NEW);
  });

  it('a saved record notes what an update that may have been applied sent, until a write succeeds', () => {
    const sent = { name: ['a', 'b'] as const };
    const unsure = reduce(SAVED, { type: 'fail', applied: 'maybe', body: { name: 'b' }, sent });
    expect(unsure).toEqual({ status: 'saved', unsure: { name: 'b' }, sent });
    expect(reduce(unsure, { type: 'fail', applied: 'no' })).toBe(unsure);
    expect(reduce(unsure, { type: 'succeed' })).toBe(SAVED);
    expect(reduce(SAVED, { type: 'succeed' })).toBe(SAVED);
  });

  it('a destroy that may have been applied marks the record gone until a write of it succeeds; a failed update keeps the mark and its own body', () => {
    const gone = reduce(SAVED, { type: 'fail', applied: 'maybe', destroy: true });
    expect(gone).toEqual({ status: 'saved', unsure: undefined, gone: true });
    expect(reduce(SAVED, { type: 'fail', applied: 'maybe', body: { name: 'a' } })).toEqual({ status: 'saved', unsure: { name: 'a' }, gone: undefined });
    expect(reduce(SAVED, { type: 'fail', applied: 'no', destroy: true })).toBe(SAVED);
    expect(reduce(gone, { type: 'fail', applied: 'no', destroy: true })).toBe(gone);
    expect(reduce(gone, { type: 'fail', applied: 'maybe', body: { name: 'a' } })).toEqual({ status: 'saved', unsure: { name: 'a' }, gone: true });
    expect(reduce(gone, { type: 'succeed' })).toBe(SAVED);
  });
});
