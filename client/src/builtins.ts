// Node's built-in modules, through require rather than `import`, and the heavy ones only
// when first used. An ES import of a built-in module copies every export into its
// namespace, which runs the module's lazy exports (node:http's WebSocket and fetch load
// undici and web streams: 228 built-in modules at start under Node 24 instead of 113). And
// dagent is one bundle (client/scripts/build.mjs) whose modules all run at start, so what
// only some commands need is loaded here on demand: node:http (3-4 ms under Node 24) only
// for the requests that go through it (not downloads and uploads), TLS (node:https,
// node:tls: some 10-25 ms) only for an https:// device, node:crypto (~3 ms) for a pin,
// readline for a question, stream/promises for a piped stream. The
// files of a command (its control file, a stat) use node:fs's sync calls: fs/promises
// would cost 1-2 ms of every start.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const http = () => require('node:http') as typeof import('node:http');
export const https = () => require('node:https') as typeof import('node:https');
export const tls = () => require('node:tls') as typeof import('node:tls');
export const crypto = () => require('node:crypto') as typeof import('node:crypto');
export const readline = () => require('node:readline') as typeof import('node:readline');
export const streams = () => require('node:stream/promises') as typeof import('node:stream/promises');
