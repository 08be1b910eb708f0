/**
 * A `fetch` stand-in that records every call (method, url, headers, body) and answers from a
 * script. Unit tests pass it as the proxy's `fetch` option to see exactly what would be sent.
 */
export interface RecordedCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The raw body text, or undefined when none was sent. */
  body: string | undefined;
  /** The body parsed as JSON, or undefined. */
  json: unknown;
  signal: AbortSignal | undefined;
}

export type Answer =
  | { status?: number; statusText?: string; headers?: Record<string, string>; body?: unknown; redirected?: boolean }
  | Response
  | Error;

export type Responder = (call: RecordedCall, index: number) => Answer | Promise<Answer>;

export interface RecordingFetch {
  (input: string | URL | Request, init?: RequestInit): Promise<Response>;
  calls: RecordedCall[];
  /** The last call, or throws when none was made. */
  last(): RecordedCall;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 400: 'Bad Request', 404: 'Not Found', 409: 'Conflict',
  412: 'Precondition Failed', 422: 'Unprocessable Entity', 500: 'Internal Server Error', 503: 'Service Unavailable',
};

function toResponse(answer: Exclude<Answer, Response | Error>): Response {
  const status = answer.status ?? 200;
  const headers = new Headers(answer.headers);
  let body: string | null = null;
  if (answer.body !== undefined && status !== 204 && status !== 205 && status !== 304) {
    if (typeof answer.body === 'string') {
      body = answer.body;
    } else {
      body = JSON.stringify(answer.body);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
  }
  const response = new Response(body, { status, statusText: answer.statusText ?? STATUS_TEXT[status] ?? '', headers });
  if (answer.redirected) Object.defineProperty(response, 'redirected', { value: true });
  return response;
}

/**
 * Create a recording fetch. `respond` answers each call (default: 200 with `[]` for GET, the
 * request body echoed with status 201 for POST, 200 echo for PUT/PATCH, 204 for DELETE).
 */
export function recordingFetch(respond?: Responder): RecordingFetch {
  const calls: RecordedCall[] = [];
  const fake = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const body = typeof init.body === 'string' ? init.body : init.body == null ? undefined : String(init.body);
    let json: unknown;
    if (body !== undefined) {
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
    }
    const call: RecordedCall = { method, url, headers, body, json, signal: init.signal ?? undefined };
    calls.push(call);
    if (call.signal?.aborted) throw call.signal.reason;
    const answer = respond ? await respond(call, calls.length - 1) : defaultAnswer(call);
    if (answer instanceof Error) throw answer;
    if (answer instanceof Response) return answer;
    return toResponse(answer);
  };
  const last = (): RecordedCall => {
    const call = calls[calls.length - 1];
    if (!call) throw new Error('recordingFetch: no call was made');
    return call;
  };
  return Object.assign(fake, { calls, last });
}

function defaultAnswer(call: RecordedCall): Answer {
  switch (call.method) {
    case 'GET':
      return { body: [] };
    case 'POST':
      return { status: 201, body: call.json ?? {} };
    case 'DELETE':
      return { status: 204 };
    default:
      return { status: 200, body: call.json ?? {} };
  }
}
