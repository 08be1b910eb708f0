/**
 * manyToMany (API.md 9.3): the store lists the records the owner's join records point at;
 * link(record) and unlink(record) make and remove join records, sent by the next sync of the
 * store (new targets first); add and remove are TypeErrors.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session } from '../../src/associations.js';
import { startTestServer, type TestServer } from '../server/index.js';
import { Group, Member, serveGroups } from './models.js';

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer({
    resources: {
      members: [{ id: 1, name: 'Ann' }],
      groups: [{ id: 10, title: 'red' }, { id: 11, title: 'blue' }, { id: 12, title: 'green' }],
      memberships: [{ id: 100, memberId: 1, groupId: 10 }, { id: 101, memberId: 1, groupId: 12 }, { id: 102, memberId: 2, groupId: 11 }],
    },
  });
  serveGroups(server.url);
});
afterEach(async () => {
  await server.close();
});

const titles = (member: Member): unknown[] => member.groups().getRange().map((group) => group.get('title')).sort();

describe('manyToMany', () => {
  it('load reads the join records, then the records they point at', async () => {
    const ann = await Member.load(1, { session: new Session() });
    await ann.groups().load();
    expect(titles(ann)).toEqual(['green', 'red']);
    expect(ann.groups().loaded).toBe(true);
  });

  it('link and unlink: the join records are created and destroyed by the next sync, a new group first', async () => {
    const session = new Session();
    const ann = await Member.load(1, { session });
    await ann.groups().load();
    const blue = await Group.load(11, { session });
    const made = new Group({ title: 'new' });
    ann.groups().link(blue);
    ann.groups().link(made);
    const red = ann.groups().getRange().find((group) => group.get('title') === 'red');
    if (red === undefined) throw new Error('no red');
    ann.groups().unlink(red);
    expect(titles(ann)).toEqual(['blue', 'green', 'new']);
    expect(ann.groups().hasChanges()).toBe(true);
    await ann.groups().sync();
    const rows = (server.db['memberships'] ?? []).filter((row) => row['memberId'] === 1).map((row) => row['groupId']).sort();
    expect(rows).toEqual([11, 12, made.getId()].sort());
    expect(server.db['groups']?.some((row) => row['title'] === 'new')).toBe(true);
    expect(ann.groups().hasChanges()).toBe(false);
  });

  it('add and remove are TypeErrors', async () => {
    const ann = await Member.load(1, { session: new Session() });
    expect(() => ann.groups().add(new Group({ title: 'x' }))).toThrow(/link\(record\) and unlink\(record\)/);
    expect(() => ann.groups().remove([])).toThrow(TypeError);
  });
});
