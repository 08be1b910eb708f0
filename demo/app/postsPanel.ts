import type { AssociatedStore } from '../../src/associations.js';
import { h } from './dom.js';
import { isAbort } from './messages.js';
import type { Report } from './grid.js';
import type { Post, User } from './User.js';

/** What the posts stores hold unsaved. */
export interface PostCounts {
  created: number;
  updated: number;
  destroyed: number;
}

function label(user: User): string {
  const name = user.get('name');
  const who = user.phantom ? 'new user' : `user ${String(user.getId())}`;
  return name ? `${name} (${who})` : who;
}

/**
 * The side panel of one user's posts: `user.posts()`, loaded once through
 * GET /api/users/{userId}/posts. Add a post (its userId is the user's, or waits for a new
 * user's id), remove one (the association is `owned`: the next sync destroys it). The page's
 * Save sends the users first, then these stores.
 */
export class PostsPanel {
  /** Every posts store opened in the panel, for Save and the unsaved counts. */
  readonly stores = new Set<AssociatedStore<Post>>();
  #user: User | undefined;
  readonly #heading: HTMLElement;
  readonly #list: HTMLUListElement;
  readonly #form: HTMLFormElement;
  readonly #title: HTMLInputElement;

  constructor(
    root: HTMLElement,
    private readonly report: Report,
    private readonly changed: () => void,
  ) {
    this.#heading = h('h2', { id: 'posts-heading' }, 'Posts');
    this.#list = h('ul', { id: 'posts', class: 'posts', 'aria-labelledby': 'posts-heading' });
    this.#title = h('input', { type: 'text', id: 'post-title', autocomplete: 'off' });
    this.#form = h('form', { class: 'post-form' }, h('label', { for: 'post-title' }, 'New post title'), this.#title, h('button', { type: 'submit' }, 'Add post'));
    this.#form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#add();
    });
    root.replaceChildren(this.#heading, this.#list, this.#form);
    this.show(undefined);
  }

  get user(): User | undefined {
    return this.#user;
  }

  /** Show a user's posts (reading them the first time), or the hint when there is none. */
  show(user: User | undefined): void {
    this.#user = user;
    this.#form.hidden = user === undefined;
    if (user === undefined) {
      this.#heading.textContent = 'Posts';
      this.#list.replaceChildren(h('li', { class: 'empty' }, "Press a user's Posts button to see their posts."));
      return;
    }
    const store = user.posts();
    if (!this.stores.has(store)) {
      this.stores.add(store);
      store.on('datachanged', () => this.#changed(store));
      store.on('update', () => this.#changed(store));
      store.on('load', () => this.#changed(store));
    }
    if (!store.loaded && !user.phantom && !store.loading) {
      store.load().catch((error: unknown) => {
        if (!isAbort(error)) this.report(`Could not load the posts of ${label(user)}:`, error);
      });
    }
    this.render();
  }

  render(): void {
    const user = this.#user;
    if (user === undefined) return;
    const store = user.posts();
    this.#heading.textContent = `Posts of ${label(user)}`;
    const items = store.getRange().map((post) => {
      const remove = h('button', { type: 'button', class: 'small', 'aria-label': `Remove post ${post.get('title')}` }, 'Remove');
      remove.addEventListener('click', () => store.remove(post));
      return h(
        'li',
        { class: post.phantom ? 'is-new' : '', 'data-id': post.phantom ? '' : String(post.getId()) },
        post.phantom ? h('span', { class: 'tag-new' }, 'new') : '',
        h('span', { class: 'post-title' }, post.get('title') ?? ''),
        remove,
      );
    });
    if (items.length === 0) items.push(h('li', { class: 'empty' }, store.loading ? 'Loading…' : user.phantom || store.loaded ? 'No posts yet.' : ''));
    this.#list.replaceChildren(...items);
  }

  pending(): PostCounts {
    const counts = { created: 0, updated: 0, destroyed: 0 };
    for (const store of this.stores) {
      counts.created += store.getNewRecords().length;
      counts.updated += store.getUpdatedRecords().length;
      counts.destroyed += store.getRemovedRecords().length;
    }
    return counts;
  }

  /**
   * Send the posts of users that have an id (call after the users' sync: a new user's posts
   * have their userId once it is created). Resolves with the number of requests; rejects with
   * the first failure, after every store was tried.
   */
  async sync(): Promise<number> {
    let requests = 0;
    let failure: unknown;
    for (const store of this.stores) {
      if (store.getNewRecords().some((post) => post.get('userId') === undefined)) continue;
      if (store.getNewRecords().length + store.getUpdatedRecords().length + store.getRemovedRecords().length === 0) continue;
      try {
        requests += (await store.sync()).operations.length;
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
    return requests;
  }

  /** Drop every unsaved post change. */
  rejectChanges(): void {
    for (const store of this.stores) store.rejectChanges();
  }

  #add(): void {
    const user = this.#user;
    const title = this.#title.value.trim();
    if (user === undefined) return;
    if (title === '') {
      this.report('The post was not added:', new RangeError('A post needs a title.'));
      return;
    }
    user.posts().add({ title });
    this.#title.value = '';
    this.#title.focus();
  }

  #changed(store: AssociatedStore<Post>): void {
    if (this.#user?.posts() === store) this.render();
    this.changed();
  }
}
