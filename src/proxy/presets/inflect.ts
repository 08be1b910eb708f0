/**
 * English singulars as Rails' inflector makes them (ActiveSupport's default inflections), for the
 * root key a Rails controller expects (`params.require(:user)` for `/users`).
 */

const UNCOUNTABLE = new Set(['equipment', 'information', 'rice', 'money', 'species', 'series', 'fish', 'sheep', 'jeans', 'police']);

const IRREGULAR: Record<string, string> = { people: 'person', men: 'man', children: 'child', sexes: 'sex', moves: 'move', zombies: 'zombie' };

/** Tried in order: the first that matches wins (Rails tries its rules last-defined first). */
const RULES: [RegExp, string][] = [
  [/(database)s$/i, '$1'],
  [/(quiz)zes$/i, '$1'],
  [/(matr)ices$/i, '$1ix'],
  [/(vert|ind)ices$/i, '$1ex'],
  [/^(ox)en/i, '$1'],
  [/(alias|status)(es)?$/i, '$1'],
  [/(octop|vir)(us|i)$/i, '$1us'],
  [/^(a)x[ie]s$/i, '$1xis'],
  [/(cris|test)(is|es)$/i, '$1is'],
  [/(shoe)s$/i, '$1'],
  [/(o)es$/i, '$1'],
  [/(bus)(es)?$/i, '$1'],
  [/^(m|l)ice$/i, '$1ouse'],
  [/(x|ch|ss|sh)es$/i, '$1'],
  [/(m)ovies$/i, '$1ovie'],
  [/(s)eries$/i, '$1eries'],
  [/([^aeiouy]|qu)ies$/i, '$1y'],
  [/([lr])ves$/i, '$1f'],
  [/(tive)s$/i, '$1'],
  [/(hive)s$/i, '$1'],
  [/([^f])ves$/i, '$1fe'],
  [/(^analy)(sis|ses)$/i, '$1sis'],
  [/((a)naly|(b)a|(d)iagno|(p)arenthe|(p)rogno|(s)ynop|(t)he)(sis|ses)$/i, '$1sis'],
  [/([ti])a$/i, '$1um'],
  [/(n)ews$/i, '$1ews'],
  [/(ss)$/i, '$1'],
  [/s$/i, ''],
];

/** `users` -> `user`, `people` -> `person`, `blog_posts` -> `blog_post` (the last word is made singular). */
export function singularize(word: string): string {
  const at = word.lastIndexOf('_') + 1;
  const head = word.slice(0, at);
  const last = word.slice(at);
  const lower = last.toLowerCase();
  if (UNCOUNTABLE.has(lower)) return word;
  const irregular = IRREGULAR[lower];
  if (irregular !== undefined) return head + irregular;
  for (const [rule, replacement] of RULES) if (rule.test(last)) return head + last.replace(rule, replacement);
  return word;
}

/** `BlogPost` -> `blog_post`, `blog-posts` -> `blog_posts`: Rails' names. */
export function snakeCase(name: string): string {
  return name.replace(/([a-z\d])([A-Z])/g, '$1_$2').replace(/[-\s]+/g, '_').toLowerCase();
}
