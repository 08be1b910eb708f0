/**
 * Keys that must be unique across every client of a server (idempotency keys), in the UUID form
 * servers check for: the random part of one UUID per session, its last 12 digits a counter, so
 * that a sync of 1,000 new records asks for randomness once.
 */
function uuid(): string {
  const crypto: unknown = Reflect.get(globalThis, 'crypto');
  const randomUUID = typeof crypto === 'object' && crypto !== null ? Reflect.get(crypto, 'randomUUID') : undefined;
  if (typeof randomUUID === 'function') {
    const value: unknown = Reflect.apply(randomUUID, crypto, []);
    if (typeof value === 'string') return value;
  }
  let text = '';
  for (let i = 0; i < 32; i++) text += Math.floor(Math.random() * 16).toString(16);
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-4${text.slice(13, 16)}-a${text.slice(17, 20)}-${text.slice(20)}`;
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
