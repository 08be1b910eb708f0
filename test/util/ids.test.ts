/** src/util/ids.ts: idempotency keys, UUID-shaped, unique per key, with or without crypto.randomUUID. */
import { afterEach, describe, expect, it, vi } from 'vitest';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function freshNewKey(): Promise<() => string> {
  vi.resetModules();
  return (await import('../../src/util/ids.js')).newKey;
}

describe('newKey', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('makes UUID-shaped keys that share a session prefix and count up', async () => {
    const newKey = await freshNewKey();
    const [a, b] = [newKey(), newKey()];
    expect(a).toMatch(UUID);
    expect(b).toMatch(UUID);
    expect(a.slice(0, 24)).toBe(b.slice(0, 24));
    expect(Number.parseInt(b.slice(24), 16)).toBe(Number.parseInt(a.slice(24), 16) + 1);
  });

  it('makes the same form from Math.random where there is no randomUUID (not a secure context)', async () => {
    vi.stubGlobal('crypto', {});
    const newKey = await freshNewKey();
    const key = newKey();
    expect(key).toMatch(UUID);
    expect(key.slice(19, 20)).toBe('a');
    vi.unstubAllGlobals();
    const other = await freshNewKey();
    expect(other().slice(0, 24)).not.toBe(key.slice(0, 24));
  });

  it('makes the same form where there is no crypto at all', async () => {
    vi.stubGlobal('crypto', undefined);
    const newKey = await freshNewKey();
    expect(newKey()).toMatch(UUID);
  });
});
