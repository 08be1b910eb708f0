/** What the row and the detail form do with their inputs. */
import { setText, type TextField, type User } from '../../shared/users.js';

/** The text inputs, in order. */
export const FIELDS: readonly { field: TextField; type: 'text' | 'email' | 'number' }[] = [
  { field: 'name', type: 'text' },
  { field: 'email', type: 'email' },
  { field: 'age', type: 'number' },
];

/** The user left a text input after changing it: the record takes the text. */
export function commitText(record: User, field: TextField, event: Event): void {
  if (event.target instanceof HTMLInputElement) setText(record, field, event.target.value);
}

/** The Active checkbox changed. */
export function setActive(record: User, event: Event): void {
  if (event.target instanceof HTMLInputElement) record.set('active', event.target.checked);
}
