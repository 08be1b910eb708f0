/** Read a dotted path (`'meta.total'`, `'_embedded.users'`) from parsed JSON; undefined when absent. */
export function readPath(data: unknown, path: string): unknown {
  if (path === '') return data;
  // One name, the usual case ('success', 'total', 'message'): no split.
  if (!path.includes('.')) return typeof data === 'object' && data !== null ? Reflect.get(data, path) : undefined;
  let current: unknown = data;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = Reflect.get(current, key);
  }
  return current;
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
