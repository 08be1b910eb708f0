/**
 * Read a dotted path (`'meta.total'`, `'_embedded.users'`) from parsed JSON; undefined when
 * absent. `constructor` is data, not Object's.
 */
export function readPath(data: unknown, path: string): unknown {
  if (path === '') return data;
  // One name, the usual case ('success', 'total', 'message'): no split.
  if (!path.includes('.')) return own(data, path);
  let current: unknown = data;
  for (const key of path.split('.')) current = own(current, key);
  return current;
}

/**
 * Property `key` of an object, but none it inherits from Object.prototype (`constructor`,
 * `__proto__`): field names are data. (What an object inherits from there is a function or
 * Object.prototype itself: one check, then hasOwn only for those.)
 */
export function own(object: unknown, key: string): unknown {
  if (typeof object !== 'object' || object === null) return undefined;
  const value: unknown = Reflect.get(object, key);
  return (typeof value === 'function' || value === OBJECT) && !Object.hasOwn(object, key) ? undefined : value;
}

const OBJECT = Object.prototype;

/** Set the own property `key`, `__proto__` too (as data: never the prototype). */
export function put(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') define(object, key, value);
  else object[key] = value;
}

/** Define the own, plain property `key` of any object (slower than put: for what is made once per call). */
export function define(object: object, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
