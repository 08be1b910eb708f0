import { useCallback, useEffect, useState, type Dispatch, type SetStateAction } from 'react';
import { userMessage } from 'rest-proxy';
import { useStore } from 'rest-proxy/react';
import { addUser, LABELS, loadFailed, users, type User, type UserData } from '../../shared/users.js';
import { UserRow } from './UserRow.js';

const SORTABLE: readonly (keyof UserData)[] = ['id', 'name', 'email', 'age', 'active'];

interface UsersGridProps {
  selected: User | undefined;
  setSelected: Dispatch<SetStateAction<User | undefined>>;
}

/** The users, a page at a time: sort by a header, edit in place, add, delete, then Save or Revert. */
export function UsersGrid({ selected, setSelected }: UsersGridProps) {
  const { records, loading, syncing, hasChanges, error, page, pageCount, total, sorters } = useStore(users);
  const [status, setStatus] = useState('');

  useEffect(() => {
    // Under StrictMode React runs this twice in development: the second load supersedes the
    // first, which rejects with `superseded` (loadFailed ignores it) and changes nothing.
    users.loadPage(1).catch(loadFailed);
  }, []);

  const goTo = (target: number) => users.loadPage(Math.min(Math.max(1, target), pageCount)).catch(loadFailed);

  async function save() {
    setStatus('Saving…');
    try {
      const batch = await users.sync();
      setStatus(`Saved (${batch.operations.length} request${batch.operations.length === 1 ? '' : 's'}).`);
    } catch {
      // The error shows above the grid (the snapshot's `error`), the field errors on their rows.
      setStatus('Not saved: your changes are kept. Fix them and Save again, or Revert.');
    }
  }

  function revert() {
    users.rejectChanges();
    if (selected?.phantom) setSelected(undefined); // a new user is gone
    setStatus('Reverted.');
  }

  // The same function at every render, so that the rows (memo) do not render again for it.
  const remove = useCallback(
    (record: User) => {
      users.remove(record);
      setSelected((current) => (current === record ? undefined : current));
    },
    [setSelected],
  );

  const sorter = sorters[0];
  return (
    <section className="panel users" aria-labelledby="users-heading">
      <div className="panel-head">
        <h2 id="users-heading">Users</h2>
        <p className={hasChanges ? 'pending has-changes' : 'pending'}>{hasChanges ? 'Unsaved changes' : 'No unsaved changes'}</p>
      </div>
      <div className="toolbar">
        <div className="actions">
          <button type="button" onClick={() => { setSelected(addUser()); setStatus('A new row is at the top: fill it in, then Save.'); }}>
            Add user
          </button>
          <button type="button" className="primary" disabled={syncing || !hasChanges} onClick={() => void save()}>
            {syncing ? 'Saving…' : 'Save'}
          </button>
          <button type="button" disabled={syncing || !hasChanges} onClick={revert}>
            Revert
          </button>
          <button type="button" onClick={() => users.load().catch(loadFailed)}>
            Reload
          </button>
        </div>
      </div>
      <div className="messages">
        {/* A sentence for the user: the error's message, with urls and statuses, is for developers. */}
        <div className={error ? 'alert has-error' : 'alert'} role="alert">
          {userMessage(error)}
        </div>
        <p className="status" role="status">
          {status}
        </p>
      </div>
      <div className="table-wrap">
        <table className={loading ? 'grid is-loading' : 'grid'} aria-busy={loading} aria-labelledby="users-heading">
          <thead>
            <tr>
              {SORTABLE.map((field) => (
                <th key={field} scope="col" data-field={field} aria-sort={sorter?.property !== field ? undefined : sorter.direction === 'DESC' ? 'descending' : 'ascending'}>
                  <button type="button" className="sort" onClick={() => users.sort(field).catch(loadFailed)}>
                    {LABELS[field]}
                    <span className="sort-icon" aria-hidden="true" />
                  </button>
                </th>
              ))}
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {records.map((record) => (
              <UserRow key={record.clientId} record={record} selected={record === selected} onSelect={setSelected} onDelete={remove} />
            ))}
            {records.length === 0 && (
              <tr className="empty">
                <td colSpan={SORTABLE.length + 1}>{loading ? 'Loading…' : 'No users.'}</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Pages of users">
        <button type="button" disabled={page <= 1} onClick={() => goTo(1)}>« First</button>
        <button type="button" disabled={page <= 1} onClick={() => goTo(page - 1)}>‹ Previous</button>
        <span className="page-info">Page {page} of {pageCount}</span>
        <button type="button" disabled={page >= pageCount} onClick={() => goTo(page + 1)}>Next ›</button>
        <button type="button" disabled={page >= pageCount} onClick={() => goTo(pageCount)}>Last »</button>
        <span className="total">{total} users</span>
      </nav>
    </section>
  );
}
