// The in-memory data behind every convention: collections, ids, versions (for ETags), scopes.
import type { Db, Row } from './types.js';

/** Rows of a nested route belong to a parent: `/users/1/posts` -> posts with userId 1. */
export interface Scope {
  field: string;
  value: unknown;
}

export function singular(name: string): string {
  if (name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  if (/(ss|x|z|ch|sh)es$/.test(name)) return name.slice(0, -2);
  if (name.endsWith('s') && !name.endsWith('ss')) return name.slice(0, -1);
  return name;
}

/** Ids from a path are strings; they match numeric ids too ('1' matches 1). */
export function sameId(a: unknown, b: unknown): boolean {
  return a !== undefined && a !== null && b !== undefined && b !== null && String(a) === String(b);
}

export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

export class Store {
  // Versions live beside the rows, so `server.db` holds exactly what the client sent.
  private versions = new WeakMap<Row, number>();

  constructor(
    readonly db: Db,
    private readonly required: Record<string, string[]>,
    private readonly declaredFields: Record<string, string[]>,
  ) {}

  /** Rows of a collection (an unknown collection reads as empty and is created on first write). */
  rows(collection: string, scope?: Scope): Row[] {
    const rows = this.db[collection] ?? [];
    return scope ? rows.filter((row) => sameId(row[scope.field], scope.value)) : rows;
  }

  find(collection: string, id: string, scope?: Scope): Row | undefined {
    return this.rows(collection, scope).find((row) => sameId(row.id, id));
  }

  nextId(collection: string): number {
    let max = 0;
    for (const row of this.rows(collection)) {
      const id = typeof row.id === 'number' ? row.id : Number(row.id);
      if (Number.isFinite(id) && id > max) max = id;
    }
    return Math.floor(max) + 1;
  }

  /** Stores a new row; the server assigns the id (a client id is ignored). */
  insert(collection: string, data: Row, scope?: Scope): Row {
    const { id: _ignored, ...fields } = data;
    const row: Row = { id: this.nextId(collection), ...fields };
    if (scope) row[scope.field] = scope.value;
    (this.db[collection] ??= []).push(row);
    this.versions.set(row, 1);
    return row;
  }

  /** Full replace, in place so references held by tests stay live; the id never changes. */
  replace(row: Row, data: Row, scope?: Scope): Row {
    const id = row.id;
    for (const key of Object.keys(row)) delete row[key];
    const { id: _ignored, ...fields } = data;
    Object.assign(row, { id }, fields);
    if (scope) row[scope.field] = scope.value;
    this.bump(row);
    return row;
  }

  merge(row: Row, patch: Row): Row {
    const { id: _ignored, ...fields } = patch;
    Object.assign(row, fields);
    this.bump(row);
    return row;
  }

  remove(collection: string, row: Row): void {
    const rows = this.db[collection];
    const index = rows ? rows.indexOf(row) : -1;
    if (rows && index >= 0) rows.splice(index, 1);
  }

  /** Rows added by a test directly (server.db.users.push) start at version 1. */
  version(row: Row): number {
    return this.versions.get(row) ?? 1;
  }

  etag(row: Row): string {
    return `"${String(row.id)}-${this.version(row)}"`;
  }

  requiredFields(collection: string): string[] {
    return this.required[collection] ?? [];
  }

  /** Required fields that are missing or empty in a row. */
  missing(collection: string, row: Row): string[] {
    return this.requiredFields(collection).filter((field) => isBlank(row[field]));
  }

  /**
   * The column names of a collection, for frameworks that drop unknown body keys.
   * undefined = unknown schema (empty collection, nothing declared): keep every key.
   */
  columns(collection: string): Set<string> | undefined {
    const declared = this.declaredFields[collection];
    const names = new Set<string>(declared ?? []);
    if (!declared) for (const row of this.rows(collection)) for (const key of Object.keys(row)) names.add(key);
    for (const field of this.requiredFields(collection)) names.add(field);
    names.delete('id');
    return names.size > 0 ? names : undefined;
  }

  /** The JS type of a field as seen in the stored rows (first non-null value). */
  fieldType(collection: string, field: string): 'number' | 'boolean' | 'string' | undefined {
    for (const row of this.rows(collection)) {
      const value = row[field];
      if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') return typeof value as 'number' | 'boolean' | 'string';
    }
    return undefined;
  }

  hasField(collection: string, field: string): boolean {
    return this.rows(collection).some((row) => field in row);
  }

  private bump(row: Row): void {
    this.versions.set(row, this.version(row) + 1);
  }
}
