import { h } from './dom.js';
import type { LogEntry, RequestLog } from './requestLog.js';

const MAX_SHOWN = 150;

function statusText(entry: LogEntry): string {
  if (entry.failure !== undefined) return entry.failure;
  if (entry.status === 0) return '…';
  return `${entry.status}${entry.statusText ? ` ${entry.statusText}` : ''}`;
}

function statusClass(entry: LogEntry): string {
  if (entry.failure !== undefined) return 'status bad';
  if (entry.status === 0) return 'status pending';
  return entry.status < 400 ? 'status ok' : 'status bad';
}

/** The request log beside the grid: newest first, verb, url, status, time, body size and retries. */
export class LogPanel {
  #items = new Map<LogEntry, HTMLLIElement>();

  constructor(
    private readonly list: HTMLOListElement,
    clearButton: HTMLButtonElement,
    private readonly log: RequestLog,
  ) {
    log.subscribe((entry) => this.#show(entry));
    clearButton.addEventListener('click', () => {
      this.log.clear();
      this.#items.clear();
      this.list.replaceChildren();
    });
  }

  #show(entry: LogEntry): void {
    const item = h(
      'li',
      { class: 'entry', 'data-method': entry.method, 'data-status': entry.failure ?? String(entry.status), 'data-attempt': entry.attempt },
      h('span', { class: `verb verb-${entry.method.toLowerCase()}` }, entry.method),
      h('code', { class: 'url' }, entry.url),
      h(
        'span',
        { class: 'meta' },
        h('span', { class: statusClass(entry) }, statusText(entry)),
        entry.ms === undefined ? '' : h('span', { class: 'ms' }, `${entry.ms} ms`),
        entry.body === undefined ? '' : h('span', { class: 'body' }, `body: ${entry.body}`),
        entry.attempt > 1 ? h('span', { class: 'retry' }, `retry ${entry.attempt - 1}`) : '',
      ),
    );
    const shown = this.#items.get(entry);
    if (shown !== undefined) {
      shown.replaceWith(item);
    } else {
      this.list.prepend(item);
      const oldest = [...this.#items.keys()].slice(0, Math.max(0, this.#items.size + 1 - MAX_SHOWN));
      for (const old of oldest) {
        this.#items.get(old)?.remove();
        this.#items.delete(old);
      }
    }
    this.#items.set(entry, item);
  }
}
