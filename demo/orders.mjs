// A million orders for the demo's virtual grid (orders.html), computed on request: there is no
// data file. GET /api/orders?start=&limit= answers the rows of that page with the total in
// X-Total-Count; PUT /api/orders/:id keeps the edited title (in memory, for this run).

/** How many orders the server has. */
export const ORDER_COUNT = 1_000_000;
const MAX_LIMIT = 1_000;

/**
 * The order of id `id` (1 to ORDER_COUNT), with the edits saved in this run.
 *
 * @param {number} id
 * @param {Map<number, string>} titles
 */
function orderOf(id, titles) {
  return { id, title: titles.get(id) ?? `Order ${id}`, amount: ((id * 7919) % 100_000) / 100, date: new Date(Date.UTC(2026, 0, 1) - id * 60_000).toISOString().slice(0, 10) };
}

/**
 * Add the orders' routes to the demo's express app (before json-server's router, after the body
 * parser and the failure switch).
 *
 * @param {ReturnType<typeof import('json-server').create>} app the app of json-server.create()
 */
export function addOrderRoutes(app) {
  /** @type {Map<number, string>} */
  const titles = new Map();
  app.get('/api/orders', (req, res) => {
    const start = Number(req.query.start ?? 0);
    const limit = Number(req.query.limit ?? 25);
    if (!Number.isInteger(start) || start < 0 || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      res.status(400).json({ message: `start must be an integer >= 0 and limit an integer from 1 to ${MAX_LIMIT}` });
      return;
    }
    const rows = [];
    for (let index = start; index < Math.min(ORDER_COUNT, start + limit); index++) rows.push(orderOf(index + 1, titles));
    res.set('X-Total-Count', String(ORDER_COUNT)).set('Access-Control-Expose-Headers', 'X-Total-Count').json(rows);
  });
  app.put('/api/orders/:id', (req, res) => {
    const id = Number(req.params.id);
    if (!Number.isInteger(id) || id < 1 || id > ORDER_COUNT) {
      res.status(404).json({ message: `no order ${req.params.id}` });
      return;
    }
    const title = req.body?.title;
    if (typeof title !== 'string' || title.trim() === '') {
      res.status(422).json({ errors: { title: ['title must be a non-empty string'] } });
      return;
    }
    titles.set(id, title);
    res.json(orderOf(id, titles));
  });
}
