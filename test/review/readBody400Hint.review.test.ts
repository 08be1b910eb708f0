/**
 * Review of 5ef37db..d060071 (cb0a53f): a 400 answer's "wrapped in the writer's root" hint is about
 * a write's body. A read whose subclass puts a JSON body on its Request (buildRequest, API.md's
 * override point; `new Request({ jsonData })`) was never written by the writer: no such hint.
 */
import { describe, expect, it } from 'vitest';
import { AjaxProxy, JsonWriter, Model, Store } from '../../src/index.js';
import type { Operation } from '../../src/operation/Operation.js';
import type { Request } from '../../src/operation/Request.js';

class Item extends Model<{ id: number; name: string }> {
  static override fields = [{ name: 'id', type: 'int' }, 'name'];
}

class SearchProxy extends AjaxProxy {
  override buildRequest(operation: Operation): Request {
    const request = super.buildRequest(operation);
    if (operation.action === 'read') request.jsonData = { query: 'x' };
    return request;
  }
}

describe('a 400 answer to a read with a body of its own', () => {
  it('does not say the body was wrapped in the writer\'s root', async () => {
    const bodies: unknown[] = [];
    const fetch = (async (_url: string, init: RequestInit) => {
      bodies.push(init.body);
      return new Response(JSON.stringify({ message: 'bad query' }), { status: 400, headers: { 'Content-Type': 'application/json' } });
    }) as typeof globalThis.fetch;
    const proxy = new SearchProxy({ url: 'http://localhost/items', fetch, actionMethods: { read: 'POST' }, writer: new JsonWriter({ rootProperty: 'query' }) } as never);
    const store = new Store<Item>({ model: Item, proxy } as never);
    const error: unknown = await store.load().then(() => undefined, (e: unknown) => e);
    expect(bodies).toEqual([JSON.stringify({ query: 'x' })]);
    expect(String((error as Error).message)).toMatch(/400/);
    expect(String((error as Error).message)).not.toMatch(/wrapped in/);
  });
});
