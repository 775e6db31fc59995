// The HTTPS ceiling the agent is measured against (bench/https.mjs), on the Node binary it
// embeds, with the agent's own certificate:
//   GET /big.bin   streams the file (fs.createReadStream piped into the response, in 1 MiB
//                  reads: the default 64 KiB reads are a weaker ceiling, docs/performance.md)
//   GET /status    answers a fixed copy of the status JSON
// Usage: node https-baseline.cjs CERT KEY FILE STATUS_JSON_FILE   (prints "listening PORT")
'use strict';
const https = require('node:https');
const fs = require('node:fs');

const [cert, key, file, statusFile] = process.argv.slice(2);
const statusBody = fs.readFileSync(statusFile, 'utf8');
const statusLength = Buffer.byteLength(statusBody);
const size = fs.statSync(file).size;

const server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
  if (req.url === '/status') {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': statusLength });
    return res.end(statusBody);
  }
  if (req.url === '/big.bin') {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': size });
    return fs.createReadStream(file, { highWaterMark: 1 << 20 }).pipe(res);
  }
  res.writeHead(404);
  res.end();
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
