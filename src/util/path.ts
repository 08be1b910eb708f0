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

/** Property `key` of an object, but none that every object inherits (`constructor`, `__proto__`): field names are data. */
export function own(object: unknown, key: string): unknown {
  return typeof object === 'object' && object !== null && (Object.hasOwn(object, key) || !(key in Object.prototype)) ? Reflect.get(object, key) : undefined;
}

/** Set the own property `key`, `__proto__` too (as data: never the prototype). */
export function put(object: object, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else Reflect.set(object, key, value);
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
