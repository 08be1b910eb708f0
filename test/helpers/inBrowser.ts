/** True when the suites run in a browser (vitest.browser.config.ts); a few Node-only tests skip there. */
export const inBrowser = typeof window !== 'undefined' && typeof document !== 'undefined';
