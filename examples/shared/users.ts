/**
 * What the React and Vue examples share: the User model of the demo's json-server, the store of
 * the grid, and what the page does with a load that fails.
 */
import { Model, ProxyError, Store, type FieldDeclaration } from 'rest-proxy';
// Registers the built-in presets ('json-server' among them).
import 'rest-proxy/presets';

export interface UserData {
  id: number;
  name: string;
  email: string;
  age: number | null;
  active: boolean;
  created: Date;
}

export class User extends Model<UserData> {
  static override fields: readonly FieldDeclaration[] = [
    { name: 'id', type: 'int' },
    { name: 'name', type: 'string' },
    { name: 'email', type: 'string' },
    { name: 'age', type: 'int' },
    { name: 'active', type: 'boolean', defaultValue: true },
    { name: 'created', type: 'date' },
  ];

  static override proxy = { type: 'rest', url: '/api/users', preset: 'json-server' };
}

/** The users of the grid: 20 a page, sorted by the server. */
export const users = new Store<User>({ model: User, pageSize: 20, remoteSort: true });

/** The fields the grid and the detail form edit as text. */
export type TextField = 'name' | 'email' | 'age';

export const LABELS: Readonly<Record<keyof UserData, string>> = { id: 'ID', name: 'Name', email: 'Email', age: 'Age', active: 'Active', created: 'Created' };

/** Put a text input's value into the record: the record converts it (age to an int) and tracks the change. */
export function setText(record: User, field: TextField, text: string): void {
  if (field === 'age') record.set('age', text.trim() === '' ? null : Number(text));
  else record.set(field, field === 'email' ? text.trim() : text);
}

/** A new user, at the top of the grid. */
export function addUser(): User | undefined {
  return users.insert(0, { name: '', email: '', age: null, active: true, created: new Date() })[0];
}

/**
 * The catch of every load the page starts (first page, paging, sorting, reload). A load that a
 * newer one replaced (a second click, or React's StrictMode running an effect twice) rejects
 * with `error.superseded`: it is not a failure, and the store's snapshot never shows it. Any
 * other failure is the snapshot's `error`, which the page shows above the grid.
 */
export function loadFailed(error: unknown): void {
  if (error instanceof ProxyError && error.superseded) return;
  console.warn('rest-proxy example: a load failed;', error);
}
