/**
 * rest-proxy/buffered: huge remote collections read page by page (API.md section 11).
 *
 *     const orders = new BufferedStore({ model: Order, pageSize: 100 });
 *     orders.setVisibleRange(0, 49);   // its pages load first, then prefetch
 *     orders.getRange(0, 49);          // records, and a Placeholder where a row is not loaded yet
 *
 * @module rest-proxy/buffered
 */
export { BufferedStore } from './buffered/BufferedStore.js';
export type { BufferedStoreEvents } from './buffered/BufferedStore.js';
export { isPlaceholder } from './buffered/options.js';
export type { BufferedSnapshot, BufferedStoreConfig, Placeholder } from './buffered/options.js';
