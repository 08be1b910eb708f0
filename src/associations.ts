/**
 * rest-proxy/associations: related records as one graph. `hasMany`, `belongsTo`, `hasOne` and
 * `manyToMany` declared on a model, a `Session` that holds one record per (model, id), and
 * creates sent parents first. Importing this module plugs it into the core (model/extensions.ts);
 * an app that does not import it pays nothing for it.
 * @module rest-proxy/associations
 */
export { syncGraph, type GraphRecords } from './associations/sync.js';
