/**
 * The app of the production-build test (test/build/production.test.ts): what a user's app does
 * with the package, written as a user writes it (`from 'rest-proxy'`, `import 'rest-proxy/presets'`),
 * then bundled by esbuild --minify and by Vite's production build and run in Node and in Chromium.
 *
 * Its model classes are deliberately NOT named like their resources (`LocalUser` for `/users`):
 * a minifier renames classes, so anything on the wire or in a message that came from a class name
 * would differ in production. One model sets `entityName`, which must then be used instead.
 */
import { Model, ProxyError, ServerProxy, Store, presetNames, type FieldDeclaration, type PresetName, type ProxySpec, type RequestHookContext } from 'rest-proxy';
// The built-in presets register themselves where this entry is imported (its one side effect).
import 'rest-proxy/presets';

/** One run of the scenario: a preset against a server that speaks its conventions. */
export interface Job {
  preset: PresetName;
  /** 'http://127.0.0.1:PORT', no trailing slash */
  url: string;
}

/** A request as the proxy handed it to fetch (its onRequest hook). */
export interface Sent {
  method: string;
  /** path and query, without the origin */
  path: string;
  body: string | null;
}

/** A failure as the app's user sees it. */
export interface Failure {
  name: string;
  kind: string | null;
  status: number | null;
  message: string;
  fieldErrors: Record<string, string[]> | null;
}

/** What the app saw, step by step; `failure` names the step that threw unexpectedly. */
export interface Report {
  preset: string;
  /** the runtime `.name` of the model classes: minified, they are not the source names */
  classNames: { user: string; category: string; account: string };
  /** the runtime `.name` of the library's ServerProxy class */
  serverProxyClassName: string;
  /** the names the models go by in messages and client ids */
  entityNames: { user: string; category: string; account: string };
  /** what rest-proxy/presets registered */
  presets: string[];
  page?: { ids: unknown[]; names: unknown[]; total: number };
  created?: { clientId: string; id: unknown; phantom: boolean; errors: unknown };
  updated?: { id: unknown; age: unknown; dirty: boolean };
  destroyed?: { id: unknown; erased: boolean; storeCount: number };
  notFound?: Failure;
  /** a create without the required name (not for json-server, which validates nothing) */
  invalid?: Failure & { recordErrors: unknown; phantom: boolean };
  /** rails only: a create with an empty body, refused 400 (the message names the root key) */
  emptyRoot?: Failure;
  /** client-side refusals, whose messages name the model */
  saveDestroyed?: Failure;
  reloadNew?: Failure;
  accountReloadNew?: Failure;
  /**
   * Mistakes a user makes, refused before anything is sent: their messages must not name a class
   * either (minified, it would be a letter). `serverProxy`: a bare ServerProxy (which cannot send)
   * given as the proxy; `recordAsId`: a record passed to load() instead of its id.
   */
  misuse?: { serverProxy: Failure; recordAsId: Failure };
  category?: { clientId: string; id: unknown; phantom: boolean };
  account?: { clientId: string; id: unknown; phantom: boolean };
  sent: Sent[];
  failure?: { step: string; error: Failure };
}

interface UserData {
  id: number;
  name: string;
  email: string;
  age: number;
}

interface CategoryData {
  id: number;
  title: string;
}

const USER_FIELDS: readonly FieldDeclaration[] = [{ name: 'id', type: 'int' }, 'name', 'email', { name: 'age', type: 'int' }];

const PRESETS: readonly PresetName[] = ['json-server', 'django-rest', 'rails', 'laravel', 'spring-data-rest', 'json-api'];

function describeFailure(error: unknown): Failure {
  if (error instanceof ProxyError) {
    return { name: error.name, kind: error.kind, status: error.status, message: error.message, fieldErrors: error.fieldErrors ?? null };
  }
  if (error instanceof Error) return { name: error.name, kind: null, status: null, message: error.message, fieldErrors: null };
  return { name: typeof error, kind: null, status: null, message: String(error), fieldErrors: null };
}

/** The failure of something expected to fail (a sync throw or a rejection); a success is reported as such. */
async function failureOf(attempt: () => unknown): Promise<Failure> {
  try {
    await attempt();
  } catch (error) {
    return describeFailure(error);
  }
  return { name: 'none', kind: null, status: null, message: 'it did not fail', fieldErrors: null };
}

export async function runScenario({ preset, url }: Job): Promise<Report> {
  const sent: Sent[] = [];
  const onRequest = ({ url: target, init }: RequestHookContext): void => {
    const parsed = new URL(target);
    sent.push({ method: init.method ?? 'GET', path: parsed.pathname + parsed.search, body: typeof init.body === 'string' ? init.body : null });
  };
  const proxyOf = (resource: string) => ({ type: 'rest', url: `${url}/${resource}`, preset, retry: 0, onRequest }) satisfies ProxySpec<'rest'>;

  class LocalUser extends Model<UserData> {
    static override fields = USER_FIELDS;
    static override proxy = proxyOf('users');
  }
  class LocalCategory extends Model<CategoryData> {
    static override fields = [{ name: 'id', type: 'int' }, 'title'];
    static override proxy = proxyOf('categories');
  }
  /** The same resource, under a name of the app's choosing. */
  class AdminAccount extends Model<UserData> {
    static override entityName = 'User';
    static override fields = USER_FIELDS;
    static override proxy = proxyOf('users');
  }

  const report: Report = {
    preset,
    classNames: { user: LocalUser.name, category: LocalCategory.name, account: AdminAccount.name },
    serverProxyClassName: ServerProxy.name,
    entityNames: { user: LocalUser.getEntityName(), category: LocalCategory.getEntityName(), account: AdminAccount.getEntityName() },
    presets: presetNames(),
    sent,
  };

  let step = 'load';
  try {
    // A page sorted by name DESC then age ASC, filtered on name = 'Ed', through a Store.
    const store = new Store({
      model: LocalUser,
      pageSize: 2,
      remoteSort: true,
      remoteFilter: true,
      sorters: [{ property: 'name', direction: 'DESC' }, { property: 'age', direction: 'ASC' }],
      filters: [{ property: 'name', value: 'Ed' }],
    });
    const page = await store.loadPage(1);
    report.page = { ids: page.map((record) => record.getId()), names: page.map((record) => record.get('name')), total: store.getTotalCount() };

    step = 'create';
    const zed = new LocalUser({ name: 'Zed', email: 'zed@example.com', age: 41 });
    const clientId = zed.clientId;
    await zed.save();
    report.created = { clientId, id: zed.getId(), phantom: zed.phantom, errors: zed.errors };

    step = 'update';
    zed.set('age', 42);
    await zed.save();
    report.updated = { id: zed.getId(), age: zed.get('age'), dirty: zed.dirty };

    step = 'destroy';
    const other = store.getAt(1);
    if (other === undefined) throw new Error(`the page has no second record (it has ${store.getCount()})`);
    await other.destroy();
    report.destroyed = { id: other.getId(), erased: other.erased, storeCount: store.getCount() };

    step = 'not found';
    report.notFound = await failureOf(() => LocalUser.load(999));

    if (preset !== 'json-server') {
      step = 'invalid';
      const nameless = new LocalUser({ email: 'nameless@example.com', age: 5 });
      const error = await failureOf(() => nameless.save());
      report.invalid = { ...error, recordErrors: nameless.errors, phantom: nameless.phantom };
    }
    if (preset === 'rails') {
      step = 'empty root';
      report.emptyRoot = await failureOf(() => new LocalCategory({}).save());
    }

    step = 'client-side refusals';
    report.saveDestroyed = await failureOf(() => other.save());
    report.reloadNew = await failureOf(() => new LocalUser({ name: 'New' }).reload());
    report.accountReloadNew = await failureOf(() => new AdminAccount({ name: 'New' }).reload());

    step = 'misuse';
    report.misuse = {
      serverProxy: await failureOf(() => LocalUser.load(1, { proxy: new ServerProxy({ url: `${url}/users` }) })),
      recordAsId: await failureOf(() => LocalUser.load(zed)),
    };

    step = 'category';
    const tools = new LocalCategory({ title: 'Tools' });
    const categoryClientId = tools.clientId;
    await tools.save();
    report.category = { clientId: categoryClientId, id: tools.getId(), phantom: tools.phantom };

    step = 'account';
    const root = new AdminAccount({ name: 'Root', email: 'root@example.com', age: 50 });
    const accountClientId = root.clientId;
    await root.save();
    report.account = { clientId: accountClientId, id: root.getId(), phantom: root.phantom };
  } catch (error) {
    report.failure = { step, error: describeFailure(error) };
  }
  return report;
}

/** The jobs out of their JSON text (argv in Node, the page's hash in the browser). */
export function parseJobs(text: string): Job[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new TypeError('the jobs must be an array');
  return parsed.map((item: unknown) => {
    if (typeof item !== 'object' || item === null) throw new TypeError(`a job must be an object, got ${JSON.stringify(item)}`);
    const url = 'url' in item ? item.url : undefined;
    const preset = 'preset' in item ? item.preset : undefined;
    if (typeof url !== 'string') throw new TypeError(`a job needs a url, got ${JSON.stringify(item)}`);
    const name = PRESETS.find((candidate) => candidate === preset);
    if (name === undefined) throw new TypeError(`unknown preset ${JSON.stringify(preset)}`);
    return { preset: name, url };
  });
}

/** Every job in turn (each has its own server). */
export async function runAll(jobs: readonly Job[]): Promise<Report[]> {
  const reports: Report[] = [];
  for (const job of jobs) reports.push(await runScenario(job));
  return reports;
}
