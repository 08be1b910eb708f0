/**
 * ProxyError (API.md section 7): every kind, messages that name the verb, the url and the
 * status, the parsed body, and validation bodies of every shape understood by default.
 */
import { describe, expect, it } from 'vitest';
import { Model, Operation, ProxyError, Request as ProxyRequest, RestProxy } from '../../src/index.js';
import { recordingFetch, type Answer, type Responder } from '../helpers/recordingFetch.js';
import { neverAnswer, proxyErrorOf } from '../helpers/proxyTestKit.js';
import { inBrowser } from '../helpers/inBrowser.js';

class User extends Model<{ id: number; name: string; email: string }> {
  static override fields = ['id', 'name', 'email'];
}

type RestConfig = NonNullable<ConstructorParameters<typeof RestProxy>[0]>;

function proxyWith(respond: Responder, config: RestConfig = {}): RestProxy {
  return new RestProxy({ url: 'http://api.test/users', model: User, fetch: recordingFetch(respond), retry: 0, ...config });
}

function edited(): User {
  const user = new User({ id: 2, name: 'Ed', email: 'ed@example.com' });
  user.set('name', '');
  return user;
}

/** Send an update of user 2 answered with `answer`; return the error and the record. */
async function failUpdate(answer: Answer): Promise<{ error: ProxyError; user: User; operation: Operation }> {
  const user = edited();
  const operation = new Operation({ action: 'update', records: [user] });
  const error = await proxyErrorOf(proxyWith(() => answer).update(operation));
  return { error, user, operation };
}

describe("ProxyError kind 'http'", () => {
  it('PUT /users/2 failed: 500 Internal Server Error, with status, statusText, response, body, operation and request', async () => {
    const { error, operation } = await failUpdate({ status: 500, body: { message: 'boom' } });
    expect(error).toBeInstanceOf(ProxyError);
    expect(error).toBeInstanceOf(Error);
    expect(error.kind).toBe('http');
    expect(error.status).toBe(500);
    expect(error.statusText).toBe('Internal Server Error');
    expect(error.message).toContain('PUT');
    expect(error.message).toContain('/users/2');
    expect(error.message).toContain('500 Internal Server Error');
    expect(error.message.indexOf('PUT')).toBeLessThan(error.message.indexOf('500'));
    expect(error.response).toBeInstanceOf(Response);
    expect(error.response?.status).toBe(500);
    expect(error.operation).toBe(operation);
    expect(error.request).toBeInstanceOf(ProxyRequest);
    expect(operation.error).toBe(error);
  });

  it('Ext pitfall 23 fixed: the error body is parsed and kept', async () => {
    const { error } = await failUpdate({ status: 500, body: { message: 'boom', code: 17 } });
    expect(error.body).toEqual({ message: 'boom', code: 17 });
  });

  it('GET /users/99 failed: 404 Not Found', async () => {
    const error = await proxyErrorOf(proxyWith(() => ({ status: 404, body: { message: 'Not found' } })).read(new Operation({ action: 'read', id: 99 })));
    expect(error.kind).toBe('http');
    expect(error.status).toBe(404);
    expect(error.message).toContain('GET');
    expect(error.message).toContain('/users/99');
    expect(error.message).toContain('404');
  });

  it('a DELETE failure names DELETE', async () => {
    const error = await proxyErrorOf(
      proxyWith(() => ({ status: 503, body: '' })).destroy(new Operation({ action: 'destroy', records: [new User({ id: 5, name: 'x', email: 'y' })] })),
    );
    expect(error.kind).toBe('http');
    expect(error.message).toContain('DELETE');
    expect(error.message).toContain('/users/5');
    expect(error.message).toContain('503');
  });

  it('an HTML error page is kind http with its status', async () => {
    const html = '<html><body><h1>502 Bad Gateway</h1></body></html>';
    const error = await proxyErrorOf(
      proxyWith(() => ({ status: 502, statusText: 'Bad Gateway', headers: { 'content-type': 'text/html' }, body: html })).read(new Operation({ action: 'read' })),
    );
    expect(error.kind).toBe('http');
    expect(error.status).toBe(502);
    expect(error.message).toContain('502');
  });

  it('a 400 without field errors is kind http', async () => {
    for (const body of [{ message: 'Bad request' }, { detail: 'Malformed query' }, { name: ['is required'], count: 3 }, 'plain text']) {
      const { error } = await failUpdate({ status: 400, body });
      expect(error.kind, JSON.stringify(body)).toBe('http');
      expect(error.status).toBe(400);
    }
  });
});

describe("ProxyError kind 'validation'", () => {
  const shapes: Array<{ title: string; status: number; body: unknown; fieldErrors: Record<string, string[]> }> = [
    { title: '{ errors: { field: msg } }', status: 422, body: { errors: { name: 'is required' } }, fieldErrors: { name: ['is required'] } },
    {
      title: '{ errors: { field: msg[] } }',
      status: 422,
      body: { errors: { name: ['is required', 'is too short'], email: ['is invalid'] } },
      fieldErrors: { name: ['is required', 'is too short'], email: ['is invalid'] },
    },
    {
      title: '{ message, errors: { field: msg[] } } (Laravel)',
      status: 422,
      body: { message: 'The name field is required.', errors: { name: ['The name field is required.'] } },
      fieldErrors: { name: ['The name field is required.'] },
    },
    { title: '{ field: msg[] } with 422 (Rails)', status: 422, body: { name: ["can't be blank"] }, fieldErrors: { name: ["can't be blank"] } },
    {
      title: '{ field: msg[] } with 400 (Django REST)',
      status: 400,
      body: { name: ['This field is required.'], email: ['Enter a valid email address.'] },
      fieldErrors: { name: ['This field is required.'], email: ['Enter a valid email address.'] },
    },
    {
      title: 'JSON:API { errors: [{ source: { pointer }, detail }] }',
      status: 422,
      body: {
        errors: [
          { status: '422', source: { pointer: '/data/attributes/name' }, detail: "can't be blank" },
          { status: '422', source: { pointer: '/data/attributes/email' }, detail: 'is invalid' },
        ],
      },
      fieldErrors: { name: ["can't be blank"], email: ['is invalid'] },
    },
  ];

  for (const shape of shapes) {
    it(`understands ${shape.title}, and puts the field errors on the record`, async () => {
      const { error, user } = await failUpdate({ status: shape.status, body: shape.body });
      expect(error.kind).toBe('validation');
      expect(error.status).toBe(shape.status);
      expect(error.fieldErrors).toEqual(shape.fieldErrors);
      expect(user.errors).toEqual(shape.fieldErrors);
      expect(error.message).toContain('PUT');
      expect(error.message).toContain('/users/2');
      expect(error.message).toContain(String(shape.status));
    });
  }

  it('a failed validation leaves the record unchanged: still dirty with its edit', async () => {
    const { user } = await failUpdate({ status: 422, body: { errors: { name: ['is required'] } } });
    expect(user.dirty).toBe(true);
    expect(user.get('name')).toBe('');
    expect(user.isModified('name')).toBe(true);
  });

  it('a 422 on a create leaves the record phantom, with its errors', async () => {
    const user = new User({ name: '', email: 'x' });
    const error = await proxyErrorOf(
      proxyWith(() => ({ status: 422, body: { errors: { name: ['is required'] } } })).create(new Operation({ action: 'create', records: [user] })),
    );
    expect(error.kind).toBe('validation');
    expect(error.message).toContain('POST');
    expect(user.phantom).toBe(true);
    expect(user.errors).toEqual({ name: ['is required'] });
  });
});

describe("ProxyError kind 'conflict'", () => {
  for (const status of [409, 412]) {
    it(`${status} gives a conflict`, async () => {
      const { error, user } = await failUpdate({ status, body: { id: 2, name: 'Someone else', email: 'other@x' } });
      expect(error.kind).toBe('conflict');
      expect(error.status).toBe(status);
      expect(error.message).toContain('PUT');
      expect(error.message).toContain(String(status));
      expect(user.dirty).toBe(true);
    });
  }
});

describe('ProxyError kinds without a usable answer', () => {
  it("'network': fetch rejected; status 0, no response; the message names verb and url", async () => {
    const error = await proxyErrorOf(proxyWith(() => new TypeError('fetch failed')).read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('network');
    expect(error.status).toBe(0);
    expect(error.response).toBeUndefined();
    expect(error.message).toContain('GET');
    expect(error.message).toContain('/users');
  });

  it("'timeout': status 0; the message names verb and url", async () => {
    const error = await proxyErrorOf(proxyWith(neverAnswer, { timeout: 30 }).read(new Operation({ action: 'read', id: 4 })));
    expect(error.kind).toBe('timeout');
    expect(error.status).toBe(0);
    expect(error.message).toContain('GET');
    expect(error.message).toContain('/users/4');
  });

  it("'abort': cancelled by the caller's signal", async () => {
    const controller = new AbortController();
    const pending = proxyWith(neverAnswer).read(new Operation({ action: 'read', signal: controller.signal }));
    setTimeout(() => controller.abort(), 10);
    const error = await proxyErrorOf(pending);
    expect(error.kind).toBe('abort');
  });

  it("'parse': a 200 that is not JSON; the status is kept", async () => {
    const error = await proxyErrorOf(proxyWith(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '[{"id":1,' })).read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('parse');
    expect(error.status).toBe(200);
    expect(error.message).toContain('GET');
  });

  it("'server': success false, with the server's message and the verb", async () => {
    // An envelope (records under rootProperty) says success: false; a record's own field never does.
    const error = await proxyErrorOf(proxyWith(() => ({ status: 200, body: { success: false, message: 'Locked by admin' } }), { reader: { rootProperty: 'data' } }).read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('server');
    expect(error.message).toContain('Locked by admin');
    expect(error.message).toContain('GET');
  });

  it("'server': a create answered with no id at all (no id in the body, no Location header); the record stays phantom", async () => {
    const user = new User({ name: 'Ed', email: 'e' });
    const error = await proxyErrorOf(proxyWith(() => ({ status: 201, body: { name: 'Ed', email: 'e' } })).create(new Operation({ action: 'create', records: [user] })));
    expect(error.kind).toBe('server');
    expect(user.phantom).toBe(true);
    expect(user.getId()).toBeUndefined();
  });

  it("'server' too for a create answered 204 without a Location header", async () => {
    const user = new User({ name: 'Ed', email: 'e' });
    const error = await proxyErrorOf(proxyWith(() => ({ status: 204 })).create(new Operation({ action: 'create', records: [user] })));
    expect(error.kind).toBe('server');
    expect(user.phantom).toBe(true);
  });
});

describe("ProxyError kind 'config'", () => {
  it('no url', async () => {
    const proxy = new RestProxy({ model: User, fetch: recordingFetch(), retry: 0 });
    const error = await proxyErrorOf(proxy.read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('config');
    expect(error.status).toBe(0);
  });

  // A page always has a location to resolve a relative url against, and it cannot be removed.
  it.skipIf(inBrowser)('a relative url with no base', async () => {
    const error = await proxyErrorOf(proxyWith(() => ({ body: [] }), { url: 'users' }).read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('config');
    expect(error.message).toMatch(/absolute/i);
  });

  it('a missing template value, named', async () => {
    const error = await proxyErrorOf(proxyWith(() => ({ body: [] }), { url: 'http://api.test/orgs/{orgId}/users' }).read(new Operation({ action: 'read' })));
    expect(error.kind).toBe('config');
    expect(error.message).toContain('orgId');
  });
});
