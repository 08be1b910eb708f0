/**
 * The live-UI section (issue 20): what a grid over a Store pays per edit, and for a local sort,
 * filter and group, each against its floor in the same run.
 *
 * - One edit, awaited until a subscriber has the new snapshot (one subscriber, as `useStore`
 *   has; the median edit of each run, so that a run is not one descheduling of the process), at 1,000 and 100,000 records, the store unsorted and locally sorted by `name`, the edit
 *   of `name` (the sort key) and of `age` (another field). Floor: one copy of the array a view
 *   shows (section 8 wants a new `records` array), handed over in a microtask. Beside it (no
 *   target): TanStack DB (`@tanstack/db`, a dev dependency of the bench) read as `useLiveQuery`
 *   reads it: the same rows in a local-only collection, a live query of it (unsorted, or
 *   `orderBy` name), and the observer React's adapter subscribes to in `wholesale` mode, its
 *   snapshot (`data`, a new array) read in the listener as `useSyncExternalStore` reads it; the
 *   edit is `collection.update(key, draft => ...)`. One collection, the unsorted live query and
 *   then the sorted one alone on it, each in alternated rounds of its own with the floor. At
 *   100,000 an edit takes a large part of a second (and a sorted live query seconds to build),
 *   so one edit per run and 4 runs, to keep the section short; at 1,000 a quarter as many edits
 *   per run, each timed alone (hundreds of µs: no `batch` needed for the browser's clock).
 *   `BENCH_TANSTACK=0` leaves TanStack DB out.
 * - Local sort, filter and group of 100,000: `store.sort('name', 'ASC')`, `store.filter('name',
 *   value)`, `store.group('name')` + `getGroups()`, against `Array.prototype.sort` with a key
 *   comparator, `Array.prototype.filter` reading the raw field, and that sort plus one pass
 *   cutting it into groups, on the same rows as plain objects.
 */
import { alternate, libModels, median, summarize } from './cases.mjs';

const NAMES = ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Frances', 'Dennis']
  .flatMap((first) => ['Lovelace', 'Turing', 'Hopper', 'Dijkstra', 'Liskov', 'Knuth', 'Hamilton', 'Thompson', 'Allen', 'Ritchie'].map((last) => `${first} ${last}`));

function random(seed) {
  return () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 4294967296;
  };
}

/** The prefix of the TanStack DB variants' names (bench/run.mjs prints them as a column). */
export const TANSTACK = 'TanStack DB: ';

const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * `batch`: edits timed together, each awaited, the time divided by their number (the browser's
 * clock counts in steps of 5 µs, too coarse for one edit of 1,000 records).
 */
export async function liveSection({ lib, url, quick, gc, log, batch = 1, tanstack: withTanstack = true }) {
  // BENCH_TANSTACK=0 leaves TanStack DB out (working on rest-proxy's own rows: the section in a third of the time).
  const tanstack = !withTanstack ? undefined : await import('@tanstack/db').catch((error) => {
    log(`live: TanStack DB left out (${error.message})`);
    return undefined;
  });
  const { typed: User } = libModels(lib);
  const loadStore = async (n, config = {}) => {
    const store = new lib.Store({ model: User, proxy: new lib.RestProxy({ url: url(n) }), pageSize: 0, ...config });
    await store.load();
    if (store.getCount() !== n) throw new Error(`live: loaded ${store.getCount()} of ${n}`);
    return store;
  };
  const rowsOf = async (n) => (await fetch(url(n))).json();
  const out = { edit: {}, query: undefined };

  // ---- one edit until a subscriber is told ----
  for (const n of [1_000, 100_000]) {
    const edits = n >= 100_000 ? (quick ? 5 : 20) : quick ? 50 : 200;
    const unsorted = await loadStore(n);
    const sorted = await loadStore(n);
    await sorted.sort('name', 'ASC');
    const rows = await rowsOf(n);
    const rand = random(7);
    /** A store and a listener that resolves the wait of the edit in progress. */
    const editCase = (name, store, field) => {
      let told;
      let last;
      store.subscribe((snapshot) => {
        last = snapshot;
        told?.();
      });
      return {
        name,
        async run() {
          const times = [];
          for (let i = 0; i < edits; i++) {
            // Distinct records, each given a value it does not have (setting the same value tells no one).
            const picked = new Map();
            while (picked.size < batch) {
              const record = store.getAt(Math.floor(rand() * n));
              let value = record.get(field);
              while (value === record.get(field)) value = field === 'name' ? NAMES[Math.floor(rand() * NAMES.length)] : 18 + Math.floor(rand() * 60);
              picked.set(record, value);
            }
            const t0 = performance.now();
            for (const [record, value] of picked) {
              const before = last;
              const heard = new Promise((resolve) => {
                told = resolve;
              });
              record.set(field, value);
              await heard;
              if (last === before || last.records.length !== n) throw new Error('live: the subscriber was not told a new snapshot');
            }
            times.push((performance.now() - t0) / batch);
          }
          return { edit: median(times) * 1000 };
        },
      };
    };
    const floor = {
      name: 'floor: one copy of the array',
      async run() {
        const times = [];
        for (let i = 0; i < edits; i++) {
          const t0 = performance.now();
          for (let b = 0; b < batch; b++) {
            const copy = await new Promise((resolve) => {
              queueMicrotask(() => resolve(rows.slice()));
            });
            if (copy.length !== n) throw new Error('live: floor');
          }
          times.push((performance.now() - t0) / batch);
        }
        return { edit: median(times) * 1000 };
      },
    };
    /**
     * TanStack DB as a React app reads it: a live query of `source` (its own copy of the rows in
     * a local-only collection) and the observer `useLiveQuery` subscribes to (wholesale: the
     * listener re-reads the snapshot, as `useSyncExternalStore` does).
     */
    const tanstackView = async (source, ordered) => {
      const { createLiveQueryCollection, createLiveQueryObserver } = tanstack;
      const query = createLiveQueryCollection({ query: (q) => (ordered ? q.from({ u: source }).orderBy(({ u }) => u.name) : q.from({ u: source })), startSync: true });
      await query.preload();
      const observer = createLiveQueryObserver(query, { mode: 'wholesale' });
      const view = { source, last: observer.getSnapshot(), told: undefined };
      observer.subscribe(() => {
        view.last = observer.getSnapshot();
        view.told?.();
      });
      if (view.last.data.length !== n) throw new Error(`live: TanStack DB shows ${view.last.data.length} of ${n}`);
      view.close = async () => {
        observer.dispose();
        await query.cleanup();
      };
      return view;
    };
    // At 100,000 an edit takes a large part of a second: one edit per run, and fewer rounds. An
    // edit takes hundreds of µs even at 1,000: timed one by one (no `batch`), and fewer of them.
    const large = n >= 100_000;
    const tanstackCase = (name, view, field) => {
      const perRun = large ? 1 : Math.ceil(edits / 4);
      return {
        name,
        async run() {
          const times = [];
          for (let i = 0; i < perRun; i++) {
            const key = rows[Math.floor(rand() * n)].id;
            const current = view.source.get(key)[field];
            let value = current;
            while (value === current) value = field === 'name' ? NAMES[Math.floor(rand() * NAMES.length)] : 18 + Math.floor(rand() * 60);
            const before = view.last;
            const heard = new Promise((resolve) => {
              view.told = resolve;
            });
            const t0 = performance.now();
            view.source.update(key, (draft) => {
              draft[field] = value;
            });
            await heard;
            times.push(performance.now() - t0);
            if (view.last === before || view.last.data.length !== n) throw new Error('live: TanStack DB did not give its subscriber a new snapshot');
          }
          return { edit: median(times) * 1000 };
        },
      };
    };
    const variants = [
      floor,
      editCase('unsorted, edit of name', unsorted, 'name'),
      editCase('unsorted, edit of age', unsorted, 'age'),
      editCase('sorted by name, edit of name (the sort key)', sorted, 'name'),
      editCase('sorted by name, edit of age', sorted, 'age'),
    ];
    const samples = await alternate(variants, { warmup: quick ? 1 : 2, runs: quick ? 3 : 9, gc });
    out.edit[n] = summarize(samples, floor.name);
    if (tanstack) {
      // One collection of the rows; the unsorted live query, then the sorted one, each alone on it
      // (an edit updates every live query of a collection), each in rounds of its own with the floor.
      const source = tanstack.createCollection(tanstack.localOnlyCollectionOptions({ id: `users-${n}`, getKey: (row) => row.id, initialData: await rowsOf(n) }));
      for (const [ordered, store] of [[false, 'unsorted'], [true, 'sorted by name']]) {
        const view = await tanstackView(source, ordered);
        const cases = [
          floor,
          tanstackCase(`${TANSTACK}${store}, edit of name${ordered ? ' (the sort key)' : ''}`, view, 'name'),
          tanstackCase(`${TANSTACK}${store}, edit of age`, view, 'age'),
        ];
        const runs = large ? (quick ? 2 : 4) : quick ? 3 : 9;
        const { [floor.name]: _floor, ...measured } = summarize(await alternate(cases, { warmup: 1, runs, gc }), floor.name);
        Object.assign(out.edit[n], measured);
        await view.close();
      }
      await source.cleanup();
    }
    log(`live n=${n}: ${Object.entries(out.edit[n]).map(([name, s]) => `${name} ${s.edit.median.toFixed(0)} µs`).join(', ')}`);
  }

  // ---- local sort, filter and group of 100,000 ----
  const n = 100_000;
  const rows = await rowsOf(n);
  const wanted = 'Grace Hopper';
  /** A store loaded for each run (not timed), then the operation timed. */
  const storeCase = (name, operate) => ({
    name,
    async run() {
      const store = await loadStore(n);
      gc?.();
      const t0 = performance.now();
      const shown = await operate(store);
      const t1 = performance.now();
      return { ms: t1 - t0, keep: [store, shown] };
    },
  });
  const arrayCase = (name, operate) => ({
    name,
    async run() {
      const items = rows.slice();
      const t0 = performance.now();
      const shown = operate(items);
      const t1 = performance.now();
      return { ms: t1 - t0, keep: shown };
    },
  });
  const groupsOf = (items) => {
    const groups = [];
    let current;
    for (const item of items) {
      if (current === undefined || current.name !== item.name) groups.push((current = { name: item.name, records: [] }));
      current.records.push(item);
    }
    return groups;
  };
  const cases = {
    sort: [arrayCase('floor', (items) => items.sort(byName)), storeCase('rest-proxy', (store) => store.sort('name', 'ASC'))],
    filter: [arrayCase('floor', (items) => items.filter((item) => item.name === wanted)), storeCase('rest-proxy', (store) => store.filter('name', wanted))],
    group: [
      arrayCase('floor', (items) => groupsOf(items.sort(byName))),
      storeCase('rest-proxy', async (store) => {
        await store.group('name');
        return store.getGroups();
      }),
    ],
  };
  out.query = {};
  for (const [operation, variants] of Object.entries(cases)) {
    const samples = await alternate(variants, { warmup: 1, runs: quick ? 3 : 4, gc });
    out.query[operation] = summarize(samples, 'floor');
    log(`live ${operation} 100k: ${Object.entries(out.query[operation]).map(([name, s]) => `${name} ${s.ms.median.toFixed(1)} ms`).join(', ')}`);
  }
  return out;
}
