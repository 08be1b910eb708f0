/**
 * The UI code the docs teach (the tsx, vue and svelte blocks of docs/*.md and the README) and the
 * React and Vue examples, read as text: these blocks are not run, so two habits that users copy
 * are checked here.
 * - A load or sync started from a click or an effect has a `.catch` (or is awaited in a
 *   `try`): a second click on Next supersedes the first load, which rejects, and without a catch
 *   the console shows "Uncaught (in promise) ProxyError: the load was superseded".
 * - What the user reads is `userMessage(error)`, never `error.message` (for developers: urls,
 *   statuses, option names).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const UI_LANGS = new Set(['tsx', 'jsx', 'vue', 'svelte']);

interface Snippet {
  where: string;
  lines: string[];
}

/** The tsx, vue and svelte blocks of a markdown file, each line numbered as in the file. */
function markdownSnippets(file: string): Snippet[] {
  const snippets: Snippet[] = [];
  let open: { start: number; lines: string[] } | undefined;
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const fence = /^```(\w*)/.exec(line);
      if (fence && open === undefined) {
        if (UI_LANGS.has(fence[1] ?? '')) open = { start: index + 2, lines: [] };
        else if (fence[1] !== '') open = { start: -1, lines: [] };
        return;
      }
      if (fence && open !== undefined) {
        if (open.start > 0) snippets.push({ where: `${file}:${open.start}`, lines: open.lines });
        open = undefined;
        return;
      }
      open?.lines.push(line);
    });
  return snippets;
}

function exampleSnippets(): Snippet[] {
  return ['react', 'vue'].flatMap((name) => {
    const dir = join(ROOT, 'examples', name, 'src');
    return readdirSync(dir)
      .filter((file) => /\.(tsx|vue)$/.test(file))
      .map((file) => ({ where: `examples/${name}/src/${file}:1`, lines: readFileSync(join(dir, file), 'utf8').split('\n') }));
  });
}

function allSnippets(): Snippet[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return [...['README.md', ...docs].flatMap(markdownSnippets), ...exampleSnippets()];
}

/** Each line of the snippets that matches `bad`, as `file:line: text`. */
function offending(snippets: Snippet[], bad: (line: string) => boolean): string[] {
  return snippets.flatMap(({ where, lines }) => {
    const [file, start] = where.split(/:(?=\d+$)/);
    return lines.flatMap((line, i) => (bad(line) ? [`${file}:${Number(start) + i}: ${line.trim()}`] : []));
  });
}

describe('the UI code of the docs and the examples', () => {
  const snippets = allSnippets();

  it('has tsx, vue and svelte blocks to read', () => {
    expect(snippets.filter((snippet) => snippet.where.startsWith('docs/')).length).toBeGreaterThan(4);
    expect(snippets.filter((snippet) => snippet.where.startsWith('examples/')).length).toBeGreaterThan(4);
  });

  it('catches every load and sync it starts without awaiting', () => {
    const start = /\.(load|loadPage|nextPage|previousPage|sort|sync|reload)\(/;
    const unhandled = offending(snippets, (line) => start.test(line) && !/\bawait\b|\.catch\(|\bthen\(/.test(line) && !/^\s*(\/\/|\*|\/\*)/.test(line));
    expect(unhandled).toEqual([]);
  });

  it("shows the user userMessage(error), never the error's message", () => {
    // `error.message` inside JSX or a template (between braces), or given to a state setter.
    const shown = offending(snippets, (line) => /\{[^}]*\berror\??\.message\b[^}]*\}|set\w*\([^)]*\berror\??\.message/.test(line));
    expect(shown).toEqual([]);
  });
});
