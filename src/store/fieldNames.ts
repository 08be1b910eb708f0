/** The field names a store's local sort, filter and group may use: the model's declared fields. */
import type { Model, ModelClass } from '../model/Model.js';
import { dev } from '../util/dev.js';

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
      throw new TypeError(`Store.${where}: ${model.getEntityName()} has no field "${property}"${dev(` (fields: ${names.join(', ')})`)}`);
    }
  }
}
