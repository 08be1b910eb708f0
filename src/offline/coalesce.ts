/**
 * Per record, writes coalesce (a pure function of the record's entries not yet done and the new
 * write): create + updates = one POST; create + destroy before sending = nothing; update +
 * update = one PUT (later values win; the base and ETag of the first); update + destroy = one
 * DELETE. An entry once sent is never changed: later writes queue behind it. A failed entry is
 * replaced by the new write (its base kept).
 */
import type { Entry, EntryAction, Fields } from './entry.js';

/** The new write: a save (of a new record: `phantom`) or a destroy, with the changed values and their base. */
export interface Write {
  readonly type: 'save' | 'destroy';
  readonly phantom: boolean;
  readonly values: Fields;
  readonly before: Fields;
}

export type Plan =
  /** A new entry. `drop`: a failed entry it replaces; `before`: the base it keeps. */
  | { readonly kind: 'add'; readonly action: EntryAction; readonly before: Fields; readonly drop?: Entry }
  /** Merged into `entry` (not yet sent): its new values, base and action. */
  | { readonly kind: 'merge'; readonly entry: Entry; readonly action: EntryAction; readonly values: Fields; readonly before: Fields }
  /** Nothing is sent: these entries (a create never sent and what followed it) are dropped. */
  | { readonly kind: 'cancel'; readonly entries: readonly Entry[] };

/** How `write` joins the record's entries not yet done (`entries`, in order). */
export function coalesce(entries: readonly Entry[], write: Write): Plan {
  const tail = entries.at(-1);
  if (write.type === 'destroy') {
    if (entries.length > 0 && entries.every((entry) => !entry.sent) && entries[0]?.action === 'create') return { kind: 'cancel', entries };
    if (tail !== undefined && !tail.sent && tail.action !== 'create' && tail.phase !== 'failed') return { kind: 'merge', entry: tail, action: 'destroy', values: {}, before: tail.before };
    return add('destroy', write, tail);
  }
  if (tail === undefined) return add(write.phantom ? 'create' : 'update', write, undefined);
  if (tail.phase === 'failed') {
    // Replaced: a new record is created again, else the edits go as an update on the failed one's base.
    return add(write.phantom ? 'create' : 'update', write, tail);
  }
  if (tail.sent || tail.action === 'destroy') return add('update', write, undefined);
  const values = tail.action === 'create' && write.phantom ? write.values : { ...tail.values, ...write.values };
  return { kind: 'merge', entry: tail, action: tail.action, values, before: { ...write.before, ...tail.before } };
}

function add(action: EntryAction, write: Write, failed: Entry | undefined): Plan {
  if (failed === undefined || failed.phase !== 'failed') return { kind: 'add', action, before: write.before };
  return { kind: 'add', action, before: { ...write.before, ...failed.before }, drop: failed };
}
