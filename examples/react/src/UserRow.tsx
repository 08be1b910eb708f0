import { memo } from 'react';
import { useRecord } from 'rest-proxy/react';
import { LABELS, setText, type TextField, type User } from '../../shared/users.js';
import { TextInput } from './TextInput.js';

interface UserRowProps {
  record: User;
  selected: boolean;
  onSelect: (record: User) => void;
  onDelete: (record: User) => void;
}

/** One user. `memo` + `useRecord`: a row renders again only when its own record changes. */
export const UserRow = memo(function UserRow({ record, selected, onSelect, onDelete }: UserRowProps) {
  const user = useRecord(record);
  const who = user.phantom ? 'new user' : `user ${user.getId()}`;

  function cell(field: TextField, type: 'text' | 'email' | 'number') {
    const errors = user.errors[field];
    // A new row is marked as a whole; its cells are not "edited" against anything saved.
    const edited = !user.phantom && user.isModified(field);
    return (
      <td className={`cell-${field}${edited ? ' is-dirty' : ''}${errors ? ' is-invalid' : ''}`} data-label={LABELS[field]}>
        <TextInput
          type={type}
          data-field={field}
          aria-label={`${LABELS[field]} of ${who}`}
          aria-invalid={errors ? true : undefined}
          value={String(user.get(field) ?? '')}
          onCommit={(text) => setText(record, field, text)}
        />
        <span className="cell-note">{errors && `${LABELS[field]} ${errors.join(', ')}`}</span>
      </td>
    );
  }

  return (
    <tr data-id={user.phantom ? '' : String(user.getId())} className={`${user.phantom ? 'is-new' : ''}${selected ? ' is-selected' : ''}`}>
      <td className="cell-id" data-label="ID">
        <button type="button" className="link" aria-label={`Show ${who}`} aria-pressed={selected} onClick={() => onSelect(record)}>
          {user.phantom ? <span className="tag-new">new</span> : user.getId()}
        </button>
      </td>
      {cell('name', 'text')}
      {cell('email', 'email')}
      {cell('age', 'number')}
      <td className="cell-active" data-label="Active">
        <input type="checkbox" data-field="active" aria-label={`Active of ${who}`} checked={user.get('active')} onChange={(event) => record.set('active', event.target.checked)} />
      </td>
      <td className="cell-actions">
        <button type="button" className="delete" aria-label={`Delete ${who}`} onClick={() => onDelete(record)}>
          Delete
        </button>
      </td>
    </tr>
  );
});
