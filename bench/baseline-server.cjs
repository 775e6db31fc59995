// The ceilings the agent is measured against, on the same Node binary it embeds:
//   POST /sink    writes the raw request body to a file and fsyncs it (durable upload)
//   GET  /status  answers a fixed copy of the status JSON (small authenticated GET)
// Usage: node baseline-server.cjs STATUS_JSON_FILE SINK_DIR [PORT]   (prints "listening PORT")
'use strict';
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

const [statusFile, sinkDir, port = '0'] = process.argv.slice(2);
// A string, as the agent sends it: headers and body go out in one write(2).
const statusBody = fs.readFileSync(statusFile, 'utf8');
const statusLength = Buffer.byteLength(statusBody);

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/status') {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': statusLength });
    return res.end(statusBody);
  }
  if (req.method === 'POST' && req.url === '/sink') {
    // One file, truncated each time: written, fsynced, closed, like a durable upload.
    const fd = fs.openSync(path.join(sinkDir, 'sink.bin'), 'w', 0o644);
    const out = fs.createWriteStream(null, { fd, autoClose: false, highWaterMark: 1 << 20 });
    req.pipe(out);
    out.on('finish', () =>
      fs.fsync(fd, (err) =>
        fs.close(fd, () => {
          res.writeHead(err ? 500 : 200, { 'Content-Type': 'application/json' });
          res.end(err ? '{"error":"fsync"}' : '{"message":"ok"}');
        }),
      ),
    );
    return;
  }
  res.writeHead(404);
  res.end();
});
server.listen(Number(port), '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
