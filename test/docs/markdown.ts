/**
 * Reading the code examples out of the docs: the ```ts blocks of a markdown file, the optional
 * `<!-- docs-test: {...} -->` line above a block (server setup the reader does not need to see),
 * the requests a block's comments say it sends (`// PUT /users/7`), and the values they say an
 * expression has (`store.getCount(); // → 25`).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Fault, ScriptedAnswer } from '../server/index.js';

/** How the test server is set up for one block (all optional). */
export interface BlockSetup {
  /** The conventions the test server speaks. Default 'plain' (or the block's `preset`). */
  conventions?: string;
  /** Faults to inject, in order (test/server/API.md). */
  inject?: Fault[];
  /** Scripted answers: `{ method, path, answer, times? }`. */
  respond?: { method: string; path: string; answer: ScriptedAnswer; times?: number }[];
  /** rails: accepts_nested_attributes_for (TestServerOptions.nested). */
  nested?: Record<string, Record<string, { foreignKey: string }>>;
}

export interface CodeBlock {
  /** The markdown file, relative to the repository root. */
  file: string;
  /** The line of the opening fence (1-based). */
  line: number;
  code: string;
  setup: BlockSetup;
  /** The first line is `// not run`: a fragment that cannot run on its own. */
  skipped: boolean;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const SETUP = /^<!--\s*docs-test:\s*(\{.*\})\s*-->\s*$/;

/** Every ```ts (or ```typescript) block of a markdown text. */
export function extractBlocks(file: string, text: string): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open) continue;
    const fence = open[1] ?? '```';
    const lang = (open[2] ?? '').toLowerCase();
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? '';
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]?.[0] === fence[0] && (close[1]?.length ?? 0) >= fence.length) break;
      body.push(line);
    }
    if (lang === 'ts' || lang === 'typescript') {
      let k = i - 1;
      while (k >= 0 && (lines[k] ?? '').trim() === '') k--;
      const setupMatch = k >= 0 ? SETUP.exec((lines[k] ?? '').trim()) : null;
      let setup: BlockSetup = {};
      if (setupMatch) {
        try {
          setup = JSON.parse(setupMatch[1] ?? '{}') as BlockSetup;
        } catch (error) {
          throw new Error(`${file}:${k + 1}: the docs-test comment is not valid JSON: ${String(error)}`);
        }
      }
      const code = body.join('\n');
      blocks.push({ file, line: i + 1, code, setup, skipped: /^\s*\/\/\s*not run\b/.test(body[0] ?? '') });
    }
    i = j;
  }
  return blocks;
}

/** Where the `//` comment of a line starts (outside strings), or -1. */
export function commentStart(line: string): number {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== undefined) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"' || c === '`') {
      quote = c;
    } else if (c === '/' && line[i + 1] === '/') {
      return i;
    } else if (c === '/' && line[i + 1] === '*') {
      const end = line.indexOf('*/', i + 2);
      if (end === -1) return -1;
      i = end + 1;
    }
  }
  return -1;
}

// ---- requests named in comments ------------------------------------------------------------

export interface ExpectedRequest {
  /** Where the comment is: `docs/stores.md:40`. */
  where: string;
  /** As written: `PUT /users/7`. */
  text: string;
  method: string;
  path: string;
  /** Query params shown; `undefined` value: present with any value. */
  query: [string, string | undefined][];
  /** The JSON body shown right after the url, if any (`// POST /users  {"name":"Ann"}`). */
  body?: unknown;
}

const REQUEST = /\b(GET|POST|PUT|PATCH|DELETE|HEAD)\s+((?:https?:\/\/[^\s/]+)?\/[^\s]*)/g;

/** A value in a comment that stands for "any value": `...`, `<ms>`, a timestamp. */
function isAnyValue(value: string): boolean {
  return value === '...' || value === '…' || /^<[^>]*>$/.test(value) || /^1\d{12}$/.test(value);
}

/** The requests the comments of a block say it sends (value comments `// →` excluded). */
export function expectedRequests(block: CodeBlock, code: string): ExpectedRequest[] {
  const out: ExpectedRequest[] = [];
  code.split('\n').forEach((line, index) => {
    const at = commentStart(line);
    if (at === -1) return;
    const comment = line.slice(at + 2);
    if (/^\s*→/.test(comment)) return;
    for (const match of comment.matchAll(REQUEST)) {
      const method = match[1] ?? 'GET';
      let url = (match[2] ?? '').replace(/[,;:.)]+$/, '');
      url = url.replace(/^https?:\/\/[^/]+/, '');
      const queryAt = url.indexOf('?');
      const path = queryAt === -1 ? url : url.slice(0, queryAt);
      const query: [string, string | undefined][] = [];
      if (queryAt !== -1) {
        for (const pair of url.slice(queryAt + 1).split('&')) {
          const eq = pair.indexOf('=');
          const key = eq === -1 ? pair : pair.slice(0, eq);
          if (key === '' || isAnyValue(key)) continue;
          const raw = eq === -1 ? undefined : pair.slice(eq + 1);
          const value = raw === undefined || isAnyValue(raw) ? undefined : safeDecode(raw);
          query.push([safeDecode(key), value]);
        }
      }
      const where = `${block.file}:${block.line + 1 + index}`;
      const text = `${method} ${match[2] ?? ''}`.replace(/[,;:.)]+$/, '');
      const expected: ExpectedRequest = { where, text, method, path, query };
      const after = comment.slice((match.index ?? 0) + match[0].length).trimStart();
      if (after.startsWith('{') || after.startsWith('[')) {
        const literal = leadingLiteral(after);
        try {
          expected.body = JSON.parse(literal ?? '');
        } catch {
          throw new Error(`${where}: the body shown after ${text} is not JSON: ${after}`);
        }
      }
      out.push(expected);
    }
  });
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

export interface SeenRequest {
  method: string;
  /** The path as sent (percent-encoded). */
  path: string;
  query: URLSearchParams;
  /** The parsed JSON body, if any. */
  json: unknown;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether a request is the one a comment names: verb, path, the query params shown and the body
 * shown. `loose`: a numeric path segment matches any numeric segment, and the body is not
 * compared (the README shows the ids of a typical database, not those of the test server's seed).
 */
export function requestMatches(expected: ExpectedRequest, seen: SeenRequest, loose: boolean): boolean {
  if (expected.method !== seen.method) return false;
  if (loose) {
    const pattern = escapeRegExp(expected.path).replace(/(?<=\/)\d+(?=\/|\\\.|$)/g, '\\d+');
    if (!new RegExp(`^${pattern}$`).test(seen.path)) return false;
  } else if (expected.path !== seen.path) {
    return false;
  }
  if (!loose && expected.body !== undefined && !isDeepStrictEqual(seen.json, expected.body)) return false;
  return expected.query.every(([key, value]) => (value === undefined ? seen.query.has(key) : seen.query.getAll(key).includes(value)));
}

/**
 * Match every expected request to a distinct request the server saw: exact matches first, then
 * (when `loose`) loose ones. Returns the expectations that found no request.
 */
export function unmatchedRequests(expected: ExpectedRequest[], seen: SeenRequest[], loose: boolean): ExpectedRequest[] {
  const used = new Set<number>();
  const pending: ExpectedRequest[] = [];
  for (const want of expected) {
    const index = seen.findIndex((request, i) => !used.has(i) && requestMatches(want, request, false));
    if (index === -1) pending.push(want);
    else used.add(index);
  }
  if (!loose) return pending;
  return pending.filter((want) => {
    const index = seen.findIndex((request, i) => !used.has(i) && requestMatches(want, request, true));
    if (index === -1) return true;
    used.add(index);
    return false;
  });
}

// ---- values named in comments ----------------------------------------------------------------

/** The literal at the start of a value comment, as source text (the rest is prose). */
export function leadingLiteral(text: string): string | undefined {
  const s = text.trimStart();
  const first = s[0];
  if (first === "'" || first === '"' || first === '`') {
    for (let i = 1; i < s.length; i++) {
      if (s[i] === '\\') i++;
      else if (s[i] === first) return s.slice(0, i + 1);
    }
    return undefined;
  }
  if (first === '[' || first === '{') {
    let depth = 0;
    let quote: string | undefined;
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (quote !== undefined) {
        if (c === '\\') i++;
        else if (c === quote) quote = undefined;
      } else if (c === "'" || c === '"' || c === '`') quote = c;
      else if (c === '[' || c === '{') depth++;
      else if (c === ']' || c === '}') {
        depth--;
        if (depth === 0) return s.slice(0, i + 1);
      }
    }
    return undefined;
  }
  const word = /^(-?\d+(\.\d+)?|true|false|null|undefined)\b/.exec(s);
  return word?.[0];
}

const NOT_AN_EXPRESSION = /^(const|let|var|if|else|for|while|do|return|import|export|class|function|async function|throw|try|catch|finally|switch|case|break|continue|type|interface|static|\}|\{|\/\/)\b/;

/**
 * Rewrite the value comments of a block into checks, keeping every line on its line:
 * `expr; // → 3` becomes `__docCheck(expr, 3, "file:line");` and
 * `const x = expr; // → 3` gets `__docCheck(x, 3, ...)` after it.
 */
export function instrumentValueChecks(block: CodeBlock, code: string): string {
  return code
    .split('\n')
    .map((line, index) => {
      const at = commentStart(line);
      if (at === -1) return line;
      const comment = line.slice(at + 2);
      const arrow = /^\s*→\s*/.exec(comment);
      if (!arrow) return line;
      const where = `${block.file}:${block.line + 1 + index}`;
      const literal = leadingLiteral(comment.slice(arrow[0].length));
      if (literal === undefined) throw new Error(`${where}: the value after → is not a literal: ${comment}`);
      const statement = line.slice(0, at).trim().replace(/;$/, '');
      const indent = /^\s*/.exec(line)?.[0] ?? '';
      const declaration = /^(?:const|let|var)\s+([A-Za-z_$][\w$]*)(?:\s*:\s*[^=]+)?\s*=/.exec(statement);
      if (declaration) return `${indent}${statement}; __docCheck(${declaration[1]}, ${literal}, ${JSON.stringify(where)});`;
      if (statement === '' || NOT_AN_EXPRESSION.test(statement)) {
        throw new Error(`${where}: a → comment must follow an expression or a const declaration on the same line`);
      }
      return `${indent}__docCheck((${statement}), ${literal}, ${JSON.stringify(where)});`;
    })
    .join('\n');
}
