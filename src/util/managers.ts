/**
 * Whether the page is shown and whether the network is there, for the freshness triggers
 * (store/freshness.ts) and the outbox. In a browser they follow `visibilitychange` (never the
 * `focus` event, which dialogs and file pickers fire) and the `online`/`offline` events (never
 * `navigator.onLine`, which some browsers get wrong); Node, React Native and tests call the setters.
 * The page's events are listened to only once someone subscribes.
 */
import { describeValue } from './options.js';

type Listener = (value: boolean) => void;

interface Manager {
  /** Hear each change (the new value). Returns the function that unsubscribes. */
  subscribe(listener: Listener): () => void;
}

/** A boolean that tells its listeners when it changes; `watch` hooks the page's events at the first subscriber. */
function manager(read: () => boolean, watch: (changed: () => void) => () => void): Manager & { changed(): void } {
  const listeners = new Set<Listener>();
  let last = read();
  let unwatch: (() => void) | undefined;
  const changed = (): void => {
    const now = read();
    if (now === last) return;
    last = now;
    for (const listener of [...listeners]) listener(now);
  };
  return {
    changed,
    subscribe(listener) {
      last = read();
      listeners.add(listener);
      unwatch ??= watch(changed);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          unwatch?.();
          unwatch = undefined;
        }
      };
    },
  };
}

function listen(target: unknown, types: string[], handler: (event: unknown) => void): () => void {
  const call = (method: string): void => {
    const fn: unknown = typeof target === 'object' && target !== null ? Reflect.get(target, method) : undefined;
    if (typeof fn === 'function') for (const type of types) fn.call(target, type, handler);
  };
  call('addEventListener');
  return () => call('removeEventListener');
}

function checkBoolean(name: string, value: unknown, orUndefined: boolean): void {
  if (typeof value !== 'boolean' && !(orUndefined && value === undefined)) {
    throw new TypeError(`${name}: expects ${orUndefined ? 'a boolean or undefined' : 'a boolean'}, got ${describeValue(value)}`);
  }
}

let focused: boolean | undefined;
const page = (): unknown => Reflect.get(globalThis, 'document');
const isFocused = (): boolean => focused ?? (typeof page() !== 'object' || Reflect.get(Object(page()), 'visibilityState') !== 'hidden');
const focus = manager(isFocused, (changed) => listen(page(), ['visibilitychange'], changed));

export interface FocusManager extends Manager {
  /** Whether the page is shown (`document.visibilityState` unless set; no document: true). */
  isFocused(): boolean;
  /** Set it (Node, React Native, tests); `undefined` follows the document again. */
  setFocused(value: boolean | undefined): void;
}

/** Whether the page is shown: stores refetch on `refetchOnFocus` when it becomes shown. */
export const focusManager: FocusManager = {
  subscribe: focus.subscribe,
  isFocused,
  setFocused(value) {
    checkBoolean('focusManager.setFocused', value, true);
    focused = value;
    focus.changed();
  },
};

let online = true;
const network = manager(
  () => online,
  (changed) => {
    return listen(globalThis, ['online', 'offline'], (event) => {
      online = Reflect.get(Object(event), 'type') !== 'offline';
      changed();
    });
  },
);

export interface OnlineManager extends Manager {
  /** Whether the network is there (true until an `offline` event or `setOnline(false)`). */
  isOnline(): boolean;
  /** Set it (Node, React Native, tests). */
  setOnline(value: boolean): void;
}

/** Whether the network is there: stores refetch on `refetchOnReconnect`, the outbox replays, when it comes back. */
export const onlineManager: OnlineManager = {
  subscribe: network.subscribe,
  isOnline: () => online,
  setOnline(value) {
    checkBoolean('onlineManager.setOnline', value, false);
    online = value;
    network.changed();
  },
};
