/** What `sort()`, `filter()` and `group()` of a store make of their arguments, and what its view applies. */
import type { Direction, Filter, Sorter } from '../operation/types.js';

/**
 * The sorters of `sort(property, direction?)` (the same property again without a direction:
 * flipped) or of `sort(sorters)`.
 */
export function sortersOf<P extends string, S extends Sorter>(current: readonly Sorter[], propertyOrSorters: P | S[], direction?: Direction): Array<S | { property: P; direction: Direction }> {
  if (typeof propertyOrSorters !== 'string') return propertyOrSorters;
  const first = current[0];
  return [{ property: propertyOrSorters, direction: direction ?? (first?.property === propertyOrSorters && first.direction !== 'DESC' ? 'DESC' : 'ASC') }];
}

/** The filters of `filter(property, value, operator?)` or `filter(filters)`: `added`, and the current ones on other properties before them. */
export function filtersWith<F extends Filter>(current: readonly F[], propertyOrFilters: string | Filter[], value?: unknown, operator?: Filter['operator']): { filters: Filter[]; added: Filter[] } {
  const added: Filter[] = typeof propertyOrFilters === 'string' ? [{ property: propertyOrFilters, value, ...(operator !== undefined ? { operator } : {}) }] : propertyOrFilters;
  const replaced = new Set(added.map((filter) => filter.property));
  return { filters: [...current.filter((filter) => !replaced.has(filter.property)), ...added], added };
}

/** What a store's view applies: its grouping (local), then its local sorters (remote: those with a `sorterFn`); its local filters likewise. */
export function localArrangement(store: { remoteSort: boolean; remoteFilter: boolean; remoteGroup: boolean; groupField?: string | undefined; groupDir: Direction; sorters: readonly Sorter[]; filters: readonly Filter[] }): [Sorter[], readonly Filter[]] {
  const sorters: Sorter[] = !store.remoteGroup && store.groupField !== undefined ? [{ property: store.groupField, direction: store.groupDir }] : [];
  sorters.push(...(store.remoteSort ? store.sorters.filter((sorter) => sorter.sorterFn !== undefined) : store.sorters));
  return [sorters, store.remoteFilter ? store.filters.filter((filter) => filter.filterFn !== undefined) : store.filters];
}
