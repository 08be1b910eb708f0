/**
 * Identical GETs in flight share one request only when nothing that can carry credentials
 * differs (API.md section 2): they are compared after the onRequest hooks ran (url and every
 * header), and never when a custom fetch is given unless `shareReads: true` says that it adds no
 * per-call credentials. Server rendering: one proxy per process, two visitors at once, each
 * with its own credentials from Node's AsyncLocalStorage.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Model, RestProxy, type FetchFunction, type RestProxyConfig } from '../../src/index.js';
import { startTestServer, type RecordedRequest, type TestServer } from '../server/index.js';
import { requestsOf } from './helpers.js';

interface Visitor {
  token: string;
}

const visitor = new AsyncLocalStorage<Visitor>();
const PEOPLE: Record<string, string> = { alice: 'Alice', bob: 'Bob' };

let server: TestServer;

/** Who asked: the bearer token, else the session cookie. */
function credentialOf(req: RecordedRequest): string {
  const bearer = /^Bearer (\w+)$/.exec(req.headers['authorization'] ?? '')?.[1];
  return bearer ?? /(?:^|;\s*)session=(\w+)/.exec(req.headers['cookie'] ?? '')?.[1] ?? '';
}

beforeEach(async () => {
  server = await startTestServer();
  // A private page: each visitor's own data, slow enough that both GETs are in flight together.
  server.respond('GET', '/me/1', (req) => {
    const name = PEOPLE[credentialOf(req)];
    return name === undefined ? { status: 401, body: { message: 'who are you?' } } : { status: 200, body: { id: 1, name }, delayMs: 150 };
  });
});

afterEach(async () => {
  await server.close();
});

function meModel(config: RestProxyConfig): typeof Model<{ id: number; name: string }> {
  return class Me extends Model<{ id: number; name: string }> {
    static override fields = ['id', 'name'];
    static override proxy = new RestProxy({ url: `${server.url}/me`, retry: 0, ...config });
  };
}

/** The visitor's token, as the docs advise for tokens. */
const bearer: RestProxyConfig['onRequest'] = ({ init }) => {
  init.headers.set('Authorization', `Bearer ${visitor.getStore()?.token ?? ''}`);
};

/** A custom fetch that forwards the visitor's cookie, as an SSR app does. */
const forwardingCookie: FetchFunction = (url, init) => {
  const headers = new Headers(init.headers);
  headers.set('Cookie', `session=${visitor.getStore()?.token ?? ''}`);
  return fetch(url, { ...init, headers });
};

/** Two visitors render at once; what each page shows. */
async function render(Me: ReturnType<typeof meModel>, tokens: [string, string] = ['alice', 'bob']): Promise<string[]> {
  const page = (token: string): Promise<string> => visitor.run({ token }, async () => (await Me.load(1)).get('name'));
  return Promise.all(tokens.map(page));
}

describe('two server-rendered visitors at once', () => {
  it('a token set by onRequest from the visitor: each sees their own data, the server sees two GETs', async () => {
    const shown = await render(meModel({ onRequest: bearer }));
    expect(shown).toEqual(['Alice', 'Bob']);
    expect(requestsOf(server, 'GET', '/me/1').map(credentialOf)).toEqual(['alice', 'bob']);
  });

  it('a custom fetch forwarding the visitor\'s cookie: each sees their own data, the server sees two GETs', async () => {
    const shown = await render(meModel({ fetch: forwardingCookie }));
    expect(shown).toEqual(['Alice', 'Bob']);
    expect(requestsOf(server, 'GET', '/me/1').map(credentialOf).sort()).toEqual(['alice', 'bob']);
  });
});

describe('sharing still happens when it is safe', () => {
  it('the same visitor twice (the same token after onRequest): one GET', async () => {
    const shown = await render(meModel({ onRequest: bearer }), ['alice', 'alice']);
    expect(shown).toEqual(['Alice', 'Alice']);
    expect(requestsOf(server, 'GET', '/me/1')).toHaveLength(1);
  });

  it('a custom fetch that adds no per-call credentials, with shareReads: true: one GET', async () => {
    const plain: FetchFunction = (url, init) => fetch(url, init);
    const Me = meModel({ fetch: plain, shareReads: true, headers: { Authorization: 'Bearer alice' } });
    expect(await render(Me)).toEqual(['Alice', 'Alice']);
    expect(requestsOf(server, 'GET', '/me/1')).toHaveLength(1);
  });

  it('a custom fetch without shareReads: never shared, even when the calls look identical', async () => {
    const plain: FetchFunction = (url, init) => fetch(url, init);
    const Me = meModel({ fetch: plain, headers: { Authorization: 'Bearer alice' } });
    expect(await render(Me)).toEqual(['Alice', 'Alice']);
    expect(requestsOf(server, 'GET', '/me/1')).toHaveLength(2);
  });

  it('shareReads: false turns sharing off with the global fetch too', async () => {
    const Me = meModel({ shareReads: false, headers: { Authorization: 'Bearer alice' } });
    expect(await render(Me)).toEqual(['Alice', 'Alice']);
    expect(requestsOf(server, 'GET', '/me/1')).toHaveLength(2);
  });

  it('a header that differs after onRequest (a trace id per call) is never shared', async () => {
    let trace = 0;
    const Me = meModel({
      headers: { Authorization: 'Bearer alice' },
      onRequest: ({ init }) => {
        init.headers.set('X-Trace', String(++trace));
      },
    });
    expect(await render(Me)).toEqual(['Alice', 'Alice']);
    expect(requestsOf(server, 'GET', '/me/1')).toHaveLength(2);
  });
});
