/**
 * The outbox's pause (API.md 10): why it holds every entry (no connection, told to wait, or
 * credentials to renew) and the one timer that probes (offline) or ends it (rate limit).
 */
import type { ProxyError } from '../errors/ProxyError.js';
import { backoff, retryAfter } from './classify.js';
import type { PauseReason } from './types.js';

const OFFLINE_MAX = 60_000;

export interface PauseHost {
  paused(reason: PauseReason): void;
  resumed(): void;
  /** While offline: send the head entry now, as the probe. */
  probe(): void;
}

export class Pause {
  reason: false | PauseReason = false;
  /** A probe is due (while offline, the head entry goes when nothing is in flight). */
  probeNow = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #probes = 0;

  constructor(private readonly host: PauseHost) {}

  start(reason: PauseReason, error: ProxyError): void {
    if (this.reason !== reason) {
      this.reason = reason;
      this.stop();
      this.host.paused(reason);
    }
    // Writes failing together wait for the one timer already set (a probe's failure sets the next).
    if (reason === 'auth' || this.#timer !== undefined) return;
    const delay = reason === 'rate-limit' ? (retryAfter(error, Date.now()) ?? backoff(++this.#probes, OFFLINE_MAX)) : backoff(++this.#probes, OFFLINE_MAX);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (reason === 'offline') this.host.probe();
      else this.end();
    }, delay);
  }

  /** Back to sending (resumed, when it was paused). */
  end(): void {
    this.stop();
    this.#probes = 0;
    if (this.reason === false) return;
    this.reason = false;
    this.host.resumed();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
