import { describe, expect, it } from 'vitest';
// The built-in presets are registered where they are imported, as in an app.
import '../../src/presets.js';
import { getPreset, registerPreset, RestProxy } from '../../src/index.js';

declare module '../../src/index.js' {
  interface Presets {
    'json-server-with-batch': true;
  }
}

describe('preset options assigned after construction', () => {
  it('assigning preset applies its conventions', () => {
    const proxy = new RestProxy({ url: 'http://api.test/users' });
    expect(proxy.pageParam).toBe('page');
    proxy.preset = 'json-server';
    expect(proxy.pageParam).toBe('_page');
    expect(proxy.limitParam).toBe('_limit');
    expect(proxy.reader.totalHeader).toBe('X-Total-Count');
  });

  it('batchActions: true is refused while the preset has no batch endpoint', () => {
    const proxy = new RestProxy({ url: 'http://api.test/users', preset: 'json-server' });
    expect(() => {
      proxy.batchActions = true;
    }).toThrow(/batchActions cannot be true with preset "json-server"/);
    expect(proxy.batchActions).toBe(false);
  });

  it('getPreset gives a copy to build on, e.g. a json-server with batch endpoints', () => {
    const base = getPreset('json-server');
    expect(base?.pageParam).toBe('_page');
    registerPreset('json-server-with-batch', { ...base, supportsBatch: true });
    const proxy = new RestProxy({ url: 'http://api.test/users', preset: 'json-server-with-batch', batchActions: true });
    expect(proxy.batchActions).toBe(true);
    expect(proxy.pageParam).toBe('_page');
    expect(getPreset('nope')).toBeUndefined();
  });
});
