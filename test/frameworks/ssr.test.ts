/**
 * Server rendering (API.md section 13) with React's renderToString in Node, against a real server
 * on 127.0.0.1: one store per request loads and renders, `dehydrate()` goes into the page, and the
 * browser's store made from `initialState` shows the same rows at once and fetches nothing within
 * `staleTime`, autoLoad and a subscriber (useStore) included.
 */
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Model, RestProxy, Store, type StoreState } from '../../src/index.js';
import { useStore } from '../../src/react.js';
import { startTestServer, type TestServer } from '../server/index.js';

interface UserData {
  id: number;
  name: string;
}

class User extends Model<UserData> {
  static override entityName = 'User';
  static override fields = [{ name: 'id', type: 'int' }, 'name'];
}

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { users: [{ id: 1, name: 'Ann' }, { id: 2, name: 'Ben' }] } });
});

afterEach(async () => {
  await server.close();
});

function Users({ store }: { store: Store<User> }): ReturnType<typeof h> {
  const snapshot = useStore(store);
  return h('ul', { 'aria-busy': snapshot.loading }, snapshot.records.map((record) => h('li', { key: record.clientId }, record.get('name'))));
}

/** What a server does per request: its own store, loaded, rendered, and its state for the page. */
async function renderRequest(): Promise<{ html: string; state: StoreState }> {
  const store = new Store<User>({ model: User, proxy: new RestProxy({ url: `${server.url}/users` }) });
  await store.load();
  return { html: renderToString(h(Users, { store })), state: JSON.parse(JSON.stringify(store.dehydrate())) as StoreState };
}

it('renders on the server, and the store hydrated from its state renders the same without a fetch within staleTime', async () => {
  const { html, state } = await renderRequest();
  expect(html).toBe('<ul aria-busy="false"><li>Ann</li><li>Ben</li></ul>');
  const browser = new Store<User>({ model: User, proxy: new RestProxy({ url: `${server.url}/users` }), initialState: state, staleTime: 60_000, autoLoad: true });
  expect(renderToString(h(Users, { store: browser }))).toBe(html);
  const stop = browser.subscribe(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(server.requests.filter((request) => request.method === 'GET')).toHaveLength(1);
  stop();
});

it('two requests get two stores: one user never sees what the other loaded', async () => {
  const first = await renderRequest();
  server.db.users?.push({ id: 3, name: 'Cy' });
  const second = await renderRequest();
  expect(first.state.rows).toHaveLength(2);
  expect(second.state.rows).toHaveLength(3);
});
