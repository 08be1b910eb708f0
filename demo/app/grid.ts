import type { Store } from '../../src/index.js';
import { h } from './dom.js';
import { isAbort } from './messages.js';
import type { User, UserData } from './User.js';

type EditableField = 'name' | 'email' | 'age' | 'active';

interface EditableColumn {
  field: EditableField;
  label: string;
  editor: 'text' | 'email' | 'number' | 'checkbox';
}
interface ReadOnlyColumn {
  field: 'id' | 'created';
  label: string;
  editor?: undefined;
}
type Column = EditableColumn | ReadOnlyColumn;

const COLUMNS: readonly Column[] = [
  { field: 'id', label: 'ID' },
  { field: 'name', label: 'Name', editor: 'text' },
  { field: 'email', label: 'Email', editor: 'email' },
  { field: 'age', label: 'Age', editor: 'number' },
  { field: 'active', label: 'Active', editor: 'checkbox' },
  { field: 'created', label: 'Created' },
];

/** Reports an error to the user (the page's alert region). */
export type Report = (lead: string, error: unknown) => void;

function who(record: User): string {
  return record.phantom ? 'new user' : `user ${String(record.getId())}`;
}

function formatValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return 'empty';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return String(value);
}

/** Put the input's value into the record (typed; a record converts and tracks the change). */
function applyInput(record: User, field: EditableField, input: HTMLInputElement): void {
  switch (field) {
    case 'name':
      record.set('name', input.value);
      break;
    case 'email':
      record.set('email', input.value.trim());
      break;
    case 'age': {
      if (input.validity.badInput) throw new RangeError('Age must be a whole number.');
      const age = input.value === '' ? null : Number(input.value);
      if (age !== null && !Number.isInteger(age)) throw new RangeError('Age must be a whole number.');
      record.set('age', age);
      break;
    }
    case 'active':
      record.set('active', input.checked);
      break;
  }
}

/** Show the record's value in the input. */
function showValue(record: User, field: EditableField, input: HTMLInputElement): void {
  if (field === 'active') {
    input.checked = record.get('active') === true;
    return;
  }
  const value = record.get(field);
  const text = value === null || value === undefined ? '' : String(value);
  if (input.value !== text) input.value = text;
}

interface Cell {
  td: HTMLTableCellElement;
  input: HTMLInputElement;
  note: HTMLElement;
  label: string;
}

/** One row of the grid, kept for as long as its record is shown, and updated in place. */
class RowView {
  readonly tr: HTMLTableRowElement;
  readonly deleteButton: HTMLButtonElement;
  readonly postsButton: HTMLButtonElement;
  readonly cells = new Map<EditableField, Cell>();
  readonly #idCell: HTMLTableCellElement;

  constructor(
    readonly record: User,
    onEdit: (row: RowView, field: EditableField, input: HTMLInputElement) => void,
    onDelete: (row: RowView) => void,
    onPosts: (row: RowView) => void,
  ) {
    this.tr = h('tr');
    this.#idCell = h('td', { class: 'cell-id', 'data-label': 'ID' });
    this.tr.append(this.#idCell);
    for (const column of COLUMNS) {
      if (column.field === 'id') continue;
      if (column.editor === undefined) {
        const created = record.get('created');
        const text = created instanceof Date ? created.toISOString().slice(0, 10) : '';
        this.tr.append(h('td', { class: 'cell-created', 'data-label': column.label }, h('time', { datetime: text }, text)));
        continue;
      }
      const input =
        column.editor === 'checkbox'
          ? h('input', { type: 'checkbox' })
          : column.editor === 'number'
            ? h('input', { type: 'number', min: 0, max: 150, step: 1, inputmode: 'numeric' })
            : h('input', { type: column.editor, autocomplete: 'off', spellcheck: 'false' });
      input.dataset.field = column.field;
      const field = column.field;
      input.addEventListener('change', () => onEdit(this, field, input));
      const note = h('span', { class: 'cell-note' });
      const td = h('td', { class: `cell-${field}`, 'data-label': column.label }, input, note);
      this.cells.set(field, { td, input, note, label: column.label });
      this.tr.append(td);
    }
    this.deleteButton = h('button', { type: 'button', class: 'delete' }, 'Delete');
    this.deleteButton.addEventListener('click', () => onDelete(this));
    this.postsButton = h('button', { type: 'button', class: 'posts-button', 'aria-pressed': 'false' }, 'Posts');
    this.postsButton.addEventListener('click', () => onPosts(this));
    this.tr.append(h('td', { class: 'cell-actions' }, this.postsButton, this.deleteButton));
    this.update();
  }

  /** Show the record's values and state: new row, edited cells, the server's field errors. */
  update(): void {
    const record = this.record;
    const name = record.get('name');
    this.tr.classList.toggle('is-new', record.phantom);
    this.tr.dataset.id = record.phantom ? '' : String(record.getId());
    this.#idCell.replaceChildren(record.phantom ? h('span', { class: 'tag-new' }, 'new') : String(record.getId()));
    this.deleteButton.setAttribute('aria-label', `Delete ${name ? `${name} (${who(record)})` : who(record)}`);
    this.postsButton.setAttribute('aria-label', `Posts of ${name ? `${name} (${who(record)})` : who(record)}`);
    const modified: Partial<UserData> = record.modified;
    for (const [field, cell] of this.cells) {
      // A new row is marked as a whole; its cells are not "edited" against anything saved.
      const dirty = !record.phantom && record.isModified(field);
      const errors = record.errors[field];
      cell.td.classList.toggle('is-dirty', dirty);
      cell.td.classList.toggle('is-invalid', errors !== undefined);
      cell.td.title = dirty ? `Edited, not saved (was: ${formatValue(modified[field])})` : '';
      cell.input.setAttribute('aria-label', `${cell.label} of ${who(record)}${dirty ? ' (edited, not saved)' : ''}`);
      if (errors === undefined) cell.input.removeAttribute('aria-invalid');
      else cell.input.setAttribute('aria-invalid', 'true');
      cell.note.textContent = errors === undefined ? '' : `${cell.label} ${errors.join(', ')}`;
      // Never overwrite what the user is typing.
      if (document.activeElement !== cell.input || field === 'active') showValue(record, field, cell.input);
    }
  }
}

/**
 * The users table: sortable headers (aria-sort), a row per record with inputs to edit it in
 * place, and a Delete button. Edits go into the records; the store keeps them until Save.
 */
export class UserGrid {
  readonly #thead: HTMLTableSectionElement;
  readonly #tbody: HTMLTableSectionElement;
  #rows = new Map<User, RowView>();
  #emptyText = 'Loading…';
  #selected: User | undefined;

  constructor(
    private readonly table: HTMLTableElement,
    private readonly store: Store<User>,
    private readonly report: Report,
    private readonly onPosts: (record: User) => void = () => undefined,
  ) {
    this.#thead = h('thead');
    this.#tbody = h('tbody');
    table.replaceChildren(this.#thead, this.#tbody);
    this.#buildHeader();
  }

  #buildHeader(): void {
    const row = h('tr');
    for (const column of COLUMNS) {
      const button = h('button', { type: 'button', class: 'sort' }, column.label, h('span', { class: 'sort-icon', 'aria-hidden': 'true' }));
      button.addEventListener('click', () => {
        this.store.sort(column.field).catch((error: unknown) => {
          if (!isAbort(error)) this.report(`Could not sort by ${column.label.toLowerCase()}:`, error);
        });
      });
      row.append(h('th', { scope: 'col', 'data-field': column.field }, button));
    }
    row.append(h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')));
    this.#thead.append(row);
    this.updateHeader();
  }

  /** aria-sort on the column the store is sorted by. */
  updateHeader(): void {
    const sorter = this.store.sorters[0];
    for (const th of this.#thead.querySelectorAll('th[data-field]')) {
      if (sorter !== undefined && th.getAttribute('data-field') === sorter.property) {
        th.setAttribute('aria-sort', sorter.direction === 'DESC' ? 'descending' : 'ascending');
      } else {
        th.removeAttribute('aria-sort');
      }
    }
  }

  /** Show the store's records. Rows of records already shown are kept (focus stays where it is). */
  render(): void {
    const records = this.store.getRange();
    const rows = new Map<User, RowView>();
    for (const record of records) {
      const row = this.#rows.get(record) ?? new RowView(record, (r, f, i) => this.#edit(r, f, i), (r) => this.#delete(r), (r) => this.select(r.record));
      row.update();
      row.tr.classList.toggle('is-selected', record === this.#selected);
      row.postsButton.setAttribute('aria-pressed', String(record === this.#selected));
      rows.set(record, row);
    }
    this.#rows = rows;
    const wanted: HTMLTableRowElement[] = [...rows.values()].map((row) => row.tr);
    if (wanted.length === 0) {
      wanted.push(h('tr', { class: 'empty' }, h('td', { colspan: COLUMNS.length + 1 }, this.#emptyText)));
    }
    const current = [...this.#tbody.children];
    if (current.length === wanted.length && current.every((tr, i) => tr === wanted[i])) return;
    const focused = document.activeElement;
    this.#tbody.replaceChildren(...wanted);
    if (focused instanceof HTMLElement && focused.isConnected && document.activeElement !== focused) focused.focus();
  }

  /** Mark a user's row as the one whose posts show, and tell the page. */
  select(record: User | undefined): void {
    this.#selected = record;
    for (const [user, row] of this.#rows) {
      row.tr.classList.toggle('is-selected', user === record);
      row.postsButton.setAttribute('aria-pressed', String(user === record));
    }
    if (record !== undefined) this.onPosts(record);
  }

  /** The record changed (an edit, a commit after a save, a reject). */
  updateRow(record: User): void {
    this.#rows.get(record)?.update();
  }

  setBusy(busy: boolean, emptyText?: string): void {
    this.table.setAttribute('aria-busy', String(busy));
    this.table.classList.toggle('is-loading', busy);
    if (emptyText !== undefined) this.#emptyText = emptyText;
  }

  /** Move the keyboard focus into a record's cell (after Add). */
  focusField(record: User, field: EditableField): void {
    this.#rows.get(record)?.cells.get(field)?.input.focus();
  }

  #edit(row: RowView, field: EditableField, input: HTMLInputElement): void {
    try {
      applyInput(row.record, field, input);
    } catch (error) {
      this.report(`The ${field} was not changed:`, error);
      showValue(row.record, field, input);
    }
    row.update();
  }

  #delete(row: RowView): void {
    const rows = [...this.#rows.values()];
    const index = rows.indexOf(row);
    this.store.remove(row.record);
    // Keep the keyboard user in the table: focus the Delete button of the row that took its place.
    const next = rows[index + 1] ?? rows[index - 1];
    if (next !== undefined && this.#rows.has(next.record)) next.deleteButton.focus();
  }
}
