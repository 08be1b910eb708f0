// Shared types of the test server (see API.md).

/** One stored record. Values stay `unknown`: the server stores whatever JSON the client sent. */
export type Row = Record<string, unknown>;

/** The live data: collection name -> rows. */
export type Db = Record<string, Row[]>;

/** Element type of one collection of the initial resources, widened so unknown fields stay readable. */
type RowOf<E> = [E] extends [never] ? Row : E & Row;

/**
 * The typed view of `server.db`: the collections given in `resources` keep their row types,
 * and any other collection (created later by a POST) can still be indexed.
 */
export type DbOf<R> = { [K in keyof R]: R[K] extends readonly (infer E)[] ? RowOf<E>[] : Row[] } & Db;

export type ConventionName = 'plain' | 'django-rest' | 'rails' | 'laravel' | 'spring-data-rest' | 'json-api';

/** A request as the server received it (recorded in `server.requests`). */
export interface RecordedRequest {
  method: string;
  /** path + query, as sent */
  url: string;
  /** path only, still percent-encoded */
  path: string;
  query: URLSearchParams;
  /** lower-cased names; repeated headers joined with ', ' */
  headers: Record<string, string>;
  /** raw body text ('' when none) */
  body: string;
  /** parsed body, or undefined when empty or not JSON */
  json: unknown;
  /** the fault applied to this request, if any */
  fault?: FaultType;
}

/** A complete answer before it is written (faults may still cut or drop it). */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

// ---- faults -------------------------------------------------------------------------------

export type FaultType = 'status' | 'reset-before' | 'reset-after' | 'stall' | 'delay' | 'truncate' | 'html' | 'duplicate';

export interface FaultMatch {
  method?: string | string[];
  /** string: prefix of the path (or path+query); RegExp: tested against the path and path+query */
  path?: string | RegExp;
}

interface FaultCommon {
  match?: FaultMatch;
  /** how many matching requests get this fault (default 1; Infinity for all) */
  times?: number;
}

export type Fault = FaultCommon &
  (
    | { type: 'status'; status?: number; headers?: Record<string, string>; body?: string | object }
    | { type: 'reset-before' }
    | { type: 'reset-after' }
    | { type: 'stall'; ms?: number }
    | { type: 'delay'; ms: number }
    | { type: 'truncate' }
    | { type: 'html'; status?: number }
    | { type: 'duplicate' }
  );

export interface ChaosOptions {
  /** share of matching requests that get a fault, 0..1 */
  rate: number;
  seed?: number;
  types?: FaultType[];
  /** stall length for 'stall' (default 1000 ms) */
  stallMs?: number;
  /** delay for 'delay' (default 50 ms) */
  delayMs?: number;
  /** status for 'status' (default 503) */
  status?: number;
  /** headers for 'status' answers, e.g. { 'Retry-After': '0' } */
  headers?: Record<string, string>;
  match?: FaultMatch;
}

export interface ServerStats {
  requests: number;
  /** requests that got any fault */
  faulted: number;
  faults: Record<FaultType, number>;
}

// ---- scripted routes --------------------------------------------------------------------------

export interface ScriptedAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** object -> JSON; string -> sent as is (Content-Type JSON when it parses as JSON, else text/plain) */
  body?: string | object;
  delayMs?: number;
}

export type ScriptedResponder = ScriptedAnswer | ((req: RecordedRequest) => ScriptedAnswer | Promise<ScriptedAnswer>);

export interface RespondOptions {
  /** how many matching requests this route answers (default: forever) */
  times?: number;
}

export interface ScriptedRoute {
  method: string;
  path: string | RegExp;
  /** how many requests it has answered */
  calls: number;
  remove(): void;
}

// ---- server -----------------------------------------------------------------------------------

export interface TestServerOptions<R extends object = Db> {
  conventions?: ConventionName;
  /** initial data per collection (deep-copied) */
  resources?: R;
  /** fields whose absence/empty value gives the convention's validation error */
  required?: Record<string, string[]>;
  /** plain mode only: list answers { success, total, data } */
  envelope?: boolean;
  /**
   * Column names per collection, for the conventions that drop unknown body keys (rails strong
   * params, DRF serializers). Default: the keys seen in the initial rows plus `required`.
   */
  fields?: Record<string, string[]>;
  /** a path prefix to strip, e.g. '/api' (a leading '/api' is also stripped when no collection is named 'api') */
  basePath?: string;
  /**
   * false: every answer (CORS preflights included) carries `Connection: close` and its connection is
   * closed after it, so each request travels on a new connection. Default true (HTTP/1.1 keep-alive).
   * The browser run's hub sets false: Chromium re-sends a request on its own when a reused
   * connection is dropped before any answer (or answers 408), which would use up injected faults
   * and deliver writes twice (test/resilience/browser-resend.browser.test.ts).
   */
  keepAlive?: boolean;
  /**
   * rails only: accepts_nested_attributes_for, e.g. `{ users: { posts: { foreignKey: 'user_id' } } }`:
   * `posts_attributes` in a user's body creates, updates (by id) and destroys (`_destroy`) its posts
   * in one transaction, and a user is answered with its `posts` (`render json: @user, include: :posts`).
   */
  nested?: Record<string, Record<string, { collection?: string; foreignKey: string }>>;
}

export interface TestServer<R extends object = Db> {
  /** 'http://127.0.0.1:PORT', no trailing slash */
  readonly url: string;
  readonly db: DbOf<R>;
  readonly requests: RecordedRequest[];
  readonly stats: ServerStats;
  inject<F extends Fault>(fault: F): F;
  /** method '*' matches any; a string path matches the path exactly (or path+query), a RegExp is tested on both */
  respond(method: string, path: string | RegExp, answer: ScriptedResponder, options?: RespondOptions): ScriptedRoute;
  chaos(options: ChaosOptions | null): void;
  /** clears requests, scripted routes, faults, chaos and stats (not the data) */
  reset(): void;
  close(): Promise<void>;
}
