import { type ProxyTypeConfig } from '../../src/index.js';
import { getPreset, registerPreset } from '../../src/presets.js';
import { requestLog } from './requestLog.js';

/** The two switches of the page that change how the proxy builds its requests. */
export interface ProxySettings {
  /** One request per action type with every record in it, instead of one per record. */
  batchActions: boolean;
  /** End every url with `.json`. */
  format: boolean;
  /**
   * Updates as PATCH with the changed fields (while the outbox holds writes): after a reload the
   * outbox knows a record's changes, not its other fields, and json-server's PUT replaces the row.
   */
  patch?: boolean;
}

export const USERS_URL = '/api/users';

/**
 * json-server's conventions for a server that does have batch endpoints: the library's
 * 'json-server' preset refuses `batchActions: true`, rightly for a stock json-server, so the demo
 * registers a copy of it that allows batching (its server adds batch endpoints).
 */
registerPreset('json-server-with-batch', { ...getPreset('json-server'), supportsBatch: true });

/**
 * The User proxy for the switches. Batch off: the preset, as a user of a stock json-server
 * writes it. Batch on: the same conventions with `batchActions: true`, which works here only
 * because the demo server adds batch endpoints (an array POSTed, PUT or DELETEd on /api/users)
 * that json-server itself does not have.
 */
export function userProxyConfig(settings: ProxySettings): ProxyTypeConfig {
  const common = {
    type: 'rest',
    url: USERS_URL,
    fetch: requestLog.fetch,
    onRequest: requestLog.onRequest,
    ...(settings.format ? { format: 'json' } : {}),
    ...(settings.patch ? { actionMethods: { update: 'PATCH' } } : {}),
  };
  if (!settings.batchActions) return { ...common, preset: 'json-server' };
  return { ...common, preset: 'json-server-with-batch', batchActions: true };
}
