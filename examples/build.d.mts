/** Types of examples/build.mjs, for the tests (TypeScript). */
export type ExampleName = 'react' | 'vue';

export interface BuildOptions {
  /** Where the built page goes (emptied first). */
  outDir: string;
  /** Build React's and Vue's development versions (warnings, StrictMode's double effects). Default false. */
  development?: boolean;
}

export const EXAMPLES: Readonly<Record<ExampleName, () => unknown>>;
/** Vite aliases: 'rest-proxy' and its entries from the library's sources. */
export const LIBRARY_ALIASES: readonly { find: RegExp; replacement: string }[];
export function buildExample(name: ExampleName, options: BuildOptions): Promise<void>;

export interface PagesOptions extends BuildOptions {
  /** The directory of the pages' html files and sources. */
  root: string;
  /** Vite plugins (a framework's). Default none. */
  plugins?: unknown[];
  /** The html files to build, relative to `root`. Default `index.html`. */
  pages?: string[];
}

/** Build the pages of `root` with Vite, 'rest-proxy' aliased to the library's sources. */
export function buildPages(options: PagesOptions): Promise<void>;
