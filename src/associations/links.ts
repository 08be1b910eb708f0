/**
 * The store of a manyToMany (`user.groups()`): the targets its owner's join records point at.
 * `link` makes a join record, `unlink` removes it; both are sent by the next sync of the store
 * (targets first, then the join records) like any store's adds and removes.
 */
import { HOLD } from '../model/extensions.js';
import type { Model } from '../model/Model.js';
import { keyOf } from '../store/list.js';
import { UNLIST } from '../store/records.js';
import { Store, type LoadOptions, type SyncOptions } from '../store/Store.js';
import type { Batch } from '../operation/Batch.js';
import { describeValue } from '../util/options.js';
import { templateNames } from '../util/url.js';
import type { Link } from './declare.js';
import { referenced } from './references.js';
import type { Session } from './session.js';
import { attach, madeStore, parentOf, register, unregister, type JoinView } from './stores.js';

export class LinkedStore extends Store<Model> implements JoinView {
  /** Whether its records were read by its `load()`. */
  loaded = false;
  readonly #owner: Model;
  readonly #link: Link;
  readonly #session: Session;
  /** The owner's join records (new, saved, and removed ones until synced). */
  readonly #joins: Store<Model>;
  /** Each join record's target. */
  readonly #targets = new Map<Model, Model>();

  constructor(owner: Model, link: Link, session: Session) {
    super({ model: link.target, pageSize: 0, session });
    this.#owner = owner;
    this.#link = link;
    this.#session = session;
    this.#joins = new Store({ model: link.holder, pageSize: 0, session });
    register(owner, link, this);
    for (const join of session.records(link.holder)) if (parentOf(session, join, link) === owner) this.joined(join);
  }

  /** The record a join record points at through the other key. */
  #other(join: Model): Model | undefined {
    const key = this.#link.otherKey ?? '';
    return referenced(join, key) ?? this.#session.get(this.#link.target, join.get(key));
  }

  /** @internal A join record of the owner (new, or its other key changed). */
  joined(join: Model): void {
    const target = this.#other(join);
    const before = this.#targets.get(join);
    if (before === target) return;
    this.left(join);
    if (!this.#joins.getRange().includes(join) && !join.phantom) this.#joins.add(join);
    if (target === undefined) return;
    this.#targets.set(join, target);
    super.add(target);
  }

  /** @internal A join record no longer of the owner. */
  left(join: Model): void {
    const target = this.#targets.get(join);
    this.#targets.delete(join);
    if (target !== undefined && ![...this.#targets.values()].includes(target)) this[UNLIST]([target]);
  }

  /** Link a record: a join record is made (created by the next sync). */
  link(record: Model): void {
    if (!(record instanceof this.#link.target)) throw new TypeError(`${this.#where()}.link: expected a record of ${this.#link.target.getEntityName()}, got ${describeValue(record)}`);
    this.#session[HOLD](record);
    if ([...this.#targets.values()].includes(record)) return;
    const join = new this.#link.holder({});
    this.#session[HOLD](join);
    this.#joins.add(join);
    attach(this.#session, join, { ...this.#link, foreignKey: this.#link.otherKey ?? '' }, record);
    attach(this.#session, join, this.#link, this.#owner);
  }

  /** Unlink a record: its join record is destroyed by the next sync (a new one is just dropped). */
  unlink(record: Model): void {
    for (const [join, target] of [...this.#targets]) {
      if (target !== record) continue;
      this.left(join);
      this.#joins.remove(join);
    }
  }

  override add(): Model[] {
    throw new TypeError(`${this.#where()}: a manyToMany store is changed by link(record) and unlink(record), not add`);
  }

  override insert(): Model[] {
    return this.add();
  }

  override remove(): Model[] {
    throw new TypeError(`${this.#where()}: a manyToMany store is changed by link(record) and unlink(record), not remove`);
  }

  /** Send the new targets, then the join records made and removed. */
  override async sync(options: SyncOptions = {}): Promise<Batch> {
    await super.sync(options);
    return this.#joins.sync(options);
  }

  override hasChanges(): boolean {
    return super.hasChanges() || this.#joins.hasChanges();
  }

  /** Read the owner's join records (by the key, or the `{foreignKey}` url template), then the records they point at. */
  override async load(options: LoadOptions = {}): Promise<Model[]> {
    const id: unknown = this.#owner.getId();
    if (this.#owner.phantom || keyOf(id) === undefined) return this.getRange();
    const { foreignKey, otherKey = '' } = this.#link;
    const url: unknown = Reflect.get(this.#joins.getProxy(), 'url');
    if (typeof url === 'string' && templateNames(url).includes(foreignKey)) {
      await this.#joins.load({ params: { [foreignKey]: id } });
    } else {
      this.#joins.remoteFilter = true;
      this.#joins.filters = [{ property: foreignKey, value: id }];
      await this.#joins.load();
    }
    const ids = this.#joins.getRange().map((join) => join.get(otherKey)).filter((value) => keyOf(value) !== undefined);
    this.remoteFilter = true;
    this.filters = [{ property: this.#link.target.idProperty, operator: 'in', value: ids }];
    const records = ids.length === 0 ? [] : await super.load(options);
    for (const join of this.#joins.getRange()) this.joined(join);
    this.loaded = true;
    return records;
  }

  /** Release the store (Store.destroy); the owner's accessor makes a new one at its next call. */
  override destroy(): void {
    unregister(this.#owner, this.#link, this);
    super.destroy();
  }

  #where(): string {
    return `${this.#link.owner.getEntityName()}.${this.#link.name}`;
  }
}

/** The owner's store of a manyToMany: the one made, else a new one. */
export function linkedStore(owner: Model, link: Link, session: Session): LinkedStore {
  const made = madeStore(owner, link);
  return made instanceof LinkedStore ? made : new LinkedStore(owner, link, session);
}
