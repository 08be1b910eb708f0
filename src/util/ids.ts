/**
 * Keys that must be unique across every client of a server (idempotency keys), in the UUID form
 * servers check for: the random part of one UUID per session, its last 12 digits a counter, so
 * that a sync of 1,000 new records asks for randomness once.
 */

let session: string | undefined;
let count = 0;

/** A new key, unique across clients: a UUID whose last 12 hex digits count the keys of this session. */
export function newKey(): string {
  if (session === undefined || count >= 0xffffffffffff) {
    // The first 24 characters of a UUID. randomUUID is there in secure contexts only (https,
    // localhost): elsewhere the same form from Math.random.
    const crypto: Partial<Crypto> | undefined = globalThis.crypto;
    session = typeof crypto?.randomUUID === 'function' ? crypto.randomUUID().slice(0, 24) : 'xxxxxxxx-xxxx-4xxx-axxx-'.replace(/x/g, () => Math.floor(Math.random() * 16).toString(16));
    count = 0;
  }
  return session + (++count).toString(16).padStart(12, '0');
}
