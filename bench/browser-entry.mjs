/**
 * The browser side of the load bench, bundled by esbuild (with the library and Backbone) into
 * the page that bench/run.mjs opens in headless Chromium. The data comes from the same
 * loopback server as the page, by relative url.
 */
import * as lib from '../src/index.ts';
import Backbone from 'backbone';
import { runLoad } from './cases.mjs';

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
window.benchReady = true;
