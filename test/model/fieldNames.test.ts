/**
 * Field names are data (issue 18 item 5; API.md section 7): a field named like a member of
 * Object.prototype (`constructor`, `toString`) or `__proto__` is a field like any other, in a
 * record's values, `modified`, `getChanges()`, `isModified()`, its snapshot, what the writer
 * sends and what the reader takes, against the project's test server on 127.0.0.1.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryProxy, Model, RestProxy, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';

// Untyped (Model's default data type): in TypeScript every object has `constructor: Function`, so
// a data type cannot give `constructor` another type; at run time the name is a field like any other.
let server: TestServer;

beforeEach(async () => {
  const cars: Record<string, unknown>[] = [{ id: 1, name: 'F1', constructor: 'Ferrari' }, { id: 2, name: 'GT' }];
  server = await startTestServer({ resources: { cars } });
});

afterEach(async () => {
  await server.close();
});

/** A Car model; `withProto`: `__proto__` is one of its fields too. */
function defineCar(withProto = false) {
  const proxy = new RestProxy({ url: `${server.url}/cars`, retry: 0 });
  return class Car extends Model {
    static override fields = [{ name: 'id', type: 'int' }, 'name', 'constructor', { name: 'toString', type: 'string' }, ...(withProto ? ['__proto__'] : [])];
    static override proxy = proxy;
  };
}

/** An object with these own keys (an object literal's `__proto__:` would set its prototype instead). */
const own = (entries: [string, unknown][]): Record<string, unknown> => Object.fromEntries(entries);

function lastBody(method: string): Record<string, unknown> {
  const request = server.requests.filter((candidate) => candidate.method === method).at(-1);
  const json: unknown = request?.json;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error(`no ${method} with an object body`);
  return Object.fromEntries(Object.entries(json));
}

describe('a field named like an Object.prototype member', () => {
  it('unset, it reads as null (API.md 5: a declared field never reads as undefined), loaded or new, and in the snapshot', async () => {
    const Car = defineCar();
    const gt = await Car.load(2);
    const fresh = new Car({ name: 'new' });
    for (const car of [gt, fresh]) {
      expect([car.get('constructor'), car.get('toString')]).toEqual([null, null]);
      expect(car.getSnapshot().get('constructor')).toBeNull();
      expect(Object.hasOwn(car.getData(), 'constructor')).toBe(true);
    }
    expect(gt.getData()['constructor']).toBeNull();
  });

  it('set, it makes the record dirty, is modified, and save() sends it; the server holds it', async () => {
    const Car = defineCar();
    const gt = await Car.load(2);
    gt.set('constructor', 'McLaren');
    expect({ value: gt.get('constructor'), dirty: gt.dirty, modified: gt.isModified('constructor') }).toEqual({ value: 'McLaren', dirty: true, modified: true });
    expect(gt.getChanges()).toEqual({ constructor: 'McLaren' });
    expect(Object.keys(gt.modified)).toEqual(['constructor']);
    await gt.save();
    expect(lastBody('PUT')['constructor']).toBe('McLaren');
    expect(server.db['cars']?.find((row) => row['id'] === 2)?.['constructor']).toBe('McLaren');
    expect(gt.dirty).toBe(false);
  });

  it('isModified of a member of Object.prototype is false for a record edited elsewhere', async () => {
    const Car = defineCar();
    const f1 = await Car.load(1);
    f1.set('name', 'F2');
    expect(['toString', 'constructor', 'hasOwnProperty', 'valueOf'].map((name) => f1.isModified(name))).toEqual([false, false, false, false]);
    expect(f1.getSnapshot().isModified('toString')).toBe(false);
  });

  it('an edit kept on top of a reload, and reject() restores the saved value', async () => {
    const Car = defineCar();
    const f1 = await Car.load(1);
    f1.set('constructor', 'Williams');
    await f1.reload();
    expect({ value: f1.get('constructor'), modified: f1.modified }).toEqual({ value: 'Williams', modified: { constructor: 'Ferrari' } });
    f1.reject();
    expect({ value: f1.get('constructor'), dirty: f1.dirty }).toEqual({ value: 'Ferrari', dirty: false });
  });

  it('a PATCH sends only it when it is the one edited', async () => {
    const proxy = new RestProxy({ url: `${server.url}/cars`, retry: 0, actionMethods: { update: 'PATCH' } });
    class Car extends Model {
      static override fields = ['id', 'name', 'constructor', 'toString'];
      static override proxy = proxy;
    }
    const f1 = await Car.load(1);
    f1.set('toString', 'shown');
    await f1.save();
    expect(lastBody('PATCH')).toEqual({ id: 1, toString: 'shown' });
  });

  it('in a store: the edit is pending and the sync sends it', async () => {
    const Car = defineCar();
    const store = new Store({ model: Car, pageSize: 0 });
    await store.load();
    store.getById(1)?.set('toString', 'fast');
    expect(store.getUpdatedRecords().map((car) => car.getId())).toEqual([1]);
    await store.sync();
    expect(server.db['cars']?.find((row) => row['id'] === 1)?.['toString']).toBe('fast');
  });
});

describe('__proto__ as a declared field is data, never a prototype', () => {
  it('set, read, listed in getData and modified, and written as an own key of the body', async () => {
    const Car = defineCar(true);
    const car = new Car(own([['name', 'X'], ['__proto__', 'proto value']]));
    expect(car.get('__proto__')).toBe('proto value');
    expect(Object.getPrototypeOf(car.getData())).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(car.getData(), '__proto__')?.value).toBe('proto value');
    await car.save();
    expect(Object.getOwnPropertyDescriptor(lastBody('POST'), '__proto__')?.value).toBe('proto value');
    const row = server.db['cars']?.find((candidate) => candidate['id'] === car.getId());
    expect(row === undefined ? undefined : Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('proto value');
    car.set('__proto__', 'changed');
    expect(Object.getOwnPropertyDescriptor(car.modified, '__proto__')?.value).toBe('proto value');
    expect(Object.getOwnPropertyDescriptor(car.getChanges(), '__proto__')?.value).toBe('changed');
    expect(Object.getPrototypeOf(car.modified)).toBe(Object.prototype);
    expect(car.isModified('__proto__')).toBe(true);
    await car.save();
    expect(Object.getOwnPropertyDescriptor(lastBody('PUT'), '__proto__')?.value).toBe('changed');
  });

  it('read from an answer: the record takes it as its value', async () => {
    const Car = defineCar(true);
    server.respond('GET', '/cars/9', { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"id":9,"name":"odd","__proto__":"from server","constructor":"Lotus"}' });
    const car = await Car.load(9);
    expect([car.get('__proto__'), car.get('constructor')]).toEqual(['from server', 'Lotus']);
    expect(car.getSnapshot().get('__proto__')).toBe('from server');
  });

  it('a MemoryProxy keeps it as data', async () => {
    const proxy = new MemoryProxy({ data: [] });
    class Car extends Model {
      static override fields = ['id', 'name', '__proto__'];
      static override proxy = proxy;
    }
    const car = new Car(own([['name', 'M'], ['__proto__', 'kept']]));
    await car.save();
    const stored = proxy.data[0];
    expect(stored === undefined ? undefined : Object.getOwnPropertyDescriptor(stored, '__proto__')?.value).toBe('kept');
  });
});
