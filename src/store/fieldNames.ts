/** The field names a store's local sort, filter and group may use: the model's declared fields. */
import type { Model, ModelClass } from '../model/Model.js';

type Named = { property: string; sorterFn?: unknown; filterFn?: unknown };

/**
 * Throw a TypeError naming a property that the model's declared fields (and its id) do not have,
 * for what is applied locally; one with a `sorterFn` or `filterFn` reaches anything, and a model
 * that declares no fields takes any name.
 */
export function checkFieldNames(model: ModelClass<Model>, where: string, items: readonly Named[]): void {
  const names = model.getFields().map((field) => field.name);
  for (const { property, sorterFn, filterFn } of items) {
    if (names.length > 0 && !sorterFn && !filterFn && property !== model.idProperty && !names.includes(property)) {
      throw new TypeError(`Store.${where}: ${model.getEntityName()} has no field "${property}" (fields: ${names.join(', ')})`);
    }
  }
}

/** Check the sorters, filters and group field a store applies locally (not those its `remote*` options send to the server). */
export function checkLocal(store: { model: ModelClass<Model>; remoteSort: boolean; remoteFilter: boolean; remoteGroup: boolean; sorters: readonly Named[]; filters: readonly Named[]; groupField?: string | undefined }): void {
  if (!store.remoteSort) checkFieldNames(store.model, 'sorters', store.sorters);
  if (!store.remoteFilter) checkFieldNames(store.model, 'filters', store.filters);
  if (!store.remoteGroup && store.groupField !== undefined) checkFieldNames(store.model, 'groupField', [{ property: store.groupField }]);
}
