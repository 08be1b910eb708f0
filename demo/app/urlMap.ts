import { Operation, RestProxy, type Store } from '../../src/index.js';
import { h } from './dom.js';
import { User } from './User.js';

interface Example {
  label: string;
  operation: Operation;
}

function readableQuery(params: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) parts.push(`${key}=${String(item)}`);
    }
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

function sample(id: number, name: string): User {
  return User.fromServer({ id, name, email: `${name.toLowerCase()}@example.com`, age: 30, active: true, created: '2024-01-01T00:00:00.000Z' });
}

/**
 * "What the proxy sends": for each kind of action, the verb and url the current proxy builds.
 * Made by the proxy itself (`buildRequest`, `getMethod`, the writer), so it follows the switches.
 */
export function renderUrlMap(table: HTMLTableElement, store: Store<User>): void {
  const proxy = User.getProxy();
  if (!(proxy instanceof RestProxy)) return;
  const ann = sample(7, 'Ann');
  const bob = sample(8, 'Bob');
  const fresh = (): User => new User({ name: 'New', email: 'new@example.com' });
  const examples: Example[] = [
    {
      label: 'Load this page',
      operation: new Operation({
        action: 'read',
        page: store.currentPage,
        limit: store.pageSize,
        sorters: store.sorters,
        filters: store.filters,
      }),
    },
    { label: 'User.load(7)', operation: new Operation({ action: 'read', id: 7 }) },
  ];
  if (proxy.batchActions) {
    examples.push(
      { label: 'Save 2 new', operation: new Operation({ action: 'create', records: [fresh(), fresh()] }) },
      { label: 'Save 2 edited', operation: new Operation({ action: 'update', records: [ann, bob] }) },
      { label: 'Save 2 deleted', operation: new Operation({ action: 'destroy', records: [ann, bob] }) },
    );
  } else {
    examples.push(
      { label: 'Save a new one', operation: new Operation({ action: 'create', records: [fresh()] }) },
      { label: 'Save an edit of 7', operation: new Operation({ action: 'update', records: [ann] }) },
      { label: 'Save a delete of 7', operation: new Operation({ action: 'destroy', records: [ann] }) },
    );
  }

  const body = h('tbody');
  for (const { label, operation } of examples) {
    const request = proxy.buildRequest(operation);
    request.method = proxy.getMethod(request);
    if (operation.action !== 'read') proxy.writer.write(request);
    const payload = request.jsonData;
    let note = '';
    if (Array.isArray(payload)) note = operation.action === 'destroy' ? ` body ${JSON.stringify(payload)}` : ` body [${payload.length} users]`;
    else if (payload !== undefined) note = ' body {user}';
    body.append(
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, label),
        h('td', {}, h('span', { class: `verb verb-${request.method.toLowerCase()}` }, request.method), ' ', h('code', {}, `${request.url ?? ''}${readableQuery(request.params)}`), note),
      ),
    );
  }
  if (!proxy.batchActions) {
    body.append(h('tr', {}, h('td', { colspan: 2, class: 'hint' }, 'Several edits: one request per record (4 at a time).')));
  }
  table.replaceChildren(body);
}
