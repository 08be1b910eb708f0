import { useState } from 'react';
import type { User } from '../../shared/users.js';
import { UserDetail } from './UserDetail.js';
import { UsersGrid } from './UsersGrid.js';

export function App() {
  const [selected, setSelected] = useState<User>();
  return (
    <>
      <header className="page-header">
        <h1>
          rest-proxy <span className="muted">with React</span>
        </h1>
        <p>
          The demo's grid written with <code>useStore</code> and <code>useRecord</code> from <code>rest-proxy/react</code>, over
          the demo's json-server at <code>/api/users</code>.
        </p>
      </header>
      <main className="layout">
        <UsersGrid selected={selected} setSelected={setSelected} />
        <aside className="side">
          <section className="panel" aria-labelledby="detail-heading">
            <h2 id="detail-heading">Details</h2>
            {selected === undefined ? <p className="help">Select a user (its ID) to see it here.</p> : <UserDetail key={selected.clientId} record={selected} />}
          </section>
        </aside>
      </main>
    </>
  );
}
