/**
 * Django (test/server django-rest convention, shared/reference/django-rest-behaviour.md) answers a
 * path without its trailing slash with a 301. Writes never follow redirects (the contract: every
 * method but GET is sent with `redirect: 'manual'`): fetch would re-send a PUT or DELETE, with its
 * body and headers, to wherever the Location points (another origin included), and turn a POST
 * into a GET. So the write fails with kind 'http', nothing reaches the new url, nothing is
 * applied, and the message says which url to configure. Reads follow redirects as fetch does.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// The built-in presets are registered where they are imported, as in an app.
import '../../src/presets.js';
import { Model, RestProxy } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { proxyErrorOf as rejection } from '../helpers/proxyTestKit.js';

interface UserData {
  id: number;
  name: string;
  email: string;
  age: number;
}

let server: TestServer<{ users: UserData[] }>;

beforeEach(async () => {
  server = await startTestServer({ conventions: 'django-rest', resources: { users: [{ id: 1, name: 'Ed', email: 'ed@example.com', age: 30 }] } });
});

afterEach(async () => {
  await server.close();
});

function defineUser() {
  // No preset: trailingSlash is false, as in the contract's redirect case.
  const proxy = new RestProxy({ url: `${server.url}/users`, retry: 0 });
  class User extends Model<UserData> {
    static override fields = ['id', 'name', 'email', 'age'];
    static override proxy = proxy;
  }
  return User;
}

describe('AjaxProxy: a redirected write is not followed; a read is', () => {
  it('a PUT answered 301 is not sent again: nothing is applied, the record keeps its edit, and the message says to set trailingSlash', async () => {
    const User = defineUser();
    const ed = new User({ id: 1, name: 'Ed', email: 'ed@example.com', age: 30 });
    ed.set('age', 31);
    const error = await rejection(ed.save());
    expect(error.kind).toBe('http');
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['PUT /users/1']);
    expect(server.db.users[0]?.age).toBe(30); // not applied
    expect(error.message).toMatch(/redirect/);
    expect(error.message).toMatch(/nothing was applied/);
    // A browser's manual redirect is opaque (no status, no Location): the fix cannot be named there.
    // In a browser the redirect is opaque (no Location): the message still names the likely fix.
    expect(error.message).toMatch(/trailingSlash: true/);
    expect(error.mayHaveBeenApplied).toBe(false);
    expect(ed.dirty).toBe(true);
    expect(ed.get('age')).toBe(31);
  });

  it('a DELETE answered 301 is not sent again: the record stays on the server and in place', async () => {
    const User = defineUser();
    const ed = new User({ id: 1, name: 'Ed', email: 'ed@example.com', age: 30 });
    const error = await rejection(ed.destroy());
    expect(error.kind).toBe('http');
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['DELETE /users/1']);
    expect(server.db.users).toHaveLength(1);
    expect(ed.erased).toBe(false);
  });

  it('a GET answered 301 is followed, as fetch does', async () => {
    const User = defineUser();
    const ed = await User.load(1);
    expect(ed.get('name')).toBe('Ed');
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /users/1', 'GET /users/1/']);
  });
});
