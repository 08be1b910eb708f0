import { Store, type FieldName, type SorterOf } from '../../src/index.js';
import { IndexedDBStorage, ReadCache } from '../../src/offline.js';
import { byId, debounce } from './dom.js';
import { mountFreshness, STALE_TIME } from './freshness.js';
import { UserGrid } from './grid.js';
import { LogPanel } from './logPanel.js';
import { OfflineControls } from './offline.js';
import { Messages, isAbort } from './messages.js';
import { Pager } from './pager.js';
import { PostsPanel, type PostCounts } from './postsPanel.js';
import { requestLog } from './requestLog.js';
import { mountSummary } from './summaryLine.js';
import { getFailWrites, resetData, setFailWrites } from './serverControls.js';
import { renderUrlMap } from './urlMap.js';
import { User } from './User.js';
import { userProxyConfig, type ProxySettings } from './userProxy.js';

// ---- the store: paged, sorted and filtered by the server; fresh for 30 s ------------------------

// The last page read is kept (IndexedDB): after a reload it is shown at once, offline too, marked
// stale until the server confirms it (a 304 to its ETag) or sends what changed.
const reads = new ReadCache({ storage: new IndexedDBStorage({ name: 'rest-proxy-demo-reads' }), scope: 'demo' });
reads.on('error', (event) => messages.error('The read cache:', event.error));
// The page is restored only for the same query: the sort is kept across reloads too.
const SORT_KEY = 'rest-proxy-demo:sort';
const store = new Store<User>({ model: User, pageSize: 20, remoteSort: true, remoteFilter: true, staleTime: STALE_TIME, sorters: savedSort(), persist: { cache: reads, key: 'users' } });
store.on('load', () => localStorage.setItem(SORT_KEY, JSON.stringify(store.sorters.map(({ property, direction }) => ({ property, direction })))));

function savedSort(): SorterOf<User>[] {
  let saved: unknown;
  try {
    saved = JSON.parse(localStorage.getItem(SORT_KEY) ?? '[]');
  } catch {
    return [];
  }
  const fields: readonly FieldName<User>[] = ['id', 'name', 'email', 'age', 'active', 'created'];
  return (Array.isArray(saved) ? saved : []).flatMap((sorter: unknown): SorterOf<User>[] => {
    if (typeof sorter !== 'object' || sorter === null) return [];
    const property: unknown = Reflect.get(sorter, 'property');
    const direction: unknown = Reflect.get(sorter, 'direction');
    const field = fields.find((name) => name === property);
    return field !== undefined && (direction === 'ASC' || direction === 'DESC') ? [{ property: field, direction }] : [];
  });
}

// ---- the page --------------------------------------------------------------------------------

const messages = new Messages(byId('error', HTMLElement), byId('status', HTMLElement), byId('dismiss', HTMLButtonElement));
const report = (lead: string, error: unknown): void => messages.error(lead, error);
const posts = new PostsPanel(byId('posts-panel', HTMLElement), report, () => updateToolbar());
const grid = new UserGrid(byId('users', HTMLTableElement), store, report, (user) => posts.show(user));
const pager = new Pager(byId('pager', HTMLElement), store, report);
mountSummary(byId('summary', HTMLElement), store);
mountFreshness(byId('freshness', HTMLElement), byId('users', HTMLTableElement), store);
new LogPanel(byId('log', HTMLOListElement), byId('log-clear', HTMLButtonElement), requestLog);

const filterInput = byId('filter', HTMLInputElement);
const addButton = byId('add', HTMLButtonElement);
const saveButton = byId('save', HTMLButtonElement);
const revertButton = byId('revert', HTMLButtonElement);
const pendingText = byId('pending', HTMLElement);
const batchSwitch = byId('batch', HTMLInputElement);
const formatSwitch = byId('format', HTMLInputElement);
const failSwitch = byId('fail', HTMLInputElement);
const resetButton = byId('reset', HTMLButtonElement);
const urlMap = byId('url-map', HTMLTableElement);

// The Offline switch: while the outbox is attached, Batch is off (the outbox sends each record on its own).
const offline = new OfflineControls(
  byId('offline', HTMLInputElement),
  byId('outbox', HTMLElement),
  report,
  (attached) => {
    batchSwitch.disabled = attached;
    if (attached) batchSwitch.checked = false;
    User.setProxy(userProxyConfig({ ...proxySettings(), patch: attached }));
    renderUrlMap(urlMap, store);
  },
  () => {
    messages.clearError();
    messages.status('Back online: the outbox sent what it kept.');
    load(() => store.load(), 'the page');
  },
);

let saving = false;

function pending(): { created: number; updated: number; destroyed: number; users: number; posts: PostCounts; total: number } {
  const created = store.getNewRecords().length;
  const updated = store.getUpdatedRecords().length;
  const destroyed = store.getRemovedRecords().length;
  const users = created + updated + destroyed;
  const postCounts = posts.pending();
  return { created, updated, destroyed, users, posts: postCounts, total: users + postCounts.created + postCounts.updated + postCounts.destroyed };
}

function describePending(counts: ReturnType<typeof pending>): string {
  const parts: string[] = [];
  const add = (n: number, what: string, of = ''): void => {
    if (n > 0) parts.push(`${n} ${what}${of === '' ? '' : ` ${of}${n === 1 ? '' : 's'}`}`);
  };
  add(counts.created, 'new');
  add(counts.updated, 'edited');
  add(counts.destroyed, 'deleted');
  add(counts.posts.created, 'new', 'post');
  add(counts.posts.updated, 'edited', 'post');
  add(counts.posts.destroyed, 'deleted', 'post');
  return parts.join(', ');
}

function updateToolbar(): void {
  const counts = pending();
  pendingText.textContent = counts.total === 0 ? 'No unsaved changes' : `Unsaved: ${describePending(counts)}`;
  pendingText.classList.toggle('has-changes', counts.total > 0);
  saveButton.disabled = saving || counts.total === 0;
  revertButton.disabled = saving || counts.total === 0;
  saveButton.textContent = saving ? 'Saving…' : 'Save';
}

function load(run: () => Promise<unknown>, what: string): void {
  run().catch((error: unknown) => {
    if (!isAbort(error)) report(`Could not load ${what}:`, error);
  });
}

// ---- the store's events drive the page -------------------------------------------------------

store.on('beforeload', () => grid.setBusy(true));
function emptyText(successful: boolean): string {
  const filter = filterInput.value.trim();
  if (!successful) return 'The users could not be loaded.';
  return filter === '' ? 'No users.' : `No user's name contains “${filter}”.`;
}

store.on('load', ({ successful }) => {
  grid.setBusy(false, emptyText(successful));
  grid.updateHeader();
  grid.render();
  pager.update();
  renderUrlMap(urlMap, store);
});
store.on('datachanged', () => {
  grid.render();
  updateToolbar();
});
store.on('update', ({ record }) => {
  grid.updateRow(record);
  if (record === posts.user) posts.render();
  updateToolbar();
});
store.on('remove', ({ records }) => {
  if (posts.user === undefined || !records.includes(posts.user)) return;
  grid.select(undefined);
  posts.show(undefined);
});

// ---- toolbar ---------------------------------------------------------------------------------

const applyFilter = debounce(300, (text: string) => {
  load(() => (text === '' ? store.clearFilter() : store.filter('name', text, 'like')), 'the filtered users');
});
filterInput.addEventListener('input', () => applyFilter(filterInput.value.trim()));

addButton.addEventListener('click', () => {
  const [record] = store.insert(0, { name: '', email: '', age: null, active: true, created: new Date() });
  if (record !== undefined) grid.focusField(record, 'name');
  messages.status('A new row is at the top: fill it in, then Save.');
});

saveButton.addEventListener('click', () => void save());

async function save(): Promise<void> {
  const counts = pending();
  if (counts.total === 0 || saving) return;
  saving = true;
  updateToolbar();
  messages.status(`Saving ${describePending(counts)}…`);
  try {
    // Users first: a new user's posts wait for its id (their userId is filled when it is created).
    let requests = counts.users === 0 ? 0 : (await store.sync()).operations.length;
    requests += await posts.sync();
    messages.clearError();
    messages.status(`Saved ${describePending(counts)} (${requests} request${requests === 1 ? '' : 's'}).`);
  } catch (error) {
    if (offline.keeps(error)) {
      messages.clearError();
      messages.status(`Offline: ${describePending(counts)} kept in the outbox, sent when the page is back online.`);
      return;
    }
    messages.error('Not saved:', error);
    messages.status('Your changes are kept (marked in the table): press Save to send them again, or Revert to drop them.');
  } finally {
    saving = false;
    grid.render();
    updateToolbar();
  }
}

revertButton.addEventListener('click', () => {
  const counts = pending();
  store.rejectChanges();
  posts.rejectChanges();
  messages.clearError();
  messages.status(`Reverted ${describePending(counts)}.`);
});

// ---- the switches ----------------------------------------------------------------------------

function proxySettings(): ProxySettings {
  return { batchActions: batchSwitch.checked, format: formatSwitch.checked };
}

function rebuildProxy(): void {
  const settings = proxySettings();
  User.setProxy(userProxyConfig({ ...settings, patch: offline.attached }));
  renderUrlMap(urlMap, store);
  messages.status(
    `Proxy rebuilt: ${settings.batchActions ? "preset 'json-server-with-batch', batchActions on" : "preset 'json-server'"}, ${settings.format ? "format 'json'" : 'no format'}.`,
  );
  load(() => store.load(), 'the page');
}
batchSwitch.addEventListener('change', rebuildProxy);
formatSwitch.addEventListener('change', rebuildProxy);

failSwitch.addEventListener('change', () => {
  const on = failSwitch.checked;
  setFailWrites(on).then(
    () => messages.status(on ? 'The server now answers 503 to every write. Reads still work.' : 'The server accepts writes again.'),
    (error: unknown) => {
      failSwitch.checked = !on;
      report('Could not reach the demo server:', error);
    },
  );
});

resetButton.addEventListener('click', () => {
  resetData().then(
    () => {
      messages.clearError();
      messages.status('The server has its 300 users back; unsaved changes were dropped.');
      posts.rejectChanges();
      const user = posts.user;
      if (user !== undefined && !user.phantom) load(() => user.posts().load(), 'the posts');
      load(() => store.load({ discardChanges: true }), 'the page');
    },
    (error: unknown) => report('Could not reset the data:', error),
  );
});

// ---- start -----------------------------------------------------------------------------------

batchSwitch.checked = false;
formatSwitch.checked = false;
updateToolbar();
renderUrlMap(urlMap, store);
getFailWrites().then(
  (on) => {
    failSwitch.checked = on;
  },
  () => undefined,
);
// The outbox first: what a reload left in it joins the store on its first load.
void offline.start().finally(() => load(() => store.loadPage(1), 'the users'));
