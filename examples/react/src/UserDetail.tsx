import { useState } from 'react';
import { userMessage } from 'rest-proxy';
import { useRecord } from 'rest-proxy/react';
import { LABELS, setText, User, type TextField } from '../../shared/users.js';
import { TextInput } from './TextInput.js';

/**
 * A form on one record. It shows the store's own record, so it follows every change of it: an
 * edit in the grid, a save, a store reload that brings the server's new values.
 */
export function UserDetail({ record }: { record: User }) {
  // The model class checks that this is a User (a TypeError otherwise).
  const user = useRecord(record, User);
  const [status, setStatus] = useState('');

  async function save() {
    try {
      await record.save();
      setStatus('Saved.');
    } catch (error) {
      // 'Some fields need attention.' for a 422: the fields show the server's messages.
      setStatus(`Not saved: ${userMessage(error)}`);
    }
  }

  function field(name: TextField, type: 'text' | 'email' | 'number') {
    const errors = user.errors[name];
    return (
      <p className="detail-field">
        <label htmlFor={`detail-${name}`}>{LABELS[name]}</label>
        <TextInput id={`detail-${name}`} type={type} value={String(user.get(name) ?? '')} aria-invalid={errors ? true : undefined} onCommit={(text) => setText(record, name, text)} />
        {errors && <span className="cell-note">{errors.join(', ')}</span>}
      </p>
    );
  }

  return (
    <form className="detail" aria-label="The selected user" onSubmit={(event) => { event.preventDefault(); void save(); }}>
      <p className="detail-state">
        {user.phantom ? 'New user' : `User ${user.getId()}`}
        {user.dirty && ', unsaved changes'}
        {user.saving && ', saving…'}
      </p>
      {field('name', 'text')}
      {field('email', 'email')}
      {field('age', 'number')}
      <p className="detail-field">
        <label>
          <input type="checkbox" checked={user.get('active')} onChange={(event) => record.set('active', event.target.checked)} /> {LABELS.active}
        </label>
      </p>
      <p className="help">Created {user.get('created').toLocaleDateString()}</p>
      <div className="actions">
        <button type="submit" className="primary" disabled={!user.dirty || user.saving}>Save this user</button>
        <button type="button" disabled={!user.dirty || user.saving} onClick={() => { record.reject(); setStatus(''); }}>Revert this user</button>
      </div>
      <p className="status" role="status">{status}</p>
    </form>
  );
}
