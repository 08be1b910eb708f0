/**
 * Stores and records are Svelte stores as they are: `subscribe(run)` calls `run` at once with the
 * current snapshot and returns the function that unsubscribes. Proved with Svelte 5 itself: a
 * component using `$users` and `$user`, compiled by svelte/compiler and rendered by svelte/server,
 * and svelte/store's get() and derived().
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compile } from 'svelte/compiler';
import type { Component } from 'svelte';
import { render } from 'svelte/server';
import { derived, get } from 'svelte/store';
import { afterAll, describe, expect, it } from 'vitest';
import { Store, type RecordSnapshot, type StoreSnapshot } from '../../src/index.js';
import { User, countSubscriptions, loadedStore, settled, userOf } from './models.js';

const USERS_COMPONENT = `<script>
  let { users, user } = $props();
</script>

<p id="count">{$users.records.length} of {$users.total}{$users.hasChanges ? ', unsaved changes' : ''}</p>
<ul>
  {#each $users.records as record (record.clientId)}
    <li>{record.get('name')}</li>
  {/each}
</ul>
<p id="user">{$user.get('name')}{$user.dirty ? ' (edited)' : ''}</p>
`;

// Compiled into node_modules/.cache, from where the module finds svelte's runtime.
const cache = join(fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url)));
mkdirSync(cache, { recursive: true });
const workDir = mkdtempSync(join(cache, 'rest-proxy-svelte-'));

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

function isComponent(value: unknown): value is Component<{ users: Store<User>; user: User }> {
  return typeof value === 'function';
}

async function compileComponent(source: string, name: string): Promise<Component<{ users: Store<User>; user: User }>> {
  const { js, warnings } = compile(source, { generate: 'server', filename: `${name}.svelte` });
  expect(warnings.map((warning) => warning.message)).toEqual([]);
  const file = join(workDir, `${name}.js`);
  writeFileSync(file, js.code);
  const module: unknown = await import(/* @vite-ignore */ pathToFileURL(file).href);
  const component: unknown = typeof module === 'object' && module !== null ? Reflect.get(module, 'default') : undefined;
  if (!isComponent(component)) throw new Error(`${name}.svelte did not compile to a component`);
  return component;
}

describe('Svelte 5', () => {
  it('renders $store and $record in a component (svelte/compiler, svelte/server), and lets them go after', async () => {
    const Users = await compileComponent(USERS_COMPONENT, 'Users');
    const users = await loadedStore();
    const user = userOf(users, 2);
    user.set('name', 'Anna');
    const subscriptions = [countSubscriptions(users), countSubscriptions(user)];

    const { body } = render(Users, { props: { users, user } });
    const text = body.replace(/<!--[^>]*-->/g, '').replace(/\s+/g, ' ');
    expect(text).toBe('<p id="count">2 of 2, unsaved changes</p> <ul><li>Ed</li><li>Anna</li></ul> <p id="user">Anna (edited)</p>');
    expect(subscriptions.map((alive) => alive())).toEqual([0, 0]);
  });

  it("meets the store contract: run is called at once, with the current snapshot; the return value unsubscribes", async () => {
    const users = await loadedStore();
    const ed = userOf(users, 1);
    const seen: (StoreSnapshot<User> | RecordSnapshot<User>)[] = [];
    const stopStore = users.subscribe((snapshot) => seen.push(snapshot));
    const stopRecord = ed.subscribe((snapshot) => seen.push(snapshot));
    expect(seen).toEqual([users.getSnapshot(), ed.getSnapshot()]);

    ed.set('name', 'Edward');
    await settled();
    // One call each, with the new snapshots.
    expect(seen).toHaveLength(4);
    expect(seen.slice(2)).toEqual(expect.arrayContaining([users.getSnapshot(), ed.getSnapshot()]));
    expect(seen[0]).not.toBe(users.getSnapshot());
    stopStore();
    stopRecord();
    ed.set('name', 'Eddie');
    await settled();
    expect(seen).toHaveLength(4);
  });

  it("svelte/store's get() reads the current snapshot, derived() follows changes", async () => {
    const users = await loadedStore();
    const ed = userOf(users, 1);
    expect(get(users)).toBe(users.getSnapshot());
    expect(get(ed)).toBe(ed.getSnapshot());

    const summary = derived([users, ed], ([$users, $ed]) => `${$users.records.length} users, first ${$ed.get('name')}${$ed.dirty ? ' (edited)' : ''}`);
    const seen: string[] = [];
    const stop = summary.subscribe((value) => seen.push(value));
    users.add({ name: 'Cy' });
    ed.set('name', 'Edward');
    await settled();
    expect(get(summary)).toBe('3 users, first Edward (edited)');
    stop();
    expect(seen[0]).toBe('2 users, first Ed');
    expect(seen.at(-1)).toBe('3 users, first Edward (edited)');
  });
});
