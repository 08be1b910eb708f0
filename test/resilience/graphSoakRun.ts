import { expect } from 'vitest';
/**
 * The soak with associated records: users, their posts and the posts' comments, all new, in three
 * stores over RestProxies with `idempotencyKey: true`, created together while the test server
 * injects faults (seeded chaos). Each child refers to its phantom parent (the key is filled when
 * the parent's create commits); a share of the records is edited and a share of comments removed
 * between rounds. Rounds alternate between one sync of everything (session.sync()) and the stores' own syncs, children's store first (it must create the
 * parents it needs from the other stores). Then chaos stops and the server must hold each record
 * once, every child pointing at its parent's row, and the client equal to the server.
 *
 * The models declare the real associations (users hasMany posts hasMany comments, each child
 * belongsTo its parent, rest-proxy/associations) and share one Session; a child points at its
 * phantom parent through its belongsTo setter, and the key is filled when the parent's create commits.
 * Used by test/soak/soak.test.ts and test/resilience/soak-small.test.ts.
 */
import { belongsTo, hasMany, Session, type Accessor } from '../../src/associations.js';
import { BatchError, Model, RestProxy, Store } from '../../src/index.js';
import { seededRandom } from '../server/faults.js';
import type { FaultType, TestServer } from '../server/index.js';

export interface GraphSoakOptions {
  /** Users to create; each gets 1 to 3 posts, each post 0 to 2 comments. */
  users: number;
  seed: number;
  rate: number;
  concurrency: number;
  batchActions?: boolean;
  /** Race the syncs: while one runs, some records are saved on their own and the posts' store syncs too. Default false. */
  interleave?: boolean;
  maxRounds: number;
  maxMs: number;
}

export interface GraphSoakResult {
  summary: string;
  converged: boolean;
  /** uid -> rows with that uid, when more than one. */
  duplicates: string[];
  /** Children whose key is not the id of their parent's row (or whose parent has no row). */
  orphans: string[];
  /** Records kept by the user with no row, or removed with one. */
  missing: string[];
  /** Client records that differ from their row (new, dirty, other values). */
  clientMismatches: string[];
  lastErrors: string[];
}

const TYPES: FaultType[] = ['reset-before', 'reset-after', 'status', 'stall', 'truncate', 'duplicate'];

interface Row { id: number; uid: string; name: string; parentId: number }

class Node extends Model<Row> {
  static override fields = [{ name: 'id', type: 'int' }, 'uid', 'name', { name: 'parentId', type: 'int' }];
}

export async function runGraphSoak(server: TestServer, options: GraphSoakOptions): Promise<GraphSoakResult> {
  const started = performance.now();
  const random = seededRandom(options.seed * 104729 + 3);
  const proxy = (collection: string): RestProxy =>
    new RestProxy({ url: `${server.url}/${collection}`, idempotencyKey: true, batchActions: options.batchActions ?? false, retry: { limit: 3, delay: 5, backoffLimit: 50 }, timeout: 300 });
  class Users extends Node {
    static override entityName = 'users';
    static override proxy = proxy('users');
    static associations = { children: hasMany(() => Posts, { foreignKey: 'parentId', inverse: 'parent' }) };
  }
  class Posts extends Node {
    static override entityName = 'posts';
    static override proxy = proxy('posts');
    static associations = {
      parent: belongsTo(() => Users, { foreignKey: 'parentId', inverse: 'children' }),
      children: hasMany(() => Comments, { foreignKey: 'parentId', inverse: 'parent' }),
    };
    declare setParent: Accessor<typeof Posts.associations.parent, 'set'>;
  }
  class Comments extends Node {
    static override entityName = 'comments';
    static override proxy = proxy('comments');
    static associations = { parent: belongsTo(() => Posts, { foreignKey: 'parentId', inverse: 'children' }) };
    declare setParent: Accessor<typeof Comments.associations.parent, 'set'>;
  }
  const session = new Session();
  const users = new Store({ model: Users, pageSize: 0, session });
  const posts = new Store({ model: Posts, pageSize: 0, session });
  const comments = new Store({ model: Comments, pageSize: 0, session });
  /** Every record the user made, with its parent and what it must end as. */
  const made: { record: Node; parent: Node | undefined; removed: boolean }[] = [];
  for (let u = 0; u < options.users; u++) {
    const [user] = users.add({ uid: `u${u}`, name: 'user' });
    if (!user) continue;
    made.push({ record: user, parent: undefined, removed: false });
    for (let p = 0; p < 1 + Math.floor(random() * 3); p++) {
      const [post] = posts.add({ uid: `u${u}p${p}`, name: 'post' });
      if (!post) continue;
      post.setParent(user);
      made.push({ record: post, parent: user, removed: false });
      for (let c = 0; c < Math.floor(random() * 3); c++) {
        const [comment] = comments.add({ uid: `u${u}p${p}c${c}`, name: 'comment' });
        if (!comment) continue;
        comment.setParent(post);
        made.push({ record: comment, parent: post, removed: false });
      }
    }
  }
  server.chaos({ rate: options.rate, seed: options.seed, types: TYPES, stallMs: 600 });

  let rounds = 0;
  let lastErrors: string[] = [];
  const race = (): Promise<unknown>[] => {
    if (!options.interleave) return [];
    const saves = made.filter((entry) => !entry.removed && random() < 0.05).map((entry) => entry.record.save());
    return [...saves, posts.sync()].map((running) => running.catch(() => undefined));
  };
  const syncOnce = async (): Promise<boolean> => {
    rounds++;
    const racing = race();
    const settled =
      rounds % 2 === 1
        ? await Promise.allSettled([session.sync({ concurrency: options.concurrency })])
        : await Promise.allSettled([comments, posts, users].map((store) => store.sync({ concurrency: options.concurrency })));
    await Promise.all(racing);
    const errors = settled.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    for (const error of errors) if (!(error instanceof BatchError)) throw error;
    lastErrors = errors.flatMap((error) => (error instanceof BatchError ? error.errors.map((each) => `${each.kind}: ${each.message}`) : []));
    return errors.length === 0;
  };
  const wave = (): void => {
    for (const entry of made) {
      if (entry.removed) continue;
      const roll = random();
      if (roll < 0.1 && entry.record instanceof Comments) {
        entry.removed = true;
        comments.remove(entry.record);
      } else if (roll < 0.3) entry.record.set('name', `${entry.record.get('name')}+`);
    }
  };

  let done = await syncOnce();
  wave();
  done = await syncOnce();
  wave();
  done = false;
  while (!done && rounds < options.maxRounds + 2 && performance.now() - started < options.maxMs) done = await syncOnce();
  const syncMs = Math.round(performance.now() - started);
  server.chaos(null);

  const rowsByUid = new Map<string, Record<string, unknown>[]>();
  for (const collection of ['users', 'posts', 'comments']) {
    for (const row of server.db[collection] ?? []) {
      const key = `${collection}:${String(row['uid'])}`;
      rowsByUid.set(key, [...(rowsByUid.get(key) ?? []), row]);
    }
  }
  const duplicates = [...rowsByUid].filter(([, rows]) => rows.length > 1).map(([uid, rows]) => `${uid} x${rows.length}`);
  const orphans: string[] = [];
  const missing: string[] = [];
  const clientMismatches: string[] = [];
  const rowOf = (record: Node): Record<string, unknown> | undefined => rowsByUid.get(`${record.getModelClass().entityName ?? ''}:${record.get('uid')}`)?.[0];
  for (const { record, parent, removed } of made) {
    const row = rowOf(record);
    const uid = record.get('uid');
    if (removed) {
      if (row !== undefined) missing.push(`${uid}: removed, still on the server`);
      continue;
    }
    if (row === undefined) {
      missing.push(`${uid}: no row`);
      continue;
    }
    if (parent !== undefined) {
      const parentRow = rowOf(parent);
      if (parentRow === undefined || row['parentId'] !== parentRow['id']) orphans.push(`${uid}: parentId ${String(row['parentId'])}, parent row ${String(parentRow?.['id'])}`);
    }
    // A key never given a value reads null (API.md 5) and is not written: the row has none.
    if (record.phantom || record.dirty || record.getId() !== row['id'] || record.get('name') !== row['name'] || record.get('parentId') !== (row['parentId'] ?? null)) {
      clientMismatches.push(`${uid}: client ${JSON.stringify({ id: record.getId(), name: record.get('name'), parentId: record.get('parentId'), phantom: record.phantom, dirty: record.dirty })} vs row ${JSON.stringify(row)}`);
    }
  }
  const stats = server.stats;
  const summary =
    `graph soak seed=${options.seed} rate=${options.rate} users=${options.users} records=${made.length} concurrency=${options.concurrency}${options.batchActions ? ' batched' : ''}${options.interleave ? ' interleaved' : ''}: ` +
    `${done ? 'converged' : 'DID NOT CONVERGE'} after ${rounds} rounds in ${syncMs} ms; requests ${stats.requests}, faults ${stats.faulted}; ` +
    `duplicates ${duplicates.length}, orphans ${orphans.length}, missing ${missing.length}, client mismatches ${clientMismatches.length}`;
  return { summary, converged: done, duplicates, orphans, missing, clientMismatches, lastErrors: [...new Set(lastErrors)] };
}

/** Each record once, every child on its parent's row, the client equal to the server, the syncs resolved. */
export function expectGraphIntact(result: GraphSoakResult): void {
  expect.soft(result.duplicates, 'records created twice').toEqual([]);
  expect.soft(result.orphans, 'children not pointing at their parent').toEqual([]);
  expect.soft(result.missing, 'records missing or removed but back').toEqual([]);
  expect.soft(result.clientMismatches, 'client records that differ from the server').toEqual([]);
  expect.soft(result.lastErrors, 'failures of the last sync').toEqual([]);
  expect(result.converged, 'the syncs resolved within the bound').toBe(true);
}
