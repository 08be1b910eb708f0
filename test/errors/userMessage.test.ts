/**
 * userMessage(error): the sentence a page shows its user for a failed load, save or sync, against
 * a real server. The error's message keeps the developer's details (url, status, hints); the
 * sentence has none of them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BatchError, Model, ProxyError, Store, userMessage } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';

type UserData = { id: number; name: string; email: string };

let server: TestServer;

beforeAll(async () => {
  const users = [
    { id: 1, name: 'Ed', email: 'ed@example.com' },
    { id: 2, name: 'Tommy', email: 'tommy@example.com' },
  ];
  server = await startTestServer({ resources: { users }, required: { users: ['name'] } });
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.reset();
});

function userClass(config: Record<string, unknown> = {}) {
  return class User extends Model<UserData> {
    static override fields = ['id', 'name', 'email'];
    static override proxy = { type: 'rest', url: `${server.url}/users`, retry: 0, ...config };
  };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

/** A failed save of user 2 renamed to `name`; the server may be told to answer otherwise first. */
async function saveFailure(name: string, config: Record<string, unknown> = {}): Promise<ProxyError> {
  const User = userClass(config);
  const user = await User.load(2);
  user.set('name', name);
  const error = await failureOf(user.save());
  if (!(error instanceof ProxyError)) throw error;
  return error;
}

describe('userMessage', () => {
  it("a 422: 'Some fields need attention.', while the message keeps the developer's hint", async () => {
    const error = await saveFailure('');
    expect(error.message).toContain('record.errors');
    expect(userMessage(error)).toBe('Some fields need attention.');
  });

  it('a server that cannot be reached, and one that does not answer in time', async () => {
    const closed = await startTestServer({ resources: { users: [] } });
    const url = closed.url;
    await closed.close();
    const User = class extends userClass() {
      static override proxy = { type: 'rest', url: `${url}/users`, retry: 0 };
    };
    const network = await failureOf(User.load(1));
    expect(network).toBeInstanceOf(ProxyError);
    expect(userMessage(network)).toBe('Could not reach the server.');

    server.inject({ type: 'stall', ms: 2_000, match: { method: 'PUT' } });
    const timeout = await saveFailure('Tom', { timeout: 100 });
    expect(timeout.kind).toBe('timeout');
    expect(userMessage(timeout)).toBe('The server did not answer in time.');
  });

  it('a 412 (ETag): someone else changed this record', async () => {
    const User = userClass({ etag: true });
    const mine = await User.load(2);
    const theirs = await userClass({ etag: true }).load(2);
    theirs.set('name', 'Thomas');
    await theirs.save();
    mine.set('name', 'Tom');
    const error = await failureOf(mine.save());
    expect(error).toMatchObject({ kind: 'conflict' });
    expect(userMessage(error)).toBe('Someone else changed this record.');
  });

  it.each([
    [401, 'Please sign in again.'],
    [403, 'You are not allowed to do this.'],
    [404, 'Not found: it may have been deleted.'],
    [429, 'The server is unavailable. Try again later.'],
    [503, 'The server is unavailable. Try again later.'],
    [400, 'The server refused the request.'],
  ])('an answer %i: %s', async (status, text) => {
    server.inject({ type: 'status', status, body: { message: 'stack trace at Db.query (db.js:12)' }, match: { method: 'GET' } });
    const error = await failureOf(userClass().load(1));
    expect(error).toMatchObject({ kind: 'http', status });
    expect(userMessage(error)).toBe(text);
    expect(userMessage(error)).not.toContain('Db.query');
  });

  it('an answer that cannot be used (HTML, success: false) and a request that cannot be built', async () => {
    server.inject({ type: 'html', status: 200, match: { method: 'GET' } });
    const html = await failureOf(userClass().load(1));
    expect(html).toMatchObject({ kind: 'parse' });
    expect(userMessage(html)).toBe('The server could not do it.');

    server.respond('GET', '/users/1', { status: 200, body: { success: false, message: 'Quota exceeded' } }, { times: 1 });
    const refused = await failureOf(userClass({ reader: { rootProperty: 'data' } }).load(1));
    expect(refused).toMatchObject({ kind: 'server' });
    expect(userMessage(refused)).toBe('The server could not do it.');

    const noUrl = await failureOf(userClass({ url: `${server.url}/users/{teamId}` }).load(1));
    expect(noUrl).toMatchObject({ kind: 'config' });
    expect(userMessage(noUrl)).toBe('Something went wrong.');
  });

  it("a sync: its first failure that is not a field's, else 'Some fields need attention.'", async () => {
    const User = userClass();
    const store = new Store({ model: User });
    await store.load();
    store.getById(1)?.set('name', '');
    store.getById(2)?.set('name', 'Tom');
    server.inject({ type: 'status', status: 503, match: { method: 'PUT', path: '/users/2' } });
    const both = await failureOf(store.sync());
    expect(both).toBeInstanceOf(BatchError);
    expect(userMessage(both)).toBe('The server is unavailable. Try again later.');
    expect(userMessage(store.getSnapshot().error)).toBe('The server is unavailable. Try again later.');

    const fields = await failureOf(store.sync());
    expect(fields).toMatchObject({ kind: 'batch', errors: [{ kind: 'validation' }] });
    expect(userMessage(fields)).toBe('Some fields need attention.');
    expect(store.getById(1)?.errors).toEqual({ name: ['is required'] });
  });

  it("nothing to show: no error, or a load that a newer one superseded; 'Cancelled.' for one the app aborted", async () => {
    const store = new Store({ model: userClass() });
    const first = failureOf(store.load());
    await store.load();
    const superseded = await first;
    expect(superseded).toMatchObject({ kind: 'abort', superseded: true });
    expect(userMessage(superseded)).toBe('');
    expect(userMessage(store.getSnapshot().error)).toBe('');
    expect(userMessage(undefined)).toBe('');

    const controller = new AbortController();
    const aborted = failureOf(store.load({ signal: controller.signal }));
    controller.abort();
    expect(userMessage(await aborted)).toBe('Cancelled.');
  });

  it('anything that is not a ProxyError is "Something went wrong.", never its own message', () => {
    expect(userMessage(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe('Something went wrong.');
    expect(userMessage('a string')).toBe('Something went wrong.');
  });

  it('takes other sentences (another language), and falls back to its own for the rest', async () => {
    const error = await saveFailure('');
    const texts = { validation: 'Certains champs sont à revoir.' };
    expect(userMessage(error, texts)).toBe('Certains champs sont à revoir.');
    expect(userMessage(new Error('x'), texts)).toBe('Something went wrong.');
    expect(userMessage(undefined, texts)).toBe('');
  });

  it("kind 'dependency' says what its cause says, through any depth (a grandchild's cause is its parent's 'dependency' error)", () => {
    const root = new ProxyError('http', 'POST /users failed: 403 Forbidden', { status: 403 });
    const child = new ProxyError('dependency', 'create of posts-2 not sent: it waits for users-1, whose write failed', { cause: root });
    const grandchild = new ProxyError('dependency', 'create of comments-3 not sent: it waits for posts-2, whose write failed', { cause: child });
    expect(userMessage(grandchild)).toBe('You are not allowed to do this.');
    expect(grandchild.mayHaveBeenApplied).toBe(false);
    expect(userMessage(new ProxyError('dependency', 'create of posts-2 not sent'))).toBe('Something went wrong.');
  });
});
