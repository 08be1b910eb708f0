import { average, count, sum, type Store } from '../../src/index.js';
import type { User } from './User.js';

/**
 * Under the grid, a live summary of the page held (API.md section 12): how many users, how many
 * gave an age, and the ages' total and mean, kept current per edit by `store.summarize`.
 */
export function mountSummary(element: HTMLElement, store: Store<User>): () => void {
  const summary = store.summarize({ users: count(), aged: count('age'), total: sum('age'), mean: average('age') });
  const stop = summary.subscribe(({ values }) => {
    const mean = values.mean === null ? '–' : values.mean.toFixed(1);
    element.textContent = `This page: ${values.users} users, ${values.aged} with an age; ages total ${values.total}, mean ${mean}`;
  });
  return () => {
    stop();
    summary.destroy();
  };
}
