/**
 * Django (test/server django-rest convention, shared/reference/django-rest-behaviour.md) answers a
 * path without its trailing slash with a 301. fetch follows it: a POST becomes a GET (nothing is
 * created), but a PUT, PATCH or DELETE is sent again, with its body, to the new url, and is
 * applied there. AjaxProxy.processResponse fails every redirected write (kind 'http', as the
 * contract says) with the message "fetch turns a redirected PUT into a GET, so the update was
 * not applied": false for PUT and DELETE, whose change the server did apply. The message now
 * says what happened, and the error says the write may have been applied.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

describe('AjaxProxy: a redirected PUT or DELETE (fetch re-sends it, and the server applies it)', () => {
  it('a PUT redirected by a 301 must not be reported as "not applied" when the server applied it', async () => {
    const User = defineUser();
    const ed = new User({ id: 1, name: 'Ed', email: 'ed@example.com', age: 30 });
    ed.set('age', 31);
    const error = await rejection(ed.save());
    expect(error.kind).toBe('http');
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['PUT /users/1', 'PUT /users/1/']);
    expect(server.db.users[0]?.age).toBe(31); // applied
    expect(error.message).not.toMatch(/into a GET|was not applied/);
    expect(error.message).toMatch(/may have been applied.*trailingSlash: true/);
    expect(error.mayHaveBeenApplied).toBe(true);
    expect(ed.dirty).toBe(true);
  });

  it('a DELETE redirected by a 301 must not be reported as "not applied" when the server applied it', async () => {
    const User = defineUser();
    const ed = new User({ id: 1, name: 'Ed', email: 'ed@example.com', age: 30 });
    const error = await rejection(ed.destroy());
    expect(error.kind).toBe('http');
    expect(server.db.users).toEqual([]); // applied
    expect(error.message).not.toMatch(/into a GET|was not applied/);
  });
});
