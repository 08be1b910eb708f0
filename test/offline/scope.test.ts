/**
 * Whose writes an outbox holds (API.md 10, `scope` and `codec`): on a shared device, one user's
 * offline writes are never sent with the next user's credentials; they stay stored until their
 * user signs in again, or `Outbox.clear` erases them. With a codec no field value is stored in
 * the clear. Against the test server on 127.0.0.1; a reload is a new model class and outbox over
 * the same storage.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStorage, Outbox, type OutboxCodec } from '../../src/offline.js';
import { joinTabs } from '../../src/offline/tabs.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { attached, closeAll, opened, ReopenableStorage, requestsOf, rowsOf } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [] } });
});

afterEach(async () => {
  await closeAll();
  await server.close();
});

/** The app as signed in by `user`: its proxy sends the user's token. */
function signIn(user: string, storage: MemoryStorage, options: { codec?: OutboxCodec } = {}) {
  return attached(server, { storage, scope: user, proxy: { headers: { Authorization: `Bearer ${user}` } }, ...options });
}

/** Sign out: the outbox closed (its entries stay stored). */
async function signOut(outbox: Outbox): Promise<void> {
  await outbox.close();
  opened.splice(opened.indexOf(outbox), 1);
}

/** The creates the server was sent: the token and the uid. */
const posted = () => requestsOf(server, 'POST').map((request) => [request.headers['authorization'], String(Reflect.get(Object(request.json), 'uid'))]);

const offline = () => server.inject({ type: 'reset-before', match: { method: 'POST' }, times: 1000 });

describe('scope', () => {
  it("never sends user A's offline writes with user B's credentials; A's go out when A signs in again", async () => {
    const storage = new ReopenableStorage();
    const alice = await signIn('alice', storage);
    offline();
    await Promise.allSettled([new alice.Item({ uid: 'a1', name: 'secret 1', rev: 0 }).save(), new alice.Item({ uid: 'a2', name: 'secret 2', rev: 0 }).save()]);
    expect(alice.outbox.getSnapshot()).toMatchObject({ pending: 2, otherScopes: 0 });
    await signOut(alice.outbox);
    server.reset();

    const bob = await signIn('bob', storage);
    expect(bob.outbox.getSnapshot()).toMatchObject({ pending: 0, failed: 0, otherScopes: 2 });
    expect(bob.outbox.failed).toEqual([]);
    await new bob.Item({ uid: 'b1', name: 'bob', rev: 0 }).save();
    await bob.outbox.flush();
    expect(posted()).toEqual([['Bearer bob', 'b1']]);
    expect((await storage.load()).map((entry) => entry['scope'])).toEqual(['alice', 'alice']);
    await signOut(bob.outbox);

    const again = await signIn('alice', storage);
    await again.outbox.flush();
    expect(posted()).toEqual([['Bearer bob', 'b1'], ['Bearer alice', 'a1'], ['Bearer alice', 'a2']]);
    expect(again.outbox.getSnapshot()).toMatchObject({ pending: 0, otherScopes: 0 });
    expect(rowsOf(server).map((row) => row['uid'])).toEqual(['b1', 'a1', 'a2']);
  });

  it("Outbox.clear erases one scope's entries durably and leaves the others'", async () => {
    const storage = new ReopenableStorage();
    offline();
    for (const user of ['alice', 'bob']) {
      const app = await signIn(user, storage);
      await new app.Item({ uid: user, name: user, rev: 0 }).save().catch(() => undefined);
      await signOut(app.outbox);
    }
    await Outbox.clear(storage, { name: 'test', scope: 'alice' });
    expect((await storage.load()).map((entry) => entry['scope'])).toEqual(['bob']);
    const alice = await signIn('alice', storage);
    expect(alice.outbox.getSnapshot()).toMatchObject({ pending: 0, otherScopes: 1 });
  });

  it('the entries of an outbox without a scope are those of the scope "" (stored before scopes existed too)', async () => {
    const storage = new ReopenableStorage();
    await storage.commit({ put: [{ id: 'old', v: 1, entity: 'items', clientId: 'c1', action: 'create', rid: null, values: { uid: 'old', name: 'old', rev: 0 }, before: {}, parents: [], key: 'k1', etag: null, seq: 1, attempts: 0, next: 0, phase: 'queued', sent: false, error: null, at: 1, tab: null }] });
    const signedIn = await signIn('alice', storage);
    expect(signedIn.outbox.getSnapshot()).toMatchObject({ pending: 0, otherScopes: 1 });
    await signOut(signedIn.outbox);
    const anonymous = await attached(server, { storage });
    await anonymous.outbox.flush();
    expect(rowsOf(server).map((row) => row['uid'])).toEqual(['old']);
  });

  it('refuses a scope that is not a string, and a codec without encode and decode', async () => {
    const { Item } = await attached(server);
    await closeAll();
    const make = (config: object) => () => Reflect.construct(Outbox, [{ name: 'x', storage: new MemoryStorage(), models: [Item], ...config }]);
    expect(make({ scope: 7 })).toThrow(new TypeError("Outbox: scope must be a string (whose writes these are, e.g. the signed-in user's id), got number"));
    expect(make({ codec: {} })).toThrow(new TypeError('Outbox: codec must be { encode(values), decode(text) }'));
  });
});

/** A reversible codec for the test (an app would use AES-GCM): base64 of the JSON, reversed. */
const codec: OutboxCodec = {
  encode: async (values) => Buffer.from(JSON.stringify(values)).toString('base64').split('').reverse().join(''),
  decode: async (text) => JSON.parse(Buffer.from(text.split('').reverse().join(''), 'base64').toString()),
};

describe('codec', () => {
  it('stores no field value in the clear, and replays the values after a reload', async () => {
    const storage = new ReopenableStorage();
    const first = await signIn('alice', storage, { codec });
    offline();
    const record = new first.Item({ uid: 'u1', name: 'top secret', rev: 0 });
    await record.save().catch(() => undefined);
    const stored = JSON.stringify(await storage.load());
    expect(stored).not.toContain('top secret');
    expect(stored).not.toContain('u1');
    expect(stored).toContain('"scope":"alice"');
    await signOut(first.outbox);
    server.reset();
    const second = await signIn('alice', storage, { codec });
    await second.outbox.flush();
    expect(rowsOf(server)).toEqual([expect.objectContaining({ uid: 'u1', name: 'top secret' })]);
  });

  it('an entry the codec cannot open (another key) is failed, kept, never sent', async () => {
    const storage = new ReopenableStorage();
    const first = await signIn('alice', storage, { codec });
    offline();
    await new first.Item({ uid: 'u1', name: 'top secret', rev: 0 }).save().catch(() => undefined);
    await signOut(first.outbox);
    server.reset();
    const wrongKey: OutboxCodec = { encode: codec.encode, decode: () => Promise.reject(new Error('the key does not open it')) };
    const second = await signIn('alice', storage, { codec: wrongKey });
    await second.outbox.flush();
    expect(second.outbox.getSnapshot()).toMatchObject({ pending: 0, failed: 1 });
    expect(requestsOf(server, 'POST')).toEqual([]);
    expect(await storage.load()).toHaveLength(1);
  });
});

describe('codec, between tabs', () => {
  const tabs = Outbox.tabs;
  afterEach(() => {
    Outbox.tabs = tabs;
  });

  it('tells the other tabs no field value in the clear: what crosses the BroadcastChannel is sealed as stored', async () => {
    Outbox.tabs = (name) => joinTabs(name, { channel: BroadcastChannel, locks: null, heartbeat: 40 });
    const heard: string[] = [];
    const ear = new BroadcastChannel('rest-proxy-outbox:test');
    ear.onmessage = (event: MessageEvent) => heard.push(JSON.stringify(event.data));
    try {
      const first = await signIn('alice', new ReopenableStorage(), { codec });
      offline();
      await new first.Item({ uid: 'u1', name: 'top secret', rev: 0 }).save().catch(() => undefined);
      for (let i = 0; i < 100 && !heard.some((message) => message.includes('"put"')); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      const puts = heard.filter((message) => message.includes('"put"'));
      expect(puts.length).toBeGreaterThan(0);
      for (const message of puts) {
        expect(message).not.toContain('top secret');
        expect(message).toContain('"sealed"');
      }
    } finally {
      ear.close();
    }
  });
});
