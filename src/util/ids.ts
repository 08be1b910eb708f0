/**
 * Keys that must be unique across every client of a server (idempotency keys), in the UUID form
 * servers check for: the random part of one UUID per session, its last 12 digits a counter, so
 * that a sync of 1,000 new records asks for randomness once.
 */
function uuid(): string {
  // randomUUID is there in secure contexts only (https, localhost): elsewhere the same form from Math.random.
  const crypto: Partial<Crypto> | undefined = globalThis.crypto;
  return typeof crypto?.randomUUID === 'function' ? crypto.randomUUID() : 'xxxxxxxx-xxxx-4xxx-axxx-xxxxxxxxxxxx'.replace(/x/g, () => Math.floor(Math.random() * 16).toString(16));
}

let session: string | undefined;
let count = 0;

/** A new key, unique across clients: a UUID whose last 12 hex digits count the keys of this session. */
export function newKey(): string {
  if (session === undefined || count >= 0xffffffffffff) {
    session = uuid().slice(0, 24);
    count = 0;
  }
  return session + (++count).toString(16).padStart(12, '0');
}
