/**
 * A small typed event emitter. Each class declares its events as a map from event name to
 * payload type; `on` returns the function that removes the listener again.
 */
export type Listener<Payload> = (payload: Payload) => unknown;

/**
 * Call a listener and return what it returns. One that throws does not stop the others: its
 * error is rethrown asynchronously, so it is reported, not swallowed.
 */
export function callSafely<Payload>(listener: Listener<Payload>, payload: Payload): unknown {
  try {
    return listener(payload);
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
    return undefined;
  }
}

export class Observable<Events extends object> {
  #listeners: { [Name in keyof Events]?: Array<Listener<Events[Name]>> } = {};

  /** Listen to an event. Returns a function that unsubscribes the listener. */
  on<Name extends keyof Events>(name: Name, listener: Listener<Events[Name]>): () => void {
    const list = (this.#listeners[name] ??= []);
    list.push(listener);
    return () => {
      const index = list.indexOf(listener);
      if (index !== -1) list.splice(index, 1);
    };
  }

  /** Drop every listener. */
  protected dropListeners(): void {
    this.#listeners = {};
  }

  /** True when at least one listener waits for the event (lets hot paths skip building payloads). */
  protected hasListeners(name: keyof Events): boolean {
    const list = this.#listeners[name];
    return list !== undefined && list.length > 0;
  }

  /**
   * Call every listener of the event in order. Returns false when a listener returned false,
   * which is how `before*` events are cancelled. A listener that throws does not stop the others
   * (see callSafely).
   */
  protected fire<Name extends keyof Events>(name: Name, payload: Events[Name]): boolean {
    let proceed = true;
    for (const listener of [...(this.#listeners[name] ?? [])]) if (callSafely(listener, payload) === false) proceed = false;
    return proceed;
  }
}
