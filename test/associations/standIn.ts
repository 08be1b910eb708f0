/**
 * STANDS IN FOR THE ASSOCIATIONS MODULE, to test the core's hooks alone (graph.real.test.ts tests
 * the real hasMany/belongsTo and Session together): a child of a phantom parent holds a reference to it, `extensions.waitsFor` names the
 * phantom parents a record references, and the parent's create fills the child's key
 * synchronously inside its commit (here through an owner of the parent, as a store is told of
 * its records' commits). Importing it also imports the real order module (src/associations.ts),
 * which plugs `extensions.inOrder` into the core.
 */
import '../../src/associations.js';
import { extensions } from '../../src/model/extensions.js';
import { join, recordOwner, type RecordOwner } from '../../src/model/internal.js';
import { recordInfo } from '../../src/model/modelInfo.js';
import type { Model } from '../../src/index.js';

type Rec = Model<object>;

/** child -> the parents it references, with the key each fills. */
const references = new Map<Rec, { key: string; parent: Rec }[]>();
/** parent -> its children by key (strongly held: the owners are referenced weakly by records). */
const watchers = new Map<Rec, RecordOwner>();
/** child -> records whose destroy goes first. */
const destroyedBefore = new Map<Rec, Rec[]>();

/** `record.set(key, value)` for a key the stand-in only knows as a string (the real module types it from the declaration). */
function setKey(record: Rec, key: string, value: unknown): void {
  Reflect.apply(record.set, record, [key, value]);
}

function noop(): void {
  // an owner hook the stand-in does not need
}

extensions.waitsFor = (record) => (references.get(record) ?? []).filter(({ parent }) => parent.phantom).map(({ parent }) => parent);
extensions.destroysFirst = (record) => destroyedBefore.get(record) ?? [];
extensions.keyWaits = (record, name) => [...references].some(([child, refs]) => child === record && refs.some(({ key, parent }) => key === name && parent.phantom));

/**
 * `child[key]` refers to `parent`: its key reads undefined until the parent is created, then the
 * parent's id. Link a parent after it joined its store (the store stays its first owner).
 */
export function refer(child: Rec, key: string, parent: Rec): void {
  if (!parent.phantom) {
    setKey(child, key, parent.getId());
    return;
  }
  const list = references.get(child) ?? [];
  list.push({ key, parent });
  recordInfo(child).keys.add(key); // readField asks keyWaits of this field from now on
  references.set(child, list);
  if (watchers.has(parent)) return;
  const owner = recordOwner({
    proxy: () => undefined,
    holds: () => false,
    afterEdit: noop,
    afterReject: noop,
    afterErase: noop,
    afterChange: noop,
    afterCommit: (_record, _names, created) => {
      if (!created) return;
      for (const [each, refs] of references) {
        for (const ref of refs) if (ref.parent === parent) setKey(each, ref.key, parent.getId());
      }
    },
  });
  watchers.set(parent, owner);
  join(parent, owner);
}

/** `owner`'s destroy goes after each of `children`'s (owned children). */
export function ownedBy(owner: Rec, children: Rec[]): void {
  destroyedBefore.set(owner, children);
}

/** Forget every reference (between tests). */
export function forgetReferences(): void {
  references.clear();
  watchers.clear();
  destroyedBefore.clear();
}
