/**
 * A collection route that answers a summary beside the rows (API.md section 12's remote
 * summaries): `GET /<collection>?start&limit&summary=[{"property","summary"}]` answers
 * `{ data: [the page], total, summary: { amount: 35, ... } }`, each figure over the whole
 * collection (never the page). For Node tests: the answer reads `server.db` (a browser run
 * cannot send a closure to the hub).
 */
import type { Row, ScriptedAnswer, ScriptedRoute, TestServer } from './index.js';
import type { RecordedRequest } from './types.js';

type Kind = 'sum' | 'average' | 'min' | 'max' | 'count';

function figure(rows: Row[], property: string, kind: Kind): unknown {
  const values = rows.map((row) => row[property]).filter((value): value is number => typeof value === 'number');
  if (kind === 'count') return values.length;
  if (kind === 'sum') return values.reduce((a, b) => a + b, 0);
  if (values.length === 0) return null;
  if (kind === 'average') return values.reduce((a, b) => a + b, 0) / values.length;
  return kind === 'min' ? Math.min(...values) : Math.max(...values);
}

/** The summary a request asks for, over `rows`. */
export function summaryOf(rows: Row[], req: RecordedRequest): Record<string, unknown> {
  const asked: unknown = JSON.parse(req.query.get('summary') ?? '[]');

  const summary: Record<string, unknown> = {};
  if (!Array.isArray(asked)) return summary;
  for (const item of asked.slice(0, 50)) {
    if (typeof item !== 'object' || item === null) continue;
    const property: unknown = Reflect.get(item, 'property');
    const kind: unknown = Reflect.get(item, 'summary');
    if (typeof property === 'string' && (kind === 'sum' || kind === 'average' || kind === 'min' || kind === 'max' || kind === 'count')) {
      summary[property] = figure(rows, property, kind);
    }
  }
  return summary;
}

/**
 * Answer the collection's list with its summary (`summary` replaces it, e.g. a hostile one);
 * rows are read from `server.db` at each request.
 */
export function serveSummaries(server: TestServer, collection: string, summary?: (req: RecordedRequest) => unknown): ScriptedRoute {
  return server.respond('GET', new RegExp(`^/${collection}$`), (req): ScriptedAnswer => {
    const rows = server.db[collection] ?? [];
    const start = Number(req.query.get('start') ?? 0);
    const limit = Number(req.query.get('limit') ?? rows.length);
    return {
      status: 200,
      body: { data: rows.slice(start, start + limit), total: rows.length, summary: summary ? summary(req) : summaryOf(rows, req) },
    };
  });
}
