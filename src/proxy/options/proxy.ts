/** The options of every proxy (Proxy), declared once: the config interface and its schema. */
import type { ModelClassLike } from '../../operation/types.js';
import { JsonReader, toReader, type JsonReaderConfig } from '../../reader/JsonReader.js';
import { is, isPlainObject, option, type Schema } from '../../util/options.js';
import { JsonWriter, toWriter, type JsonWriterConfig } from '../../writer/JsonWriter.js';
import { dev } from '../../util/dev.js';

/** The options of every proxy; each is afterwards a property of the same name. */
export interface ProxyConfig {
  /** The Model class records are made of. Default none (reads then give plain objects). */
  model?: ModelClassLike | undefined;
  /** A reader or reader config. Default `new JsonReader()`. */
  reader?: JsonReader | JsonReaderConfig;
  /** A writer or writer config. Default `new JsonWriter()`. */
  writer?: JsonWriter | JsonWriterConfig;
  /**
   * Sync sends one request per action type (all its records together) instead of one per
   * record. Default false. @example new RestProxy({ url: '/users', batchActions: true })
   */
  batchActions?: boolean;
  /** The order of action types within a batch, each named once. Default `'create,update,destroy'`. */
  batchOrder?: string;
}

export const WRITE_ACTIONS = ['create', 'update', 'destroy'] as const;

const isBatchOrder = {
  expect: dev('a comma-separated list of "create", "update" and "destroy", each at most once', 'a comma-separated list of actions'),
  test: (v: unknown) => {
    if (typeof v !== 'string') return false;
    const parts = v.split(',').map((part) => part.trim());
    return parts.every((part) => WRITE_ACTIONS.some((action) => action === part)) && new Set(parts).size === parts.length;
  },
};

export const proxySchema = {
  model: option({ expect: 'a Model class', test: (v) => typeof v === 'function' && 'fromServer' in v && 'getFields' in v }),
  reader: option({ expect: 'a JsonReader or a reader config', test: (v) => v instanceof JsonReader || isPlainObject(v) }, () => ({}), toReader),
  writer: option({ expect: 'a JsonWriter or a writer config', test: (v) => v instanceof JsonWriter || isPlainObject(v) }, () => ({}), toWriter),
  batchActions: option(is.boolean, () => false),
  batchOrder: option(isBatchOrder, () => 'create,update,destroy'),
} satisfies Schema<ProxyConfig>;
