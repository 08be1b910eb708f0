/**
 * rest-proxy/associations: related records as one graph. `hasMany`, `belongsTo`, `hasOne` and
 * `manyToMany` declared on a model, a `Session` that holds one record per (model, id), and
 * creates sent parents first. Importing this module plugs it into the core (model/extensions.ts);
 * an app that does not import it pays nothing for it.
 * @module rest-proxy/associations
 */
import { plugIn } from './associations/accessors.js';
// Kept in the declarations too: accessors.d.ts adds `session` to Model.load's options and types
// `record.session` as a Session (an import of plugIn alone is dropped from associations.d.ts).
import './associations/accessors.js';

export { belongsTo, hasMany, hasOne, manyToMany } from './associations/declare.js';
export type { Accessor, AssociatedStore, Association, BelongsToOptions, HasManyOptions, LinkStore, ManyToManyOptions, NestedOptions, Target } from './associations/declare.js';
export { Session } from './associations/session.js';
export { AssociationStore } from './associations/stores.js';
export { syncGraph, type GraphRecords } from './associations/sync.js';

plugIn();
