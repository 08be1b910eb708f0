/** What the server must hold after a user -> post -> comment graph was created (graph*.test.ts). */
import { expect } from 'vitest';
import type { TestServer } from '../server/index.js';
import { rowsOf } from '../resilience/helpers.js';

/** Every create body the server received: no id of any kind, no client id anywhere. */
export function expectNoClientIds(server: TestServer): void {
  const creates = server.requests.filter((each) => each.method === 'POST');
  expect(creates.length).toBeGreaterThan(0);
  for (const request of creates) {
    expect(request.body).not.toMatch(/(users|posts|comments)-\d/);
    for (const item of [request.json].flat()) expect(item).not.toHaveProperty('id');
  }
}

/** One user, two posts pointing at it, two comments, one per post. */
export function expectLinked(server: TestServer): void {
  const users = rowsOf(server, 'users');
  const posts = rowsOf(server, 'posts');
  const comments = rowsOf(server, 'comments');
  expect(users).toHaveLength(1);
  expect(posts).toHaveLength(2);
  expect(comments).toHaveLength(2);
  for (const post of posts) expect(post['userId']).toBe(users[0]?.['id']);
  expect(new Set(comments.map((comment) => comment['postId']))).toEqual(new Set(posts.map((post) => post['id'])));
}
