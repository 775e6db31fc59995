// The executable's entry point (the single-executable blob's `main`). It compiles the
// bundle, carried as the asset `device-agent.js`, with the V8 code cache `code-cache.bin`
// that build.mjs made by running the agent's start (src/sea/train.cjs): the functions a
// start runs come compiled. Node's own `useCodeCache` caches only what V8 compiles before
// running (top-level code); measured, same build: 3-4 ms less CPU to the first answer.
// A missing cache (a cross-built executable) or one V8 refuses: compiled from source.
// Outside the executable it exports how the bundle is wrapped, compiled and run, for the
// build and the training run: V8 takes a cache only for the same source and options.
'use strict';
const { Script } = require('node:vm');

/** The CommonJS wrapper, on the first line: stack positions stay those of device-agent.cjs. */
function wrap(bundleSource) {
  return `(function (exports, require, module, __filename, __dirname) {${bundleSource}\n})`;
}

/** Compiles the wrapped bundle, with a code cache when given one. */
function compile(wrapped, cachedData) {
  return new Script(wrapped, { filename: 'device-agent.cjs', cachedData });
}

/** Runs the compiled bundle as a CommonJS module (it requires built-in modules only). */
function run(script, filename, dirname) {
  const bundle = { exports: {} };
  script.runInThisContext().call(bundle.exports, bundle.exports, require, bundle, filename, dirname);
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
  const script = compile(sea.getAsset('device-agent.js', 'utf8'), cachedData);
  if (cachedData && script.cachedDataRejected) {
    process.stderr.write('device-agent: the start-up code cache does not fit this build and was ignored\n');
  }
  run(script, __filename, __dirname);
} else {
  module.exports = { wrap, compile, run };
}
