/**
 * The open() of the outboxes of each attached model (by entity name): a ReadCache opens them
 * before it shows a stored page of that model, so that the page is shown as a load after the
 * outbox restored its records (restored new records listed, pending destroys hidden, pending
 * updates on top), even for a store made before the app called `outbox.open()`.
 */
const openers = new Map<string, Set<() => Promise<void>>>();

/** Note `open` for `entities` (or forget `gone`, an outbox closed). */
export function opensBeforeReads(entities: Iterable<string>, open: (() => Promise<void>) | undefined, gone?: () => Promise<void>): void {
  for (const entity of entities) {
    let set = openers.get(entity);
    if (set === undefined) openers.set(entity, (set = new Set()));
    if (open !== undefined) set.add(open);
    if (gone !== undefined) set.delete(gone);
    if (set.size === 0) openers.delete(entity);
  }
}

/** Open the outboxes of `entity`'s model: settles once they opened or failed to. */
export function opened(entity: string): Promise<unknown> {
  return Promise.allSettled([...(openers.get(entity) ?? [])].map((open) => open()));
}
