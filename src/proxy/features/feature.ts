/**
 * A record-aware feature of the transport: small steps around a send, each testable with a fake
 * answer. The AjaxProxy composes the features its options turn on; one that is off costs nothing.
 */
import type { ProxyError } from '../../errors/ProxyError.js';
import type { Exchange } from '../../http/types.js';
import type { Request } from '../../operation/Request.js';

export interface Feature {
  /** Change the headers of a request about to be sent; throw a ProxyError to refuse it. */
  beforeSend?(request: Request, headers: Record<string, string>): void;
  /**
   * An error answer that may only say that an earlier, unanswered try of this write was applied:
   * `'again'` sends the request once more (after taking what the answer says); undefined: the
   * error stands.
   */
  recover?(request: Request, exchange: Exchange, error: ProxyError): 'again' | undefined;
}

/** The one record a request is about, when it is about exactly one. */
export function onlyRecord<T>(records: readonly T[]): T | undefined {
  return records.length === 1 ? records[0] : undefined;
}
