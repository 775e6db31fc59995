#!/usr/bin/env node
// The dagent executable. Every command is a whole process start, so Node's compile cache
// (Node 22.1 and later; a no-op before) is turned on before the command's modules load,
// then main.ts runs.
import module from 'node:module';

module.enableCompileCache?.();
await import('./main.ts');
