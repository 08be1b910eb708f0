/**
 * A scripted REST server for replayed creates: it replays a POST whose Idempotency-Key it has
 * seen (same status, body and ETag, as Stripe-style servers do), applies every field of a PUT
 * (If-Match checked against the row's ETag), refuses an empty name with a 422, and can lose
 * answers, hold a chosen request, or refuse every PUT.
 */
import type { Answer, RecordedCall } from './recordingFetch.js';

export interface NoteRow {
  id: number;
  name: string;
  note: string;
}

type Item = Record<string, unknown>;

function isItem(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The records a body carries: an array of them or one. */
function itemsOf(body: unknown): Item[] {
  return (Array.isArray(body) ? body : [body]).filter(isItem);
}

export function replayServer() {
  const rows: NoteRow[] = [];
  const versions = new Map<number, number>();
  const replays = new Map<string, { status: number; body: unknown; etag: string | undefined }>();
  let losePosts = 0;
  const holds: { match: (call: RecordedCall) => boolean; gate: Promise<void> }[] = [];
  let putStatus: number | undefined;
  const etagOf = (id: number): string => `"${id}-${versions.get(id) ?? 1}"`;
  const invalid = (item: Item): boolean => item.name === '';

  const create = (item: Item): NoteRow => {
    const row: NoteRow = { id: 100 + rows.length, name: typeof item.name === 'string' ? item.name : '', note: typeof item.note === 'string' ? item.note : '' };
    rows.push(row);
    versions.set(row.id, 1);
    return row;
  };
  const apply = (row: NoteRow, item: Item): void => {
    if (typeof item.name === 'string') row.name = item.name;
    if (typeof item.note === 'string') row.note = item.note;
    versions.set(row.id, (versions.get(row.id) ?? 1) + 1);
  };

  const post = (call: RecordedCall): Answer => {
    const key = call.headers['idempotency-key'] ?? '';
    let stored = replays.get(key);
    if (stored === undefined) {
      const items = itemsOf(call.json);
      if (items.some(invalid)) return { status: 422, body: { errors: { name: ['is required'] } } };
      const made = items.map(create);
      const [only] = made;
      const body = Array.isArray(call.json) ? made.map((row) => ({ ...row })) : { ...only };
      stored = { status: 201, body, etag: made.length === 1 && only !== undefined ? etagOf(only.id) : undefined };
      replays.set(key, stored);
    }
    if (losePosts > 0) {
      losePosts--;
      return new TypeError('fetch failed: the connection was reset after the server applied the request');
    }
    return { status: stored.status, body: stored.body, headers: stored.etag === undefined ? {} : { etag: stored.etag } };
  };

  const put = (call: RecordedCall, id: number | undefined): Answer => {
    if (putStatus !== undefined) return { status: putStatus, body: { message: 'refused' } };
    const items = itemsOf(call.json);
    if (items.some(invalid)) return { status: 422, body: { errors: { name: ['is required'] } } };
    const touched: NoteRow[] = [];
    for (const item of items) {
      const rowId = id ?? (typeof item.id === 'number' ? item.id : undefined);
      const row = rows.find((candidate) => candidate.id === rowId);
      if (row === undefined) return { status: 404, body: { message: 'Not found' } };
      const ifMatch = call.headers['if-match'];
      if (ifMatch !== undefined && ifMatch !== etagOf(row.id)) return { status: 412, body: { ...row }, headers: { etag: etagOf(row.id) } };
      apply(row, item);
      touched.push(row);
    }
    const [only] = touched;
    const body = Array.isArray(call.json) ? touched.map((row) => ({ ...row })) : { ...only };
    return { status: 200, body, headers: touched.length === 1 && only !== undefined ? { etag: etagOf(only.id) } : {} };
  };

  const respond = async (call: RecordedCall): Promise<Answer> => {
    const hold = holds.find((candidate) => candidate.match(call));
    if (hold !== undefined) {
      holds.splice(holds.indexOf(hold), 1);
      await hold.gate;
    }
    const idText = new URL(call.url).pathname.split('/').pop() ?? '';
    const id = /^\d+$/.test(idText) ? Number(idText) : undefined;
    if (call.method === 'GET') return { body: rows.map((row) => ({ ...row })) };
    if (call.method === 'POST') return post(call);
    if (call.method === 'PUT' || call.method === 'PATCH') return put(call, id);
    if (call.method === 'DELETE') {
      const at = rows.findIndex((candidate) => candidate.id === id);
      if (at === -1) return { status: 404, body: { message: 'Not found' } };
      rows.splice(at, 1);
      return { status: 204 };
    }
    return { status: 405 };
  };

  return {
    rows,
    respond,
    /** Lose the answers of the next `n` POSTs (each applied). */
    losePosts: (n = 1): void => {
      losePosts = n;
    },
    /** Answer every PUT with this status (undefined: apply them). */
    refusePuts: (status: number | undefined): void => {
      putStatus = status;
    },
    /** Hold the next call that matches until the returned function is called. */
    hold: (match: (call: RecordedCall) => boolean): (() => void) => {
      let release = (): void => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      holds.push({ match, gate });
      return release;
    },
  };
}

/** Wait a few milliseconds: long enough for a request to reach the scripted server. */
export const tick = (ms = 5): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `METHOD /path` of each call. */
export function methods(calls: readonly RecordedCall[]): string[] {
  return calls.map((call) => `${call.method} ${new URL(call.url).pathname}`);
}

/** A body field of a recorded call, when it is a string. */
export function bodyField(call: RecordedCall, name: string): string | undefined {
  const body = call.json;
  if (!isItem(body)) return undefined;
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}
