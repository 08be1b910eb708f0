/**
 * A child of a phantom parent holds a reference to the parent record, never a client-made id:
 * its key stays unset until the parent's create commits, then the key is filled and the
 * reference dropped. What a record references is what its write waits for (extensions.waitsFor).
 */
import type { Model } from '../model/Model.js';
import { extensions } from '../model/extensions.js';
import { recordInfo } from '../model/modelInfo.js';
import { markModified } from '../model/values.js';

/** child -> (foreign key -> the phantom parent). */
const refs = new WeakMap<object, Map<string, Model>>();
/** parent -> the children that reference it. */
const back = new WeakMap<Model, Set<Model>>();

/** The phantom parent a child references through `foreignKey`, if any. */
export function referenced(child: Model, foreignKey: string): Model | undefined {
  return refs.get(child)?.get(foreignKey);
}

/** Whether the record's `name` is a key waiting for a new parent (it reads as undefined, API.md 9.3). */
export function keyWaits(record: object, name: string): boolean {
  return refs.get(record)?.has(name) === true;
}

/** The child now references the phantom parent through `foreignKey` (a saved child's key is cleared, or marked modified: an edit, which reject() undoes). */
export function refer(child: Model, foreignKey: string, parent: Model): void {
  extensions.keyWaits = keyWaits;
  recordInfo(child).keys.add(foreignKey); // readField asks keyWaits of this field from now on
  unrefer(child, foreignKey);
  let map = refs.get(child);
  if (map === undefined) refs.set(child, (map = new Map()));
  map.set(foreignKey, parent);
  let children = back.get(parent);
  if (children === undefined) back.set(parent, (children = new Set()));
  children.add(child);
  const key: unknown = child.get(foreignKey);
  if (key !== undefined && key !== null) child.set(foreignKey, null);
  else if (!child.phantom) markModified(child, foreignKey);
}

/** Drop the child's reference through `foreignKey`. */
export function unrefer(child: Model, foreignKey: string): void {
  const map = refs.get(child);
  const parent = map?.get(foreignKey);
  if (map === undefined || parent === undefined) return;
  map.delete(foreignKey);
  if (map.size === 0) refs.delete(child);
  const children = back.get(parent);
  if (children !== undefined && ![...map.values()].includes(parent)) {
    children.delete(child);
    if (children.size === 0) back.delete(parent);
  }
}

/** A reference whose key was set meanwhile (reject() brought the old key back, the user set one), or a saved child's undone by reject(), is dropped. */
export function settleReferences(child: Model): void {
  const map = refs.get(child);
  if (map === undefined) return;
  for (const foreignKey of [...map.keys()]) {
    const key: unknown = child.get(foreignKey);
    if ((key !== undefined && key !== null) || (!child.phantom && !child.isModified(foreignKey))) unrefer(child, foreignKey);
  }
}

/** The new records `record` must wait for: the phantom parents it references, and those destroyed before they were created (it cannot be sent until given another parent or none). */
export function waitsFor(record: object): readonly Model[] {
  const map = refs.get(record);
  if (map === undefined) return [];
  return [...map.values()].filter((parent) => parent.phantom || parent.erased);
}

/** The keys that wait for a phantom parent, each with that parent. */
export function referencesOf(record: object): [string, Model][] {
  return [...(refs.get(record) ?? [])].filter(([, parent]) => parent.phantom && !parent.erased);
}

/** The parent's create committed: fill its children's keys with its id, and drop their references. Returns the children. */
export function parentCreated(parent: Model): Model[] {
  const children = back.get(parent);
  if (children === undefined) return [];
  back.delete(parent);
  const id: unknown = parent.getId();
  for (const child of children) {
    const map = refs.get(child);
    if (map === undefined) continue;
    for (const [foreignKey, referencedParent] of [...map]) {
      if (referencedParent !== parent) continue;
      map.delete(foreignKey);
      if (map.size === 0) refs.delete(child);
      child.set(foreignKey, id);
    }
  }
  return [...children];
}

/**
 * The parent is gone (erased while new). Its children keep their reference: a new owned child was
 * dropped with it, and another still waits for it (its write fails with kind 'dependency') until it
 * is given another parent or none.
 */
export function parentErased(parent: Model): void {
  back.delete(parent);
}
