// Small helpers to build replies and read request metadata; no I/O here.
import { STATUS_CODES } from 'node:http';
import type { Reply } from './types.js';

export function jsonReply(status: number, value: unknown, headers: Record<string, string> = {}, contentType = 'application/json'): Reply {
  const body = JSON.stringify(value);
  return { status, headers: { 'Content-Type': contentType, ...headers }, body };
}

/** No body at all (204, 301, 304, HEAD-like answers). */
export function emptyReply(status: number, headers: Record<string, string> = {}): Reply {
  return { status, headers: { ...headers } };
}

export function htmlReply(status: number, headers: Record<string, string> = {}): Reply {
  const title = `${status} ${STATUS_CODES[status] ?? 'Error'}`;
  const body = `<!DOCTYPE html>\n<html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>\n`;
  return { status, headers: { 'Content-Type': 'text/html; charset=utf-8', ...headers }, body };
}

/** The media type of a Content-Type / Accept entry, lower-cased, without parameters. */
export function mediaType(value: string | undefined): string {
  return (value ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function isJsonMediaType(value: string | undefined): boolean {
  const type = mediaType(value);
  return type === 'application/json' || type.endsWith('+json');
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; error: string };

export function parseJson(text: string): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** application/x-www-form-urlencoded, with `root[key]` keys nested one level (as Rails/PHP read them). */
export function parseForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const nested = /^([^[\]]+)\[([^[\]]+)\]$/.exec(key);
    if (nested?.[1] && nested[2]) {
      const inner = isObject(out[nested[1]]) ? (out[nested[1]] as Record<string, unknown>) : {};
      inner[nested[2]] = value;
      out[nested[1]] = inner;
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** Tracks every timer so close() can cancel them; a cancelled sleep resolves false. */
export class Timers {
  private pending = new Map<ReturnType<typeof setTimeout>, (done: boolean) => void>();

  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        resolve(true);
      }, Math.max(0, ms));
      this.pending.set(timer, resolve);
    });
  }

  clear(): void {
    for (const [timer, resolve] of this.pending) {
      clearTimeout(timer);
      resolve(false);
    }
    this.pending.clear();
  }
}
