/** Small DOM helpers: make elements, find them by id. */

export type Attributes = Record<string, string | number | boolean | undefined>;
export type Child = Node | string;

/** `h('button', { type: 'button', class: 'primary' }, 'Save')`: true sets an empty attribute, false and undefined none. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...children);
  return element;
}

/** The element with this id, checked to be of the expected kind. */
export function byId<T extends HTMLElement>(id: string, kind: { new (): T; prototype: T }): T {
  const element = document.getElementById(id);
  if (!(element instanceof kind)) throw new Error(`the page has no <${kind.name}> with id "${id}"`);
  return element;
}

/** Call `run` once `ms` have passed without another call (for the filter box). */
export function debounce<A extends unknown[]>(ms: number, run: (...args: A) => void): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: A) => {
    clearTimeout(timer);
    timer = setTimeout(() => run(...args), ms);
  };
}
