// The executable's entry point (the single-executable blob's `main`). It compiles the
// bundle, carried as the asset `device-agent.js`, with the V8 code cache `code-cache.bin`
// that build.mjs made by running the agent's start (src/sea/train.cjs): the functions a
// start runs come compiled. Node's own `useCodeCache` caches only what V8 compiles before
// running (top-level code); measured, same build: 3-4 ms less CPU to the first answer.
// A missing cache (a cross-built executable) or one V8 refuses: compiled from source.
'use strict';
const { getAsset, getRawAsset } = require('node:sea');
const { Script } = require('node:vm');

let cachedData;
try {
  cachedData = new Uint8Array(getRawAsset('code-cache.bin')); // a view of the executable's pages, no copy
} catch {
  cachedData = undefined;
}
const script = new Script(getAsset('device-agent.js', 'utf8'), { filename: 'device-agent.cjs', cachedData });
if (cachedData && script.cachedDataRejected) {
  process.stderr.write('device-agent: the start-up code cache does not fit this build and was ignored\n');
}
const bundle = { exports: {} };
script.runInThisContext().call(bundle.exports, bundle.exports, require, bundle, __filename, __dirname);
