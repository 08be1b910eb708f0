// Rails' accepts_nested_attributes_for, as a model with `accepts_nested_attributes_for :posts,
// allow_destroy: true` and a controller that permits `posts_attributes: [:id, :_destroy, ...]` and
// answers `render json: @user, include: :posts` has it: children created, updated (by id, only
// the parent's own) and destroyed (`_destroy`) with the parent in one transaction; a child's
// blank required field is a 422 on the parent as `"posts.title": ["can't be blank"]`.
import { isObject } from '../http.js';
import { sortRows } from '../query.js';
import { sameId, type Store } from '../store.js';
import type { Row } from '../types.js';

/** Per parent collection: its nested associations (name -> child collection and foreign key). */
export type NestedAttributes = Record<string, Record<string, { collection?: string; foreignKey: string }>>;

/** What a body asks of one association: rows to create, update and destroy. */
interface ChildPlan {
  name: string;
  collection: string;
  foreignKey: string;
  items: Row[];
}

const TRUE_VALUES = new Set([true, 1, '1', 'true', 't', 'on']);

/**
 * The `<name>_attributes` keys of a wrapped body (taken out of it), or the Rails error: an
 * attributes value that is neither an array nor a hash of hashes is a 500 in Rails (TypeError);
 * here a 400. A hash keyed by index (`{"0": {...}}`, what forms send) is read in key order.
 */
export function takeNested(nested: NestedAttributes | undefined, collection: string, wrapped: Record<string, unknown>): ChildPlan[] | 'bad' {
  const plans: ChildPlan[] = [];
  for (const [name, config] of Object.entries(nested?.[collection] ?? {})) {
    const key = `${name}_attributes`;
    if (!Object.hasOwn(wrapped, key)) continue;
    const value = wrapped[key];
    delete wrapped[key];
    const items = Array.isArray(value) ? value : isObject(value) ? Object.values(value) : undefined;
    if (items === undefined || !items.every(isObject)) return 'bad';
    plans.push({ name, collection: config.collection ?? name, foreignKey: config.foreignKey, items: items as Row[] });
  }
  return plans;
}

/** The errors the children would have (Rails' autosave validation), keyed `posts.title`. */
export function nestedErrors(store: Store, plans: ChildPlan[], parentId: unknown): Record<string, string[]> | 'not found' | undefined {
  const errors: Record<string, string[]> = {};
  for (const plan of plans) {
    for (const item of plan.items) {
      if (TRUE_VALUES.has(item._destroy as never)) continue;
      let merged: Row = item;
      if (item.id !== undefined && item.id !== null && item.id !== '') {
        const row = store.rows(plan.collection).find((candidate) => sameId(candidate.id, String(item.id)));
        // ActiveRecord::RecordNotFound: "Couldn't find Post with ID=9 for User with ID=1".
        if (row === undefined || parentId === undefined || !sameId(row[plan.foreignKey], String(parentId))) return 'not found';
        merged = { ...row, ...item };
      }
      for (const field of store.requiredFields(plan.collection)) {
        const value = merged[field];
        if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) errors[`${plan.name}.${field}`] = ["can't be blank"];
      }
    }
  }
  return Object.keys(errors).length > 0 ? errors : undefined;
}

/** Apply the children (after the parent was saved) and return the parent as `include:` renders it. */
export function applyNested(store: Store, plans: ChildPlan[], parent: Row, nested: NestedAttributes | undefined, collection: string): Row {
  for (const plan of plans) {
    for (const item of plan.items) {
      const { id, _destroy: destroy, ...attrs } = item;
      delete attrs[plan.foreignKey]; // the parent's key wins
      const existing = id === undefined || id === null || id === '' ? undefined : store.rows(plan.collection).find((row) => sameId(row.id, String(id)));
      if (existing !== undefined && TRUE_VALUES.has(destroy as never)) store.remove(plan.collection, existing);
      else if (existing !== undefined) store.merge(existing, attrs);
      else if (!TRUE_VALUES.has(destroy as never)) store.insert(plan.collection, { ...attrs, [plan.foreignKey]: parent.id });
    }
  }
  return rendered(store, parent, nested, collection);
}

/** `render json: @user, include: :posts`: the parent with each nested association's rows, by id. */
export function rendered(store: Store, parent: Row, nested: NestedAttributes | undefined, collection: string): Row {
  const out: Row = { ...parent };
  for (const [name, config] of Object.entries(nested?.[collection] ?? {})) {
    const rows = store.rows(config.collection ?? name).filter((row) => sameId(row[config.foreignKey], String(parent.id)));
    out[name] = sortRows(rows, [{ property: 'id', direction: 'ASC' }]).map((row) => ({ ...row }));
  }
  return out;
}
