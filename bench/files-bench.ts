// Throughput and peak memory of the file routes against dist/device-agent, beside a raw
// fsync'ing sink and formidable 3.5 as baselines.  Run: npx tsx bench/files-bench.ts
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, fsyncSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import formidable from 'formidable';

process.env.TEST_AGENT = 'bin';
const { startAgent } = await import('../test/helpers/agent.ts');

const SIZE = 50_000_000;
const scratch = mkdtempSync(join(tmpdir(), 'da-bench-'));
const src = join(scratch, 'src.bin');
writeFileSync(src, Buffer.alloc(SIZE, 7));
const mb = (bytes: number, ms: number) => (bytes / 1e6 / (ms / 1000)).toFixed(0);
const hwm = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
let before = 0;
/** Peak RSS is reset to the current RSS, so each figure is the peak during that run alone. */
const resetHwm = (pid: number) => {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  before = rss(pid);
};
const peak = (pid: number) => `peak RSS ${hwm(pid).toFixed(0)} MiB (${before.toFixed(0)} MiB before)`;

function curl(args: string[]): Promise<number> {
  const t = Date.now();
  return new Promise((resolve, reject) => {
    const c = spawn('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', ...args]);
    let out = '';
    c.stdout.on('data', (d) => {
      out += d;
    });
    c.on('close', () => (out === '200' ? resolve(Date.now() - t) : reject(new Error(`curl: ${out}`))));
  });
}

async function best(n: number, run: () => Promise<number>): Promise<number> {
  let min = Infinity;
  for (let i = 0; i < n; i++) min = Math.min(min, await run());
  return min;
}

async function baseline(name: string, handler: Parameters<typeof createServer>[1]) {
  const server = createServer(handler).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as { port: number }).port;
  const ms = await best(3, () => curl(['-F', 'saveToPath=x', '-F', `myFile=@${src}`, `http://127.0.0.1:${port}/`]));
  server.close();
  console.log(`upload ${name}: ${mb(SIZE, ms)} MB/s`);
  return ms;
}

const rawMs = await baseline('raw fsync sink', (req, res) => {
  const file = join(scratch, 'raw.out');
  const out = createWriteStream(file, { highWaterMark: 1 << 20 });
  req.pipe(out).on('finish', () => {
    const fd = openSync(file, 'r+');
    fsyncSync(fd);
    closeSync(fd);
    res.end('ok');
  });
});
await baseline('formidable 3.5.4', (req, res) => {
  const form = formidable({ uploadDir: scratch, maxFileSize: 52428800, maxTotalFileSize: 52428800 });
  form.parse(req, (err, _f, files) => {
    if (err) {
      res.statusCode = 400;
      return res.end();
    }
    const f = (files.myFile ?? [])[0]!;
    const fd = openSync(f.filepath, 'r+');
    fsyncSync(fd);
    closeSync(fd);
    res.end('ok');
  });
});

const agent = await startAgent();
try {
  const token = await agent.login();
  const auth = ['-H', `Authorization: Bearer ${token}`];
  const pid = agent.child.pid!;
  execFileSync('cp', [src, join(agent.baseDir, 'big.bin')]);
  const dl = `${agent.url}/api/download?filepath=big.bin`;

  resetHwm(pid);
  const one = await best(3, () => curl([...auth, dl]));
  console.log(`agent download x1: ${mb(SIZE, one)} MB/s, ${peak(pid)}`);
  resetHwm(pid);
  const t = Date.now();
  await Promise.all(Array.from({ length: 8 }, () => curl([...auth, dl])));
  console.log(`agent download x8: ${mb(8 * SIZE, Date.now() - t)} MB/s aggregate, ${peak(pid)}`);
  resetHwm(pid);
  const up = await best(3, () => curl([...auth, '-F', 'saveToPath=up.bin', '-F', `myFile=@${src}`, `${agent.url}/api/upload`]));
  console.log(`agent upload: ${mb(SIZE, up)} MB/s (${(rawMs / up).toFixed(2)} x raw sink), ${peak(pid)}`);
} finally {
  await agent.cleanup();
  rmSync(scratch, { recursive: true, force: true });
}
