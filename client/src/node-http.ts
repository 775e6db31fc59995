// node:http through require, not `import`: an ES import of a built-in module copies every
// export into its namespace, and node:http's lazy WebSocket/fetch exports then load undici
// and web streams at start (Node 24: 228 built-in modules loaded instead of 113 before the
// first request; dagent status is a whole process start, so this is a share of every command).
import { createRequire } from 'node:module';

export const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');
