import type { Store } from '../../src/index.js';
import { h } from './dom.js';
import { isAbort } from './messages.js';
import type { Report } from './grid.js';
import type { User } from './User.js';

/** First, previous, "Page n of m", next, last, and the total count the server reported. */
export class Pager {
  readonly #first = h('button', { type: 'button', 'aria-label': 'First page' }, '« First');
  readonly #previous = h('button', { type: 'button', 'aria-label': 'Previous page' }, '‹ Previous');
  readonly #next = h('button', { type: 'button', 'aria-label': 'Next page' }, 'Next ›');
  readonly #last = h('button', { type: 'button', 'aria-label': 'Last page' }, 'Last »');
  readonly #info = h('span', { class: 'page-info', 'aria-live': 'polite' });
  readonly #total = h('span', { class: 'total' });

  constructor(
    nav: HTMLElement,
    private readonly store: Store<User>,
    private readonly report: Report,
  ) {
    nav.replaceChildren(this.#first, this.#previous, this.#info, this.#next, this.#last, this.#total);
    this.#first.addEventListener('click', () => this.#go(1));
    this.#previous.addEventListener('click', () => this.#go(this.store.currentPage - 1));
    this.#next.addEventListener('click', () => this.#go(this.store.currentPage + 1));
    this.#last.addEventListener('click', () => this.#go(this.pageCount()));
    this.update();
  }

  pageCount(): number {
    return Math.max(1, Math.ceil(this.store.getTotalCount() / this.store.pageSize));
  }

  update(): void {
    const page = this.store.currentPage;
    const count = this.pageCount();
    const total = this.store.getTotalCount();
    this.#info.textContent = `Page ${page} of ${count}`;
    this.#total.textContent = `${total} user${total === 1 ? '' : 's'}`;
    this.#first.disabled = this.#previous.disabled = page <= 1;
    this.#next.disabled = this.#last.disabled = page >= count;
  }

  #go(page: number): void {
    const target = Math.min(Math.max(1, page), this.pageCount());
    this.store.loadPage(target).catch((error: unknown) => {
      if (!isAbort(error)) this.report(`Could not load page ${target}:`, error);
    });
  }
}
