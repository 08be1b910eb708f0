import { isPlainObject } from '../util/options.js';
import { AjaxProxy, type AjaxProxyConfig } from './AjaxProxy.js';
import { MemoryProxy, type MemoryProxyConfig } from './MemoryProxy.js';
import { Proxy } from './Proxy.js';
import { RestProxy, type RestProxyConfig } from './RestProxy.js';
import { dev } from '../util/dev.js';

/** A proxy class the registry can build from a config object. */
export type ProxyClass = new (config: Record<string, unknown>) => Proxy;

const types = new Map<string, ProxyClass>([
  ['rest', RestProxy],
  ['ajax', AjaxProxy],
  ['memory', MemoryProxy],
]);

/**
 * A proxy config: `{ type: 'rest', url: '/users', ... }`, as `static proxy` accepts it. Its options
 * are checked when the proxy is made; check them at compile time with `satisfies ProxySpec`.
 */
export interface ProxyTypeConfig {
  /** The registered type name: `'rest'`, `'ajax'`, `'memory'`, or one added with registerProxy. Required. */
  type: string;
  /** The options of that proxy class, checked by its constructor. */
  [option: string]: unknown;
}

/**
 * The config of each proxy type, for type checking. A type added with `registerProxy` can be
 * declared here too: `declare module 'rest-proxy' { interface ProxyTypes { graphql: MyConfig } }`.
 */
export interface ProxyTypes {
  rest: RestProxyConfig;
  ajax: AjaxProxyConfig;
  memory: MemoryProxyConfig;
}

/**
 * A proxy config checked against its type's options: a misspelt option or a wrong value is a
 * compile error.
 * @example static override proxy = { type: 'rest', url: '/users', preset: 'rails' } satisfies ProxySpec;
 */
export type ProxySpec<T extends keyof ProxyTypes = keyof ProxyTypes> = { [K in T]: { type: K } & ProxyTypes[K] }[T];

/** Add a proxy type, so that `{ type }` configs can name it. */
export function registerProxy(type: string, ProxyType: ProxyClass): void {
  if (typeof type !== 'string' || type === '') throw new TypeError(`registerProxy: the type must be a non-empty string, got ${String(type)}`);
  if (typeof ProxyType !== 'function' || !(ProxyType.prototype instanceof Proxy)) {
    throw new TypeError(`registerProxy: "${type}" must be registered with a class that extends Proxy`);
  }
  types.set(type, ProxyType);
}

/** `"rest", "ajax", "memory"`: the registered types, for messages. */
function typeNames(): string {
  return [...types.keys()].map((type) => `"${type}"`).join(', ');
}

/** Turn `{ type: 'rest', url }` into a proxy; a proxy is returned as is. */
export function createProxy(config: Proxy | ProxyTypeConfig): Proxy {
  if (config instanceof Proxy) return config;
  if (!isPlainObject(config)) {
    throw new TypeError(`createProxy: expected a proxy or a config${dev(" such as { type: 'rest', url: '/users' }")}, got ${config === null ? 'null' : typeof config}`);
  }
  const { type, ...options } = config;
  if (typeof type !== 'string') {
    throw new TypeError(`createProxy: the config needs a type${dev(` (one of ${typeNames()})`)}`);
  }
  const ProxyType = types.get(type);
  if (ProxyType === undefined) {
    throw new TypeError(`createProxy: unknown proxy type "${type}"${dev(`; registered types are ${typeNames()} (add one with registerProxy)`)}`);
  }
  return new ProxyType(options);
}
