/** Types of demo/server.mjs, for the tests (TypeScript). */
export interface DemoOptions {
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Log every request to the terminal (morgan). Default false. */
  logger?: boolean;
  /** The database to start from (copied to a temporary file). Default demo/db.json. */
  db?: string;
  /** Serve the files of this directory as the page (a built app, e.g. an example of examples/) instead of the demo's own. */
  publicDir?: string;
}

export interface Demo {
  /** The page's address, e.g. `http://127.0.0.1:3000/`. */
  url: string;
  host: string;
  port: number;
  /** The temporary copy of the database the server works on. */
  dbFile: string;
  /** Make the server answer 503 to every write (true) or behave again (false). */
  setFailWrites(value: boolean): void;
  /** Stop listening, drop open connections, delete the temporary database. */
  close(): Promise<void>;
}

export const DEMO_DB: string;
export function startDemo(options?: DemoOptions): Promise<Demo>;
