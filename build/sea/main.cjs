// The executable's entry point (the single-executable blob's `main`). It compiles the
// bundle, carried as the asset `device-agent.js`, with the V8 code cache `code-cache.bin`
// that build.mjs made by running the agent's start (build/sea/train.cjs): the functions a
// start runs come compiled. Node's own `useCodeCache` caches only what V8 compiles before
// running (top-level code); measured, same build: 3-4 ms less CPU to the first answer.
// A missing cache (a cross-built executable) or one V8 refuses: compiled from source.
// The bundle is compiled as a function, as Node's CommonJS loader does, not as a
// vm.Script of the wrapped source: measured, same bundle and Node, status requests
// interleaved, a vm.Script's code served 0.68-0.75 × the fixed-JSON server's rate and a
// function's 0.80-0.90 (docs/decisions.md).
// Outside the executable it exports how the bundle is compiled and run, for the build
// and the training run: V8 takes a cache only for the same source and options.
'use strict';
const { compileFunction } = require('node:vm');

/** The CommonJS wrapper's parameters; line and column positions stay those of device-agent.cjs. */
const PARAMS = ['exports', 'require', 'module', '__filename', '__dirname'];
const FILENAME = 'device-agent.cjs';

/** Compiles the bundle as a CommonJS module's function, with a code cache when given one. */
function compile(bundleSource, cachedData) {
  return compileFunction(bundleSource, PARAMS, { filename: FILENAME, cachedData });
}

/**
 * V8's code cache of the bundle with every function this process has compiled of it so
 * far: V8 answers a second compile of the same source with the first one's functions,
 * the lazily compiled ones included.
 */
function codeCache(bundleSource) {
  return compileFunction(bundleSource, PARAMS, { filename: FILENAME, produceCachedData: true }).cachedData;
}

/** Runs the compiled bundle as a CommonJS module (it requires built-in modules only). */
function run(fn, filename, dirname) {
  const bundle = { exports: {} };
  fn.call(bundle.exports, bundle.exports, require, bundle, filename, dirname);
}

let sea;
try {
  sea = require('node:sea');
} catch {
  sea = undefined; // a Node before 20.12 running the build
}
if (sea?.isSea()) {
  let cachedData;
  try {
    cachedData = new Uint8Array(sea.getRawAsset('code-cache.bin')); // a view of the executable's pages, no copy
  } catch {
    cachedData = undefined;
  }
  const fn = compile(sea.getAsset('device-agent.js', 'utf8'), cachedData);
  if (cachedData && fn.cachedDataRejected) {
    process.stderr.write('device-agent: the start-up code cache does not fit this build and was ignored\n');
  }
  run(fn, __filename, __dirname);
} else {
  module.exports = { compile, codeCache, run };
}
