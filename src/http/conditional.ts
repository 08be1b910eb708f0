/**
 * Revalidation by ETag: a read of the url an earlier answer came from (cache buster aside) sends
 * that answer's ETag as `If-None-Match`, and a 304 to it means "nothing changed". Headers and
 * urls only: what a 304 leaves alone is the store's and the record's business.
 */

/** The url an answer's validator is kept for, and the ETag it had. No url: a read by id (its record's ETag). */
export interface Validator {
  readonly url?: string | undefined;
  readonly etag: string;
}

/** The ETag to send as If-None-Match when this read asks for the validator's url, else undefined. */
export function ifNoneMatch(validator: Validator | undefined, url: string): string | undefined {
  // No url: a record's own validator, for any url.
  return validator && (validator.url ?? url) === url ? validator.etag : undefined;
}

/** The validator an answer gives for its url, if it has an ETag. */
export function validatorOf(response: Response, url: string): { url: string; etag: string } | undefined {
  const etag = response.headers.get('etag');
  return etag === null || etag === '*' || !response.ok ? undefined : { url, etag };
}
