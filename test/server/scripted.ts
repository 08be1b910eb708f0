// One-off scripted routes (server.respond): matched in registration order, each for `times` requests.
import type { RecordedRequest, Reply, ScriptedAnswer, ScriptedResponder, ScriptedRoute } from './types.js';

interface Entry {
  route: ScriptedRoute;
  responder: ScriptedResponder;
  remaining: number;
}

function pathMatches(path: string | RegExp, req: RecordedRequest): boolean {
  if (typeof path === 'string') return req.path === path || req.url === path;
  path.lastIndex = 0;
  if (path.test(req.path)) return true;
  path.lastIndex = 0;
  return path.test(req.url);
}

export class ScriptedRoutes {
  private entries: Entry[] = [];

  add(method: string, path: string | RegExp, responder: ScriptedResponder, times = Infinity): ScriptedRoute {
    const route: ScriptedRoute = {
      method: method.toUpperCase(),
      path,
      calls: 0,
      remove: () => {
        this.entries = this.entries.filter((entry) => entry.route !== route);
      },
    };
    this.entries.push({ route, responder, remaining: times });
    return route;
  }

  /** The responder for this request, consuming one of its uses. */
  take(req: RecordedRequest): ScriptedResponder | undefined {
    const entry = this.entries.find(
      ({ route }) => (route.method === '*' || route.method === req.method.toUpperCase()) && pathMatches(route.path, req),
    );
    if (!entry) return undefined;
    entry.route.calls += 1;
    entry.remaining -= 1;
    if (entry.remaining <= 0) entry.route.remove();
    return entry.responder;
  }

  reset(): void {
    this.entries = [];
  }
}

/** Sets a header, replacing any differently-cased copy of it. */
export function setHeader(headers: Record<string, string>, name: string, value: string): void {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name.toLowerCase()) delete headers[key];
  headers[name] = value;
}

export function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name.toLowerCase());
}

/** A scripted answer (or a status fault's body) as a reply: objects become JSON. */
export function toReply(answer: ScriptedAnswer): Reply {
  const headers = { ...answer.headers };
  let body: string | undefined;
  let contentType = 'application/json';
  if (typeof answer.body === 'string') {
    body = answer.body;
    try {
      JSON.parse(body);
    } catch {
      contentType = 'text/plain; charset=utf-8';
    }
  } else if (answer.body !== undefined) {
    body = JSON.stringify(answer.body);
  }
  if (body !== undefined && !hasHeader(headers, 'content-type')) headers['Content-Type'] = contentType;
  return { status: answer.status ?? 200, headers, body };
}
