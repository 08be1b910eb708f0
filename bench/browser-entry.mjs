/**
 * The browser side of the load bench and of the live-UI section (bench/live.mjs), bundled by esbuild (with the library and Backbone) into
 * the page that bench/run.mjs opens in headless Chromium. The data comes from the same
 * loopback server as the page, by relative url.
 */
import * as lib from '../src/index.ts';
import Backbone from 'backbone';
import { runLoad } from './cases.mjs';
import { liveSection } from './live.mjs';

window.runBench = (config) =>
  runLoad({
    lib,
    Backbone,
    url: (n) => `/users/${n}`,
    sizes: config.sizes,
    runsFor: (n) => (config.quick ? 3 : n >= 100_000 ? 9 : 11),
    warmup: config.quick ? 1 : 2,
    gc: typeof window.gc === 'function' ? () => window.gc() : undefined,
    now: () => performance.now(),
    log: (line) => console.log(line),
  });
window.runLive = (config) =>
  liveSection({ lib, url: (n) => `/users/${n}`, quick: config.quick, tanstack: config.tanstack, batch: 10, gc: typeof window.gc === 'function' ? () => window.gc() : undefined, log: (line) => console.log(line) });
window.benchReady = true;
