/**
 * Hand-resolved promises, and a fetch responder that parks every request until the test answers
 * it: the way to hold a save or a load "in flight" while the test edits records or starts another.
 */
import type { Answer, RecordedCall, Responder } from './recordingFetch.js';

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export interface ParkedCall {
  call: RecordedCall;
  answer(answer: Answer): void;
}

/** A responder that parks each call; `parked` lists them in arrival order. */
export function parkingResponder(): { respond: Responder; parked: ParkedCall[] } {
  const parked: ParkedCall[] = [];
  const respond: Responder = (call) => {
    const gate = deferred<Answer>();
    parked.push({ call, answer: gate.resolve });
    return gate.promise;
  };
  return { respond, parked };
}

/** The JSON body of a call as an object, or a thrown error naming what was sent instead. */
export function bodyObject(call: RecordedCall): Record<string, unknown> {
  const json = call.json;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new Error(`expected a JSON object body, got ${String(call.body)}`);
  }
  return Object.fromEntries(Object.entries(json));
}

/** The JSON body of a call as an array of objects. */
export function bodyArray(call: RecordedCall): Record<string, unknown>[] {
  const json = call.json;
  if (!Array.isArray(json)) throw new Error(`expected a JSON array body, got ${String(call.body)}`);
  return json.map((item: unknown) => {
    if (typeof item !== 'object' || item === null) throw new Error(`expected objects, got ${String(call.body)}`);
    return Object.fromEntries(Object.entries(item));
  });
}

export function pathOf(call: RecordedCall): string {
  return new URL(call.url).pathname;
}

export function queryOf(call: RecordedCall): URLSearchParams {
  return new URL(call.url).searchParams;
}

/** "METHOD /path" of every call, for compact assertions on what was sent. */
export function summary(calls: RecordedCall[]): string[] {
  return calls.map((call) => `${call.method} ${pathOf(call)}`);
}

/** Resolve as `promise` does, or fail once `ms` have passed: every wait of these tests is bounded. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
