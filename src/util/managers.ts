/**
 * Whether the page is shown and whether the network is there, for the freshness triggers
 * (store/freshness.ts) and the outbox. In a browser they follow `visibilitychange` (never the
 * `focus` event, which dialogs and file pickers fire) and the `online`/`offline` events (never
 * `navigator.onLine`, which some browsers get wrong); Node, React Native and tests call the setters.
 * The page's events are listened to only while someone subscribes.
 */
import { describeValue } from './options.js';

export interface FocusManager {
  /** Whether the page is shown (`document.visibilityState` unless set; no document: true). */
  isFocused(): boolean;
  /** Set it (Node, React Native, tests); `undefined` follows the document again. */
  setFocused(value: boolean | undefined): void;
  /** Hear each change (the new value). Returns the function that unsubscribes. */
  subscribe(listener: (focused: boolean) => void): () => void;
}

export interface OnlineManager {
  /** Whether the network is there (true until an `offline` event or `setOnline(false)`). */
  isOnline(): boolean;
  /** Set it (Node, React Native, tests). */
  setOnline(value: boolean): void;
  /** Hear each change (the new value). Returns the function that unsubscribes. */
  subscribe(listener: (online: boolean) => void): () => void;
}

/**
 * A boolean that tells its listeners when it changes: `read` gives it from the page (an event of
 * `events` on `target`, listened to while it has listeners, or none: now). `optional`: the setter
 * overrides the page until given undefined; else it sets the value, which the events move again.
 */
function manager(name: string, optional: boolean, read: (event: Event | undefined, current: boolean) => boolean, target: () => Partial<EventTarget> | undefined, events: string[]) {
  const listeners = new Set<(value: boolean) => void>();
  let set: boolean | undefined;
  let last = read(undefined, true);
  const get = (): boolean => set ?? read(undefined, last);
  const tell = (before: boolean): void => {
    const now = get();
    if (now !== before) for (const listener of [...listeners]) listener(now);
  };
  const changed = (event: Event): void => {
    const before = set ?? last;
    last = read(event, last);
    tell(before);
  };
  const on = (method: 'addEventListener' | 'removeEventListener'): void => {
    const to = target();
    for (const type of events) to?.[method]?.(type, changed);
  };
  return {
    get,
    set(value: boolean | undefined): void {
      if (typeof value !== 'boolean' && !(optional && value === undefined)) throw new TypeError(`${name}: expects a boolean${optional ? ' or undefined' : ''}, got ${describeValue(value)}`);
      const before = get();
      if (optional) set = value;
      else last = value ?? last;
      tell(before);
    },
    subscribe(listener: (value: boolean) => void): () => void {
      if (listeners.size === 0) {
        last = read(undefined, last);
        on('addEventListener');
      }
      listeners.add(listener);
      return () => {
        if (listeners.delete(listener) && listeners.size === 0) on('removeEventListener');
      };
    },
  };
}

// No document (Node, React Native): undefined, though the DOM types say otherwise.
const page = (): Document | undefined => globalThis.document;
const focus = manager('focusManager.setFocused', true, () => page()?.visibilityState !== 'hidden', page, ['visibilitychange']);
// Online until told otherwise: an `offline` event, or setOnline(false).
const network = manager('onlineManager.setOnline', false, (event, current) => (event === undefined ? current : event.type !== 'offline'), () => globalThis, ['online', 'offline']);

/** Whether the page is shown: stores refetch on `refetchOnFocus` when it becomes shown. */
export const focusManager: FocusManager = { isFocused: focus.get, setFocused: focus.set, subscribe: focus.subscribe };

/** Whether the network is there: stores refetch on `refetchOnReconnect`, the outbox replays, when it comes back. */
export const onlineManager: OnlineManager = { isOnline: network.get, setOnline: network.set, subscribe: network.subscribe };
