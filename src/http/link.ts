/**
 * The layers' own AbortController: an AbortSignal costs Node microseconds to make (more than the
 * rest of a 304's work in the layers), so the layers link these, and only fetch gets a real
 * signal (`signal()`), made when it is called (fetching, send.ts).
 */
export class Link {
  aborted = false;
  reason: unknown;
  #listeners = new Set<() => void>();

  /** Abort once: every listener hears it, once. */
  abort(reason: unknown): void {
    if (!this.aborted) {
      this.aborted = true;
      this.reason = reason;
      this.#listeners.forEach((listener) => listener());
    }
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners.add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners.delete(listener);
  }

  /** A real AbortSignal that follows this link (what fetch needs). */
  signal(): AbortSignal {
    const controller = new AbortController();
    this.#listeners.add(() => controller.abort(this.reason));
    return controller.signal;
  }
}

/** What a layer hears an abort from: the caller's AbortSignal, or a Link of an outer layer. */
export type Abortable = AbortSignal | Link;
