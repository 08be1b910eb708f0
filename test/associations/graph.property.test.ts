/**
 * Random forests of new records across three models and stores, some of them invalid (held back
 * before any request), synced by one syncGraph against the test server (fast-check). Whatever the
 * shape: every create goes after its parent's, with the parent's id as its key and no client id;
 * a record whose ancestor could not be sent stays new with kind 'dependency', its cause chain
 * ending at that ancestor's error; once the invalid ones are fixed, the next sync creates the rest
 * and each record exists once. The references are the stand-in's (./standIn.ts).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncGraph } from '../../src/associations.js';
import { BatchError, Model, presence, ProxyError, RestProxy, Store } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { forgetReferences, refer } from './standIn.js';

const COLLECTIONS = ['users', 'posts', 'comments'] as const;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ resources: { users: [], posts: [], comments: [] } });
});

afterAll(async () => {
  await server.close();
});

interface Row { id: number; uid: string; name: string; parentId: number }

function storeOf(collection: string, batchActions: boolean): Store<Model<Row>> {
  class Node extends Model<Row> {
    static override entityName = collection;
    static override fields = [{ name: 'id', type: 'int' }, 'uid', 'name', { name: 'parentId', type: 'int' }];
    static override validators = { name: presence() };
    static override proxy = new RestProxy({ url: `${server.url}/${collection}`, batchActions });
  }
  return new Store({ model: Node, pageSize: 0 });
}

/** Node i: its collection, its parent (an earlier node, any collection) or none, and whether it is invalid. */
const forests = fc.record({
  batchActions: fc.boolean(),
  nodes: fc.array(fc.record({ collection: fc.integer({ min: 0, max: 2 }), parent: fc.option(fc.nat(), { nil: undefined }), invalid: fc.boolean() }), { minLength: 1, maxLength: 12 }),
});

describe('syncGraph over random forests', () => {
  it('parents first with their ids, failures passed down as dependency, then every record once', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(forests, async ({ batchActions, nodes }) => {
        run++;
        forgetReferences();
        for (const collection of COLLECTIONS) server.db[collection]?.splice(0);
        server.reset();
        const stores = COLLECTIONS.map((collection) => storeOf(collection, batchActions));
        const records: Model<Row>[] = [];
        const parentOf: (number | undefined)[] = [];
        const invalid = nodes.map((node, i) => node.invalid && i % 3 === 0); // about one in six
        nodes.forEach((node, i) => {
          const [record] = stores[node.collection]?.add({ uid: `r${run}-${i}`, name: invalid[i] ? '' : `n${i}` }) ?? [];
          if (!record) throw new Error('not added');
          records.push(record);
          const parent = i === 0 || node.parent === undefined ? undefined : node.parent % i;
          parentOf.push(parent);
          const parentRecord = parent === undefined ? undefined : records[parent];
          if (parentRecord) refer(record, 'parentId', parentRecord);
        });
        const pending = () => ({ create: stores.flatMap((store) => store.getNewRecords()) });
        const blocked = (i: number): boolean => invalid[i] === true || (parentOf[i] !== undefined && blocked(parentOf[i] ?? 0));

        const outcome = await syncGraph(pending()).then(() => undefined, (error: unknown) => error);
        if (invalid.some(Boolean)) expect(outcome).toBeInstanceOf(BatchError);
        else expect(outcome).toBeUndefined();
        const errors = new Map(outcome instanceof BatchError ? outcome.batch.exceptions.map((operation) => [operation.records[0], operation.error]) : []);
        records.forEach((record, i) => {
          expect(record.phantom).toBe(blocked(i));
          if (!blocked(i)) {
            const parent = parentOf[i];
            expect(record.get('parentId')).toBe(parent === undefined ? null : records[parent]?.getId());
            return;
          }
          // Its error's chain of causes ends at the invalid ancestor's.
          let error: unknown = errors.get(record);
          let at: number | undefined = i;
          while (error instanceof ProxyError && error.kind === 'dependency') {
            error = error.cause;
            at = parentOf[at ?? 0];
          }
          expect(error).toBeInstanceOf(ProxyError);
          expect(error instanceof ProxyError && error.kind).toBe('validation');
          expect(at !== undefined && invalid[at]).toBe(true);
        });
        // On the wire: a create goes after its parent's request, with the parent's id as its key, and no client id.
        const sent = new Set<number>();
        for (const request of server.requests) {
          expect(request.body).not.toMatch(/(users|posts|comments)-\d/);
          const items = [request.json].flat().filter((item): item is object => typeof item === 'object' && item !== null);
          const indexes = items.map((item) => Number(String(Reflect.get(item, 'uid')).split('-')[1]));
          items.forEach((item, at) => {
            const parent = parentOf[indexes[at] ?? -1];
            if (parent === undefined) return;
            expect(sent.has(parent)).toBe(true);
            expect(Reflect.get(item, 'parentId')).toBe(records[parent]?.getId());
          });
          for (const i of indexes) sent.add(i);
        }

        records.forEach((record, i) => {
          if (invalid[i]) record.set('name', `fixed ${i}`);
        });
        await syncGraph(pending());
        const rows = COLLECTIONS.flatMap((collection) => server.db[collection] ?? []);
        expect(rows).toHaveLength(records.length);
        records.forEach((record, i) => {
          const parent = parentOf[i];
          expect(record.phantom).toBe(false);
          expect(record.get('parentId')).toBe(parent === undefined ? null : records[parent]?.getId());
        });
      }),
      { numRuns: 40 },
    );
    forgetReferences();
  }, 60_000);
});
