/**
 * Request headers as a plain object by lower-case name (as fetch sends them), checked as a
 * Headers object would check them, with messages that name the header.
 */
import { is } from '../util/options.js';
import { dev } from '../util/dev.js';

/** Why fetch would refuse this header, or undefined when it is fine. */
export function headerProblem(name: string, value: unknown): string | undefined {
  if (!is.headerName.test(name)) return `the header name ${JSON.stringify(name)} is not valid${dev(" (letters, digits and !#$%&'*+-.^_`|~ only)")}`;
  if (typeof value !== 'string') return `the value of the header "${name}" must be a string`;
  if (!is.headerValue.test(value)) return `the value of the header "${name}" is not valid${dev(' (no line breaks, NUL or characters beyond \\xFF)')}: ${JSON.stringify(value)}`;
  return undefined;
}

/** Add headers by lower-case name, trimmed as a Headers would; throws a TypeError naming a header fetch would refuse. */
export function addHeaders(into: Record<string, string>, headers: Readonly<Record<string, string>>): void {
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const problem = headerProblem(name, value);
    if (problem !== undefined) throw new TypeError(problem);
    into[name.toLowerCase()] = value.replace(/^[\t ]+|[\t ]+$/g, '');
  }
}

/** `Basic <base64 of user:password>`, the password in UTF-8 (btoa alone fails beyond Latin-1). */
export function basicAuth(username: string, password: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(`${username}:${password}`)) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}
