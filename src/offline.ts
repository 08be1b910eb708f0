/**
 * rest-proxy/offline: a durable outbox for offline writes. The attached models' saves, destroys
 * and syncs are stored as intents before their first attempt and replayed until the server has
 * them, across reloads, closed tabs and crashes.
 * @module rest-proxy/offline
 */
export { Outbox } from './offline/outbox.js';
export type { FailedEntry, OutboxConfig, OutboxEvents, OutboxSnapshot, PauseReason } from './offline/types.js';
export type { StoredError } from './offline/entry.js';
export type { OutboxCodec } from './offline/scope.js';
export type { TabCoordinator } from './offline/coordination.js';
export { OutboxError } from './offline/errors.js';
export type { OutboxErrorKind } from './offline/errors.js';
export { MemoryStorage } from './offline/storage.js';
export type { JsonValue, OutboxStorage, StorageCommit, StoredObject } from './offline/storage.js';
export { FileStorage } from './offline/file.js';
export type { FileStorageOptions } from './offline/file.js';
export { IndexedDBStorage } from './offline/indexeddb.js';
export type { IndexedDBStorageOptions } from './offline/indexeddb.js';
export { ReadCache, ReadCacheError } from './offline/readCache.js';
export type { ReadCacheConfig, ReadCacheErrorEvent, ReadCacheErrorKind } from './offline/readCache.js';
