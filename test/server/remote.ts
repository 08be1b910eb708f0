/**
 * startTestServer for the browser run (vitest.browser.config.ts aliases '../server/index.js' here):
 * the same TestServer interface, backed by a real server that the hub (hub.ts) runs in Node.
 * Every call is a synchronous XMLHttpRequest, so `db`, `requests` and `stats` stay plain getters
 * and a fault is in place before the test's next request leaves.
 * Limits: `db` is a copy (changes made through it are written back to the server, but a copy
 * read earlier does not follow later requests); a function given to `respond()` runs in the hub
 * and must be self-contained (see hub.ts).
 */
import { inject } from 'vitest';
import { encode, reviver, type HubAnswer, type HubCall, type HubResults } from './hubProtocol.js';
import type { Db, DbOf, RecordedRequest, ScriptedRoute, TestServer, TestServerOptions } from './types.js';

export type * from './types.js';

function call<K extends HubCall['op']>(request: Extract<HubCall, { op: K }>): HubResults[K] {
  const hub = inject('testServerHub');
  if (typeof hub !== 'string') throw new Error('no test server hub: the browser suites run with vitest.browser.config.ts');
  const xhr = new XMLHttpRequest();
  xhr.open('POST', hub, false);
  xhr.setRequestHeader('Content-Type', 'text/plain');
  xhr.send(encode(request));
  const answer: HubAnswer<K> = JSON.parse(xhr.responseText, reviver());
  if ('error' in answer) throw new Error(`test server hub, ${request.op}: ${answer.error}`);
  return answer.value;
}

/**
 * The db copy: any change to a collection (push, splice, a row's field) sends that whole
 * collection back to the server. Proxies are cached so `db.users[0] === db.users[0]`.
 */
const MUTATORS = new Set(['push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin']);

function writeThrough(id: number, db: Db): Db {
  const proxies = new WeakMap<object, object>();
  const save = (collection: string): void => {
    const rows = db[collection];
    // A splice deletes and moves rows one trap at a time: a state with holes is not a db; the
    // splice's last step (setting the length) sends the whole collection as it ends.
    if (rows !== undefined && Object.keys(rows).length !== rows.length) return;
    call({ op: 'setRows', id, collection, rows: rows ?? null });
  };
  function watch(target: object, collection: string): object {
    const proxy =
      proxies.get(target) ??
      new Proxy(target, {
        get(object, key) {
          const value: unknown = Reflect.get(object, key);
          // An array's own mutators (push(...1000 rows), splice) change the copy, then send it once,
          // not once per element they set.
          if (Array.isArray(object) && typeof key === 'string' && MUTATORS.has(key) && typeof value === 'function') {
            return (...args: unknown[]): unknown => {
              const result: unknown = Reflect.apply(value, object, args);
              save(collection);
              return result;
            };
          }
          return typeof value === 'object' && value !== null ? watch(value, collection) : value;
        },
        set(object, key, value) {
          const done = Reflect.set(object, key, value);
          save(collection);
          return done;
        },
        deleteProperty(object, key) {
          const done = Reflect.deleteProperty(object, key);
          save(collection);
          return done;
        },
      });
    proxies.set(target, proxy);
    return proxy;
  }
  return new Proxy(db, {
    get(object, key) {
      const value = Reflect.get(object, key);
      return typeof key === 'string' && Array.isArray(value) ? watch(value, key) : value;
    },
    set(object, key, value) {
      const done = Reflect.set(object, key, value);
      if (typeof key === 'string') save(key);
      return done;
    },
    deleteProperty(object, key) {
      const done = Reflect.deleteProperty(object, key);
      if (typeof key === 'string') save(key);
      return done;
    },
  });
}

/** JSON drops `json: undefined`; the Node server's records always have the key. */
function toRecorded({ query, ...request }: HubResults['requests'][number]): RecordedRequest {
  return { ...request, json: request.json, query: new URLSearchParams(query) };
}

export async function startTestServer<R extends object = Db>(options: TestServerOptions<R> = {}): Promise<TestServer<R>> {
  const { id, url } = call({ op: 'start', options });
  return {
    url,
    get db() {
      // The same widening as the Node server's `store.db as DbOf<R>`.
      return writeThrough(id, call({ op: 'db', id })) as DbOf<R>;
    },
    get requests() {
      return call({ op: 'requests', id }).map(toRecorded);
    },
    get stats() {
      return call({ op: 'stats', id });
    },
    inject(fault) {
      call({ op: 'inject', id, fault });
      return fault;
    },
    respond(method, path, answer, respondOptions) {
      const { route } = call({ op: 'respond', id, method, path, answer, times: respondOptions?.times });
      const scripted: ScriptedRoute = {
        method: method.toUpperCase(),
        path,
        get calls() {
          return call({ op: 'routeCalls', id, route });
        },
        remove: () => void call({ op: 'removeRoute', id, route }),
      };
      return scripted;
    },
    chaos(chaosOptions) {
      call({ op: 'chaos', id, options: chaosOptions });
    },
    reset() {
      call({ op: 'reset', id });
    },
    close() {
      call({ op: 'close', id });
      return Promise.resolve();
    },
  };
}
