/**
 * A batched create is matched to its records by the client id the server echoes. The writer sends
 * it under its own clientIdProperty before the model's, so the answer must be read under the same
 * name: with both set to different names, the answer (in another order than the records) was
 * read under the model's name, found none, and was matched by position: each record took the
 * other's id and name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Model, RestProxy, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the client id of a batched create', () => {
  it("is read from the answer under the name the writer sent it under (the writer's, before the model's)", async () => {
    server = await startTestServer({ resources: { users: [] } });
    const url = server.url;
    // The server stores the batch and answers it reversed, each item echoing the client id it was sent.
    server.respond('POST', '/users', (req) => {
      const items = JSON.parse(req.body) as Record<string, unknown>[];
      return { status: 201, body: items.map((item, i) => ({ id: 10 + i, name: item.name, wire: item.wire })).reverse() };
    });
    class User extends Model {
      static override fields = ['id', 'name'];
      static override clientIdProperty = 'cid';
      static override proxy = new RestProxy({ url: `${url}/users`, batchActions: true, writer: { clientIdProperty: 'wire' } });
    }
    const store = new Store({ model: User });
    const [ann, bob] = store.add([{ name: 'Ann' }, { name: 'Bob' }]);
    await store.sync();
    const sent = server.requests.find((request) => request.method === 'POST')?.json as Record<string, unknown>[];
    expect(sent.map((item) => [item.name, typeof item.wire])).toEqual([['Ann', 'string'], ['Bob', 'string']]);
    expect([ann?.getId(), ann?.get('name')]).toEqual([10, 'Ann']);
    expect([bob?.getId(), bob?.get('name')]).toEqual([11, 'Bob']);
  });
});
