import { BatchError, Model } from '../../src/index.js';
import { IndexedDBStorage, Outbox, type OutboxSnapshot } from '../../src/offline.js';
import { h } from './dom.js';
import type { Report } from './grid.js';
import { requestLog } from './requestLog.js';
import { Post, User } from './User.js';

/** The switch survives a reload (the test reloads the page while offline). */
const KEY = 'rest-proxy-demo:offline';

function describeSnapshot(snapshot: OutboxSnapshot | undefined): string {
  if (snapshot === undefined) return 'Outbox: not in use (online, nothing kept).';
  const paused = snapshot.paused === false ? '' : `, paused (${snapshot.paused})`;
  return `Outbox: ${snapshot.pending} pending, ${snapshot.sending} sending, ${snapshot.failed} failed${paused}${snapshot.durable ? '' : ', in memory only'}`;
}

/**
 * The Offline switch and the outbox panel. The outbox (rest-proxy/offline over IndexedDB) is
 * attached to User and Post while the page is offline or holds entries; online and empty, it is
 * closed, so that the other switches show the proxy alone (an outbox sends each record on its
 * own and refuses `batchActions`).
 */
export class OfflineControls {
  #outbox: Outbox | undefined;
  /** Its open() resolved (closing it before would wait for it). */
  #opened = false;
  #unsubscribe: (() => void) | undefined;
  readonly #summary: HTMLElement;
  readonly #failed: HTMLUListElement;

  constructor(
    private readonly toggle: HTMLInputElement,
    panel: HTMLElement,
    private readonly report: Report,
    /** The outbox is about to be attached (true; the page turns Batch off first) or was closed (false). */
    private readonly changed: (attached: boolean) => void,
    /** Back online with the outbox empty: the page reloads what it could not read. */
    private readonly online: () => void,
  ) {
    this.#summary = h('p', { id: 'outbox-summary', role: 'status' });
    this.#failed = h('ul', { id: 'outbox-failed', class: 'outbox-failed' });
    panel.replaceChildren(this.#summary, this.#failed);
    toggle.addEventListener('change', () => void this.#switch(toggle.checked));
  }

  get offline(): boolean {
    return requestLog.offline;
  }

  get attached(): boolean {
    return this.#outbox !== undefined;
  }

  /** At page start, before the first load: the switch as it was, and the entries a reload left (their records join the stores on load). */
  async start(): Promise<void> {
    const offline = localStorage.getItem(KEY) === '1';
    this.toggle.checked = offline;
    requestLog.offline = offline;
    await this.#attach();
    await this.#closeIfDone();
    this.#render();
  }

  /**
   * Whether a failed save is kept by the outbox: every record of its failed operations has an
   * entry that is not failed. (A store's sync through the outbox rejects with the operations' own
   * errors, which do not carry `queued`.)
   */
  keeps(error: unknown): boolean {
    const outbox = this.#outbox;
    if (outbox === undefined || !(error instanceof BatchError) || error.errors.length === 0) return false;
    return error.errors.every((failure) => {
      const records = failure.operation?.records ?? [];
      return failure.queued === true || (records.length > 0 && records.every((record) => record instanceof Model && ['queued', 'sending', 'waiting'].includes(outbox.statusOf(record) ?? '')));
    });
  }

  async #switch(offline: boolean): Promise<void> {
    requestLog.offline = offline;
    if (offline) localStorage.setItem(KEY, '1');
    else localStorage.removeItem(KEY);
    if (offline) {
      await this.#attach();
      this.#render();
      return;
    }
    // Back online: send what the outbox holds now, not at its next probe.
    await this.#outbox?.flush();
    await this.#closeIfDone();
    this.#render();
    this.online();
  }

  async #attach(): Promise<void> {
    if (this.#outbox !== undefined) return;
    this.changed(true);
    try {
      const outbox = new Outbox({ name: 'demo', storage: new IndexedDBStorage(), models: [User, Post], fallback: 'memory' });
      this.#outbox = outbox;
      this.#unsubscribe = outbox.subscribe(() => this.#render());
      await outbox.open();
      this.#opened = true;
    } catch (error) {
      this.report('The outbox could not be opened:', error);
      if (this.#outbox === undefined) this.changed(false);
    }
  }

  /** Online with nothing kept: close the outbox (the entries are stored; none are left). */
  async #closeIfDone(): Promise<void> {
    const outbox = this.#outbox;
    if (outbox === undefined || !this.#opened || this.offline) return;
    const { pending, sending, failed } = outbox.getSnapshot();
    if (pending + sending + failed > 0) return;
    this.#unsubscribe?.();
    this.#outbox = undefined;
    this.#opened = false;
    await outbox.close();
    this.changed(false);
  }

  #render(): void {
    const outbox = this.#outbox;
    this.#summary.textContent = describeSnapshot(outbox?.getSnapshot());
    const items = (outbox?.failed ?? []).map((entry) => {
      const what = `${entry.action} of ${entry.record ? `${entry.record.getModelClass().getEntityName()} ${String(entry.record.getId() ?? 'new')}` : 'a record'}`;
      const retry = h('button', { type: 'button', class: 'small', 'aria-label': `Retry the ${what}` }, 'Retry');
      const discard = h('button', { type: 'button', class: 'small', 'aria-label': `Discard the ${what}` }, 'Discard');
      retry.addEventListener('click', () => void entry.retry().catch((error: unknown) => this.report('Could not retry:', error)));
      discard.addEventListener('click', () => {
        entry.discard().then(
          () => this.#closeIfDone().then(() => this.#render()),
          (error: unknown) => this.report('Could not discard:', error),
        );
      });
      return h('li', {}, h('span', {}, `${what}: ${entry.error.message}`), retry, discard);
    });
    this.#failed.replaceChildren(...items);
    if (outbox !== undefined && this.#opened && !this.offline) {
      const { pending, sending, failed } = outbox.getSnapshot();
      if (pending + sending + failed === 0) queueMicrotask(() => void this.#closeIfDone().then(() => this.#render()));
    }
  }
}
