/**
 * The pure pieces of the outbox, tested hard: the entry lifecycle's reducer against random event
 * sequences, coalescing against random write sequences, and the failure table's classification.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../src/index.js';
import { backoff, classify } from '../../src/offline/classify.js';
import { coalesce, type Write } from '../../src/offline/coalesce.js';
import { ENTRY_VERSION, step, type Entry, type EntryEvent, type StoredError } from '../../src/offline/entry.js';

const ERROR: StoredError = { kind: 'http', status: 500, message: 'x' };

function entry(over: Partial<Entry> = {}): Entry {
  return {
    id: 'e', v: ENTRY_VERSION, entity: 'items', clientId: 'items-1', action: 'create', rid: null, values: {}, before: {}, parents: [], refs: {}, key: 'k',
    etag: null, seq: 1, attempts: 0, next: 0, phase: 'queued', sent: false, error: null, at: 0, tab: null, ...over,
  };
}

const event: fc.Arbitrary<EntryEvent> = fc.oneof(
  fc.constant({ type: 'send' } as const),
  fc.constant({ type: 'succeed' } as const),
  fc.record({ type: fc.constant('retry' as const), at: fc.nat(), count: fc.boolean(), max: fc.integer({ min: 1, max: 5 }), error: fc.constant(ERROR) }),
  fc.constant({ type: 'hold' } as const),
  fc.constant({ type: 'wake' } as const),
  fc.constant({ type: 'fail', error: ERROR } as const),
  fc.constant({ type: 'requeue' } as const),
);

describe('the entry lifecycle (step)', () => {
  it('keeps its rules over any sequence of events', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        let state = entry();
        let wasSent = false;
        for (const next of events) {
          const before = state;
          state = step(state, next);
          // done is final; an entry once sent stays sent, and its intent never changes.
          if (before.phase === 'done') expect(state).toBe(before);
          if (wasSent) expect(state.sent).toBe(true);
          wasSent = state.sent;
          expect(state.values).toBe(before.values);
          expect(state.key).toBe(before.key);
          // Only a send starts an attempt, and only from queued; only a sending entry succeeds.
          if (state.phase === 'sending' && before.phase !== 'sending') expect([before.phase, next.type]).toEqual(['queued', 'send']);
          if (state.phase === 'done' && before.phase !== 'done') expect(before.phase).toBe('sending');
          // Attempts are counted by a counted retry only, and never pass the maximum without failing.
          if (state.attempts > before.attempts) expect(next).toMatchObject({ type: 'retry', count: true });
          if (next.type === 'retry' && before.phase === 'sending' && state.attempts >= next.max) expect(state.phase).toBe('failed');
          // A failed entry leaves failed only when requeued, attempts starting over.
          if (before.phase === 'failed' && state.phase !== 'failed') expect([next.type, state.attempts, state.phase]).toEqual(['requeue', 0, 'queued']);
          if (state.phase === 'failed') expect(state.error).not.toBeNull();
        }
      }),
    );
  });
});

const write: fc.Arbitrary<Write> = fc.record({
  type: fc.constantFrom('save' as const, 'destroy' as const),
  phantom: fc.boolean(),
  values: fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.integer()),
  before: fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.integer()),
});

describe('coalescing', () => {
  it('never changes an entry once sent, and keeps one entry not yet sent per record', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(write, fc.boolean()), { maxLength: 20 }), (steps) => {
        let entries: Entry[] = [];
        let n = 0;
        for (const [next, sendNow] of steps) {
          if (next.type === 'save' && entries.at(-1)?.action === 'destroy') continue; // refused by the outbox (a destroyed record)
          const plan = coalesce(entries, next);
          const sent = entries.filter((one) => one.sent);
          if (plan.kind === 'cancel') {
            expect(plan.entries.every((one) => !one.sent)).toBe(true);
            expect(plan.entries[0]?.action).toBe('create');
            entries = entries.filter((one) => !plan.entries.includes(one));
          } else if (plan.kind === 'merge') {
            expect(plan.entry.sent).toBe(false);
            entries = entries.map((one) => (one === plan.entry ? { ...one, action: plan.action, values: plan.values, before: plan.before } : one));
          } else {
            if (plan.drop) expect(plan.drop.phase).toBe('failed');
            entries = entries.filter((one) => one !== plan.drop).concat(entry({ id: `e${++n}`, action: plan.action, values: next.values, before: plan.before }));
          }
          // Every sent entry is still there, unchanged (a create that may have been applied is never cancelled).
          for (const one of sent) expect(entries).toContain(one);
          expect(entries.filter((one) => !one.sent).length).toBeLessThanOrEqual(1);
          if (sendNow && entries.length > 0) entries = entries.map((one, i) => (i === entries.length - 1 ? { ...one, sent: true } : one));
        }
      }),
    );
  });

  it('follows the rules of the contract', () => {
    const create = entry({ id: 'c', action: 'create', values: { a: 1 } });
    const update = entry({ id: 'u', action: 'update', values: { a: 1 }, before: { a: 0 }, etag: '"1"' });
    const save = (values: Record<string, number>, before: Record<string, number> = {}, phantom = false): Write => ({ type: 'save', phantom, values, before });
    const destroy: Write = { type: 'destroy', phantom: false, values: {}, before: {} };
    expect(coalesce([create], save({ a: 2, b: 3 }, {}, true))).toMatchObject({ kind: 'merge', action: 'create', values: { a: 2, b: 3 } });
    expect(coalesce([create], destroy)).toEqual({ kind: 'cancel', entries: [create] });
    expect(coalesce([update], save({ a: 2 }, { a: 1 }))).toMatchObject({ kind: 'merge', action: 'update', values: { a: 2 }, before: { a: 0 } });
    expect(coalesce([update], destroy)).toMatchObject({ kind: 'merge', action: 'destroy' });
    expect(coalesce([{ ...create, sent: true }], destroy)).toMatchObject({ kind: 'add', action: 'destroy' });
    expect(coalesce([{ ...update, sent: true }], save({ a: 3 }))).toMatchObject({ kind: 'add', action: 'update' });
  });
});

describe('the failure table', () => {
  const error = (status: number, kind: ConstructorParameters<typeof ProxyError>[0] = 'http', headers: Record<string, string> = {}) =>
    new ProxyError(kind, 'x', { status, response: status === 0 ? undefined : new Response(null, { status, headers }) });
  it.each([
    [error(0, 'network'), 'create', false, 'offline'],
    [error(0, 'timeout'), 'update', false, 'offline'],
    [error(500), 'create', false, 'retry'],
    [error(408), 'create', false, 'retry'],
    [error(200, 'parse'), 'create', false, 'retry'],
    [error(409, 'conflict'), 'create', true, 'retry'],
    [error(429), 'create', false, 'rate-limit'],
    [error(503, 'http', { 'Retry-After': '5' }), 'update', false, 'rate-limit'],
    [error(503), 'update', false, 'retry'],
    [error(401), 'update', false, 'auth'],
    [error(400), 'create', false, 'fail'],
    [error(403), 'update', false, 'fail'],
    [error(404), 'update', false, 'fail'],
    [error(422, 'validation'), 'create', false, 'fail'],
    [error(0, 'config'), 'create', false, 'fail'],
    [error(409, 'conflict'), 'update', false, 'conflict'],
    [error(412, 'conflict'), 'update', true, 'conflict'],
    [error(404), 'destroy', false, 'done'],
    [error(410), 'destroy', true, 'done'],
  ] as const)('%#: %s to a %s (resent: %s) -> %s', (failure, action, resent, verdict) => {
    expect(classify(failure, action, resent)).toBe(verdict);
  });

  it('backs off near 1 s, doubling, jittered, up to its maximum', () => {
    expect(backoff(1, 300_000, 0.5)).toBe(1000);
    expect(backoff(2, 300_000, 0.5)).toBe(2000);
    expect(backoff(1, 300_000, 0)).toBe(800);
    expect(backoff(30, 300_000, 1)).toBe(300_000);
    expect(backoff(10, 60_000, 0.5)).toBe(60_000);
  });
});
