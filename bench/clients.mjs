// The load generators: curl for transfers, wrk for request rates.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One curl transfer; resolves with the HTTP status and seconds taken. */
export async function curl(args) {
  const { stdout } = await run('curl', ['-s', '-S', '-o', '/dev/null', '-w', '%{http_code} %{time_total}', ...args], {
    maxBuffer: 1 << 20,
  });
  const [code, seconds] = stdout.trim().split(' ');
  return { status: Number(code), seconds: Number(seconds) };
}

/** `clients` transfers at once; MB/s over the wall time of the whole batch. */
export async function parallel(clients, bytes, argsFor, expect = 200) {
  const t = process.hrtime.bigint();
  const results = await Promise.all(Array.from({ length: clients }, (_, i) => curl(argsFor(i))));
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  for (const r of results) if (r.status !== expect) throw new Error(`transfer answered ${r.status}`);
  return (clients * bytes) / 1e6 / seconds;
}

function toMs(text) {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) return NaN;
  return Number(m[1]) * { us: 1e-3, ms: 1, s: 1e3, m: 6e4 }[m[2]];
}

/**
 * wrk with 50 connections on one thread; requests/s and p99 latency (ms). One thread: both
 * contenders serve from one thread, and on a 2-core machine a second wrk thread takes the
 * core the server runs on (measured: the agent's ratio 0.62 with -t2, 0.72 with -t1, the
 * same code).
 */
export function wrk(url, headers, seconds, connections = 50) {
  return new Promise((resolve, reject) => {
    const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency'];
    for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
    const child = spawn('wrk', [...args, url]);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', () => {
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
      const p99 = toMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? '');
      const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
      if (!Number.isFinite(rps) || non2xx > 0) return reject(new Error(`wrk failed:\n${out}`));
      resolve({ rps, p99 });
    });
    child.on('error', reject);
  });
}
