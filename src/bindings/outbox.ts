/**
 * What `useOutbox` of rest-proxy/react and rest-proxy/vue takes: an Outbox, checked by its shape
 * (its methods), so that the bindings import nothing of rest-proxy/offline's code: an app that
 * has no outbox pays nothing for it.
 */
import type { Outbox } from '../offline/outbox.js';
import type { OutboxSnapshot } from '../offline/types.js';
import { describeValue } from '../util/options.js';

export type { OutboxSnapshot };

/** What the bindings read of an Outbox. */
export type OutboxSource = Pick<Outbox, 'subscribe' | 'getSnapshot'>;

export function outboxOf(value: OutboxSource): OutboxSource {
  const is = typeof value === 'object' && value !== null && typeof Reflect.get(value, 'subscribe') === 'function' && typeof Reflect.get(value, 'getSnapshot') === 'function' && typeof Reflect.get(value, 'flush') === 'function';
  if (is) return value;
  throw new TypeError(`useOutbox: expected an Outbox, got ${describeValue(value)}`);
}
