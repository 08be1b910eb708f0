import { BatchError } from './BatchError.js';
import { ProxyError } from './ProxyError.js';

/** The sentences `userMessage` gives, by what went wrong; pass some of them to reword or translate. */
export interface UserMessages {
  /** kind 'network': no answer */
  network: string;
  /** kind 'timeout' */
  timeout: string;
  /** kind 'abort', unless superseded */
  abort: string;
  /** kind 'validation': the record's `errors` say which fields */
  validation: string;
  /** kind 'conflict': 409, 412 */
  conflict: string;
  /** 401 */
  unauthorized: string;
  /** 403 */
  forbidden: string;
  /** 404, 410 */
  notFound: string;
  /** 429, 5xx */
  unavailable: string;
  /** any other error status */
  refused: string;
  /** kinds 'server' and 'parse': an answer that cannot be used */
  server: string;
  /** kind 'config' (a bug of the app) and anything that is not a ProxyError */
  failed: string;
}

const TEXTS: UserMessages = {
  network: 'Could not reach the server.',
  timeout: 'The server did not answer in time.',
  abort: 'Cancelled.',
  validation: 'Some fields need attention.',
  conflict: 'Someone else changed this record.',
  unauthorized: 'Please sign in again.',
  forbidden: 'You are not allowed to do this.',
  notFound: 'Not found: it may have been deleted.',
  unavailable: 'The server is unavailable. Try again later.',
  refused: 'The server refused the request.',
  server: 'The server could not do it.',
  failed: 'Something went wrong.',
};

function keyOf(error: unknown): keyof UserMessages | '' {
  if (!(error instanceof ProxyError)) return 'failed';
  const { kind, status } = error;
  switch (kind) {
    case 'network':
    case 'timeout':
    case 'validation':
    case 'conflict':
    case 'server':
      return kind;
    case 'parse':
      return 'server';
    case 'abort':
      return error.superseded ? '' : 'abort';
    case 'http':
      return status === 401 ? 'unauthorized' : status === 403 ? 'forbidden' : status === 404 || status === 410 ? 'notFound' : status === 429 || status > 499 ? 'unavailable' : 'refused';
    default:
      // A failure that comes from another one (a write that needed another record's first) says what that one does.
      return error.cause instanceof ProxyError ? keyOf(error.cause) : 'failed';
  }
}

/**
 * One short sentence for the end user about a failed load, save or sync, by its kind: "Could not
 * reach the server.", "Some fields need attention.", "Someone else changed this record.". The
 * error's `message` is for developers (the url, the status, what to configure); show this one.
 * `''` when there is nothing to show: no error, or a load a newer one superseded. For a
 * `BatchError`, the sentence of its first failure that is not a validation one (field errors are
 * shown by the records' `errors`), else 'validation''s. `texts` replaces some of the sentences.
 * @example <p role="alert">{userMessage(snapshot.error)}</p>
 */
export function userMessage(error: unknown, texts?: Partial<UserMessages>): string {
  const failure = error instanceof BatchError ? (error.errors.find((each) => each.kind !== 'validation') ?? error.errors[0]) : error;
  const key = failure == null ? '' : keyOf(failure);
  return key && (texts?.[key] ?? TEXTS[key]);
}
