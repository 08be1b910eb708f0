import type { Store } from '../../src/index.js';
import type { User } from './User.js';

/**
 * Reads that stay fresh (API.md section 13, docs/reads.md): the mark over the grid says whether
 * the page shown is fresh, stale (older than `staleTime`, or not loaded), or being revalidated
 * with the server (`isStale`, `isFetching`); a spinner only when there is nothing to show (`loading`).
 */
export const STALE_TIME = 30_000;

/** The mark: its text, `data-state` (`empty`, `loading`, `fetching`, `stale`, `fresh`) and the table's `is-stale` class. */
export function mountFreshness(element: HTMLElement, table: HTMLElement, store: Store<User>): () => void {
  return store.subscribe(({ isStale, isFetching, loading, fetchedAt }) => {
    const state = loading ? 'loading' : fetchedAt === null ? 'empty' : isFetching ? 'fetching' : isStale ? 'stale' : 'fresh';
    const shown = `${isStale ? 'Stale' : 'Fresh'}${fetchedAt === null ? '' : ` (${new Date(fetchedAt).toLocaleTimeString()})`}`;
    element.dataset['state'] = state;
    element.textContent = {
      loading: 'Loading…',
      empty: 'Not loaded yet',
      fetching: `${shown}: checking with the server…`,
      stale: `${shown}: older than ${STALE_TIME / 1000} s, not checked since`,
      fresh: shown,
    }[state];
    table.classList.toggle('is-stale', isStale && fetchedAt !== null);
  });
}
