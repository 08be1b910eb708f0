/**
 * The outbox among tabs, in Node: two outboxes over one storage, their tabs joined by an
 * in-memory stand-in for BroadcastChannel and Web Locks (the real ones are tested in Chromium:
 * outbox.chromium.test.ts, tabs.chromium.test.ts). Every tab sends its own writes; the leader
 * does not send another live tab's; the other tab's snapshot follows by the broadcasts; when the
 * leader's tab closes, the next one leads and sends its entries, written after it opened, once.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Model, RestProxy, Store } from '../../src/index.js';
import { belongsTo, hasMany, type Accessor } from '../../src/associations.js';
import { Outbox, OutboxError, type OutboxCodec } from '../../src/offline.js';
import type { TabCoordinator } from '../../src/offline/coordination.js';
import type { JsonValue, OutboxStorage } from '../../src/offline/storage.js';
import { defineItem } from '../resilience/helpers.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { outboxProxy, proxyErrorOf, ReopenableStorage, requestsOf, rowsOf, sleep } from './helpers.js';

/** Tabs of one origin, in memory: the first alive leads; messages reach the others a moment later. */
class Tabs {
  readonly members: Tab[] = [];
  join(): Tab {
    const tab = new Tab(this, `tab-${this.members.length + 1}`);
    this.members.push(tab);
    this.elect();
    return tab;
  }
  elect(): void {
    const leader = this.members.find((tab) => tab.alive);
    for (const tab of this.members) tab.lead(tab === leader);
  }
}

class Tab implements TabCoordinator {
  isLeader = false;
  alive = true;
  readonly ready = Promise.resolve();
  #leaders = new Set<(leader: boolean) => void>();
  #messages = new Set<(message: JsonValue) => void>();
  constructor(
    readonly group: Tabs,
    readonly tabId: string,
  ) {}
  lead(value: boolean): void {
    if (this.isLeader === value) return;
    this.isLeader = value;
    for (const listener of this.#leaders) listener(value);
  }
  onLeaderChange(listener: (leader: boolean) => void): () => void {
    this.#leaders.add(listener);
    return () => this.#leaders.delete(listener);
  }
  onMessage(listener: (message: JsonValue) => void): () => void {
    this.#messages.add(listener);
    return () => this.#messages.delete(listener);
  }
  broadcast(message: JsonValue): void {
    for (const tab of this.group.members) if (tab !== this && tab.alive) setTimeout(() => tab.hear(structuredClone(message)), 1);
  }
  hear(message: JsonValue): void {
    if (this.alive) for (const listener of this.#messages) listener(message);
  }
  liveTabs(): Promise<string[]> {
    return Promise.resolve(this.group.members.filter((tab) => tab.alive).map((tab) => tab.tabId));
  }
  close(): void {
    if (!this.alive) return;
    this.alive = false;
    this.lead(false);
    this.group.elect();
  }
}

let server: TestServer;
const defaultTabs = Outbox.tabs;
const opened: Outbox[] = [];

beforeEach(async () => {
  server = await startTestServer({ resources: { items: [], users: [{ id: 4, name: 'old' }], posts: [] } });
});

afterEach(async () => {
  Outbox.tabs = defaultTabs;
  for (const outbox of opened.splice(0)) await outbox.close();
  await server.close();
});

/** A tab of the app: its own Item model, attached to an outbox (named per tab, as each tab is its own page) over `storage`. */
async function tab(tabs: Tabs, name: string, storage: OutboxStorage, scope = '', codec?: OutboxCodec) {
  Outbox.tabs = () => tabs.join();
  const Item = defineItem(outboxProxy(server, { timeout: 10_000 })); // no test here waits on it: 2 s timed out on a loaded machine
  const outbox = new Outbox({ name, storage, models: [Item], scope, ...(codec === undefined ? {} : { codec }) });
  opened.push(outbox);
  await outbox.open();
  return { Item, outbox };
}

it("each tab sends its own writes; the leader closed, the next one leads and sends the closed tab's write, made after it opened, once", async () => {
  const tabs = new Tabs();
  const storage = new ReopenableStorage();
  const first = await tab(tabs, 'first', storage);
  const second = await tab(tabs, 'second', storage);
  expect([first.outbox.getSnapshot().leader, second.outbox.getSnapshot().leader]).toEqual([true, false]);

  // The second tab sends its own write; the leader does not send it again.
  await new second.Item({ uid: 's', name: 'second', rev: 0 }).save();
  await sleep(20);
  await first.outbox.flush();
  expect(requestsOf(server, 'POST')).toHaveLength(1);

  // Offline: the leader's write is kept; the other tab's snapshot follows.
  server.inject({ type: 'reset-before', match: { method: 'POST' }, times: 100 });
  expect(await proxyErrorOf(new first.Item({ uid: 'f', name: 'first', rev: 0 }).save())).toMatchObject({ kind: 'network', queued: true });
  // (Heard once the first tab's commits were broadcast: waited for, as a loaded machine is slow.)
  await vi.waitFor(() => expect(second.outbox.getSnapshot()).toMatchObject({ pending: 1, leader: false }), { timeout: 10_000 });
  await second.outbox.flush();
  expect(rowsOf(server).map((row) => row['uid'])).toEqual(['s']);

  // The leader's tab is closed; the second leads and, back online, sends the first tab's write.
  await first.outbox.close();
  expect(second.outbox.getSnapshot().leader).toBe(true);
  server.reset();
  await sleep(20);
  await second.outbox.flush();
  expect(rowsOf(server).map((row) => row['uid'])).toEqual(['s', 'f']);
  expect(requestsOf(server, 'POST')).toHaveLength(1);
  expect(second.outbox.getSnapshot()).toMatchObject({ pending: 0, sending: 0, failed: 0 });
  expect(await storage.load()).toEqual([]);
});

it("with a codec, the tabs tell each other no field value in the clear; the next leader opens and sends the closed tab's write", async () => {
  const tabs = new Tabs();
  const told: string[] = [];
  const broadcast = Tab.prototype.broadcast;
  vi.spyOn(Tab.prototype, 'broadcast').mockImplementation(function (this: Tab, message: JsonValue) {
    told.push(JSON.stringify(message));
    broadcast.call(this, message);
  });
  const codec: OutboxCodec = {
    encode: async (values) => Buffer.from(JSON.stringify(values)).toString('base64'),
    decode: async (text) => JSON.parse(Buffer.from(text, 'base64').toString()),
  };
  const storage = new ReopenableStorage();
  const first = await tab(tabs, 'first', storage, 'alice', codec);
  const second = await tab(tabs, 'second', storage, 'alice', codec);
  server.inject({ type: 'reset-before', match: { method: 'POST' }, times: 100 });
  expect(await proxyErrorOf(new first.Item({ uid: 'f', name: 'top secret', rev: 0 }).save())).toMatchObject({ kind: 'network', queued: true });
  await vi.waitFor(() => expect(second.outbox.getSnapshot()).toMatchObject({ pending: 1, leader: false }), { timeout: 10_000 });
  expect(told.some((message) => message.includes('"sealed"'))).toBe(true);
  expect(told.join('\n')).not.toContain('top secret');

  await first.outbox.close();
  server.reset();
  await sleep(20);
  await second.outbox.flush();
  expect(rowsOf(server)).toEqual([expect.objectContaining({ uid: 'f', name: 'top secret' })]);
  expect(requestsOf(server, 'POST')).toHaveLength(1);
  expect(await storage.load()).toEqual([]);
});

it('an open() that fails leaves the tabs: another tab leads', async () => {
  const tabs = new Tabs();
  const broken: OutboxStorage = { durable: true, load: () => Promise.reject(new Error('refused')), commit: () => Promise.resolve(), close: () => Promise.resolve() };
  Outbox.tabs = () => tabs.join();
  const outbox = new Outbox({ name: 'broken', storage: broken, models: [defineItem(outboxProxy(server))] });
  const error = await outbox.open().catch((reason: unknown) => reason);
  expect(error).toBeInstanceOf(OutboxError);
  expect(tabs.members[0]?.alive).toBe(false);
  await outbox.close();
  const other = await tab(tabs, 'other', new ReopenableStorage());
  expect(other.outbox.getSnapshot().leader).toBe(true);
});

/** A tab of an app whose User has posts (so a session holds its records): User attached to an outbox, a store of users loaded. */
async function userTab(tabs: Tabs, name: string, storage: OutboxStorage) {
  Outbox.tabs = () => tabs.join();
  const proxy = (path: string) => new RestProxy({ url: `${server.url}/${path}`, idempotencyKey: true, timeout: 10_000 });
  class User extends Model.define({ entityName: 'User', fields: { id: 'int', name: 'string' } }) {
    static override proxy = proxy('users');
    static associations = { posts: hasMany(() => Post, { foreignKey: 'userId', inverse: 'user' }) };
    declare posts: Accessor<typeof User.associations.posts>;
  }
  class Post extends Model.define({ entityName: 'Post', fields: { id: 'int', title: 'string', userId: 'int' } }) {
    static override proxy = proxy('posts');
    static associations = { user: belongsTo(() => User, { foreignKey: 'userId', inverse: 'posts' }) };
  }
  const outbox = new Outbox({ name, storage, models: [User] });
  opened.push(outbox);
  await outbox.open();
  const users = new Store({ model: User, pageSize: 0 });
  await users.load();
  return { User, users, outbox };
}

it("the leader sends a closed tab's update of a record it holds too: done, not failed; each tab's record follows the other's edit", async () => {
  const tabs = new Tabs();
  const storage = new ReopenableStorage();
  const first = await userTab(tabs, 'first', storage);
  const second = await userTab(tabs, 'second', storage);
  // The second tab edits user 4 offline; the first tab's record of user 4 follows.
  server.inject({ type: 'reset-before', match: { method: 'PUT' }, times: 100 });
  second.users.getById(4)?.set('name', 'from the second tab');
  expect(await proxyErrorOf(second.users.getById(4)!.save())).toMatchObject({ queued: true });
  await sleep(20);
  expect(first.users.getById(4)?.get('name')).toBe('from the second tab');
  // The second tab closes; the first sends its update, back online.
  await second.outbox.close();
  server.reset();
  await sleep(20);
  await first.outbox.flush();
  expect(rowsOf(server, 'users')).toEqual([{ id: 4, name: 'from the second tab' }]);
  expect(first.outbox.getSnapshot()).toMatchObject({ pending: 0, sending: 0, failed: 0 });
  expect(first.outbox.failed).toEqual([]);
  expect(await storage.load()).toEqual([]);
  const mine = first.users.getById(4);
  expect([mine?.get('name'), mine?.dirty]).toEqual(['from the second tab', false]);
  // The first tab edits it in turn; the second tab, open again, follows.
  const again = await userTab(tabs, 'again', storage);
  server.inject({ type: 'reset-before', match: { method: 'PUT' }, times: 100 });
  mine?.set('name', 'from the first tab');
  await mine?.save().catch(() => undefined);
  await sleep(20);
  expect(again.users.getById(4)?.get('name')).toBe('from the first tab');
  expect(requestsOf(server, 'PUT').length).toBeGreaterThan(0);
});

it("tabs of two users: neither shows, restores nor sends the other's entries; each counts them in otherScopes", async () => {
  const tabs = new Tabs();
  const storage = new ReopenableStorage();
  const alice = await tab(tabs, 'alice', storage, 'alice');
  const bob = await tab(tabs, 'bob', storage, 'bob');
  server.inject({ type: 'reset-before', match: { method: 'POST' }, times: 100 });
  expect(await proxyErrorOf(new bob.Item({ uid: 'b', name: 'bob', rev: 0 }).save())).toMatchObject({ queued: true });
  await sleep(20);
  expect(alice.outbox.getSnapshot()).toMatchObject({ pending: 0, failed: 0, otherScopes: 1, leader: true });
  // Bob's tab closes: the leader, Alice's, does not take his entry.
  await bob.outbox.close();
  server.reset();
  await sleep(20);
  await alice.outbox.flush();
  expect(requestsOf(server, 'POST')).toEqual([]);
  expect(alice.outbox.getSnapshot()).toMatchObject({ pending: 0, otherScopes: 1 });
  expect((await storage.load()).map((entry) => entry['scope'])).toEqual(['bob']);
});
