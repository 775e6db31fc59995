#!/usr/bin/env node
// The dagent executable. Every command is a whole process start, so Node's compile cache
// (Node 22.1 and later; a no-op before) is turned on before the command's modules load,
// then main.ts runs (in dist/, main.cjs: main.ts and all it imports in one file, by
// client/scripts/build.mjs).
import module from 'node:module';

module.enableCompileCache?.();
await import('./main.ts');
