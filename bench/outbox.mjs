// The outbox's throughput (docs/outbox.md) beside rclone: the same files shipped to the same
// local s3rver, the agent's outbox (S3 target, Signature V4 with the real payload hash,
// multipart at 16 MiB and more) against `rclone copy` with its defaults (4 transfers, its own
// multipart), in alternating order round by round; and against `rclone copy` told to upload as
// the agent must (multipart from 16 MiB in 8 MiB parts, where rclone's default sends a file
// under 200 MiB in one PUT: the store then does none of a multipart's assembly). The agent's
// time runs from its spawn to the moment its /metrics count every byte uploaded; rclone's is
// its process, spawn to exit.
// Full run: 20 × 8 MiB + 2 × 64 MiB (the set); --smoke: 4 × 8 MiB + 1 × 20 MiB.
//   node bench/outbox.mjs [--rounds N] [--smoke]     prints the row as a Markdown table
// bench/run.mjs adds outboxRows()'s row to BENCHMARKS.md.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import S3rver from 's3rver';
import { AGENT_LISTENING, baseConfig, codeRssKb, loginToken, portIn, procStats } from './procs.mjs';
import { rcloneEnv } from './rclone.mjs';
import { wrk } from './clients.mjs';
import { lessCodeRows, pairRatio, table } from './report.mjs';
import { BIN, flag, inTempDir, numberArg, ranAlone } from './alone.mjs';

const MiB = 1024 * 1024;
const KEY = 'S3RVER';
const BUCKET = 'bench';

function makeFile(file, size) {
  const chunk = randomBytes(MiB);
  const fd = openSync(file, 'w');
  for (let left = size; left > 0; left -= chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, left));
  closeSync(fd);
}

/** A fresh s3rver with the bucket, in this process; its URL and a close(). */
async function store(dir) {
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, directory: dir, silent: true, configureBuckets: [{ name: BUCKET }] });
  const info = await s3.run();
  return { url: `http://127.0.0.1:${info.port}`, close: () => s3.close() };
}

/** rclone's multipart as the agent's (docs/outbox.md, "S3"): from 16 MiB, 8 MiB parts. */
const AS_THE_AGENT = { RCLONE_S3_UPLOAD_CUTOFF: '16M', RCLONE_S3_CHUNK_SIZE: '8M' };

/** `body(url)` with a fresh s3rver; then the store and `dir` (the agent's, beside it) are removed. */
async function withStore(dir, body) {
  const s = await store(`${dir}-store`);
  try {
    return await body(s.url);
  } finally {
    await s.close();
    rmSync(`${dir}-store`, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `rclone copy`'s seconds, spawn to exit, and its CPU seconds (user + system, all threads):
 * run by a shell that prints its own /proc stat once rclone is reaped, whose cutime and
 * cstime are then rclone's.
 */
function rcloneCopy(url, from, prefix, extraEnv = {}) {
  const env = { ...rcloneEnv(url, KEY, KEY), ...extraEnv };
  const t = performance.now();
  const script = 'rclone copy "$1" "$2" && cat /proc/$$/stat';
  return new Promise((resolve, reject) =>
    execFile('sh', ['-c', script, 'sh', from, `store:${BUCKET}/${prefix}`], { env }, (err, out, stderr) => {
      if (err) return reject(new Error(`rclone copy: ${stderr}`));
      const fields = out.slice(out.lastIndexOf(')') + 2).split(' ');
      // cutime, cstime: clock ticks (USER_HZ 100)
      resolve({ secs: (performance.now() - t) / 1000, cpuS: (Number(fields[13]) + Number(fields[14])) / 100 });
    }),
  );
}

/**
 * An agent with the outbox on (an S3 target at `url`) over `dir`, whose recordings/ already
 * holds its files: its users file and metrics token written beforehand, and nobody logs in, so
 * no password hashing competes with the shipping for the CPU. `shipped()` reads the bytes
 * uploaded from /metrics, `pending()` the files waiting.
 */
async function startShipper(bin, dir, users, url) {
  mkdirSync(join(dir, 'files/recordings'), { recursive: true });
  copyFileSync(users, join(dir, 'users.json'));
  const token = randomBytes(32).toString('hex');
  writeFileSync(join(dir, 'metrics.token'), `${token}\n`, { mode: 0o600 });
  writeFileSync(join(dir, 's3.secret'), `${KEY}\n`, { mode: 0o600 });
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify(
      baseConfig({
        outbox: {
          target: {
            type: 's3',
            endpoint: url,
            region: 'us-east-1',
            bucket: BUCKET,
            prefix: `agent-${process.hrtime.bigint()}/`,
            accessKeyId: KEY,
            secretAccessKeyFile: 's3.secret',
          },
          maxBackoffSeconds: 3600,
        },
      }),
    ),
  );
  const logFile = join(dir, 'agent.log');
  const fd = openSync(logFile, 'w');
  const child = spawn(bin, ['serve', '--config', config], { stdio: ['ignore', fd, 'inherit'] });
  closeSync(fd);
  const port = await portIn(logFile, AGENT_LISTENING, child);
  const metric = async (name) => {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
    return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(await res.text())?.[1] ?? 0);
  };
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    shipped: () => metric('device_agent_outbox_uploaded_bytes_total'),
    pending: () => metric('device_agent_outbox_pending_files'),
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** Polls `probe` every 100 ms until it holds; throws after 10 minutes. */
async function until(what, probe) {
  const t = performance.now();
  while (!(await probe())) {
    if (performance.now() - t > 600_000) throw new Error(`bench/outbox.mjs: ${what} never happened`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Writes the files (name → bytes) under dir/files/recordings, last changed a minute ago: complete for the start's scan. */
function recordings(dir, files) {
  const filesDir = join(dir, 'files/recordings');
  mkdirSync(filesDir, { recursive: true });
  const old = new Date(Date.now() - 60_000);
  for (const [name, size] of files) {
    makeFile(join(filesDir, name), size);
    utimesSync(join(filesDir, name), old, old);
  }
}

/**
 * Seconds from the agent's spawn until its /metrics counts `total` bytes uploaded, and the
 * agent's CPU seconds over the same time (all threads, its start included, as rclone's are).
 */
async function agentShip(bin, dir, users, url, files, total) {
  recordings(dir, files);
  const t = performance.now();
  const agent = await startShipper(bin, dir, users, url);
  try {
    await until('the files shipped', async () => (await agent.shipped()) >= total);
    return { secs: (performance.now() - t) / 1000, cpuS: procStats(agent.child.pid).cpuS };
  } finally {
    await agent.stop();
  }
}

/**
 * Peak RSS (VmHWM, MB) of an agent with the outbox on: idle with nothing to ship, and
 * shipping one file of `size` bytes; and `code`, how much more of the executable's code was
 * resident at the end (pages faulted in once per process: docs/outbox.md, "Figures").
 */
async function shippingPeak(bin, dir, users, url, size) {
  const idle = await startShipper(bin, join(dir, 'idle'), users, url);
  await new Promise((r) => setTimeout(r, 1000));
  const idleMb = procStats(idle.child.pid).hwmKb / 1024;
  const idleCode = codeRssKb(idle.child.pid, bin);
  await idle.stop();
  recordings(join(dir, 'big'), [['big.bin', size]]);
  const agent = await startShipper(bin, join(dir, 'big'), users, url);
  try {
    await until('the big file shipped', async () => (await agent.shipped()) >= size);
    return { mb: procStats(agent.child.pid).hwmKb / 1024 - idleMb, code: (codeRssKb(agent.child.pid, bin) - idleCode) / 1024 };
  } finally {
    await agent.stop();
  }
}

/** RSS (MB) with `n` files pending (the store unreachable) over the same agent with none; `code` as shippingPeak's. */
async function pendingRss(bin, dir, users, n) {
  const closed = 'http://127.0.0.1:9'; // discard: nothing listens, every attempt fails at once
  const none = await startShipper(bin, join(dir, 'none'), users, closed);
  await new Promise((r) => setTimeout(r, 1000));
  const noneMb = procStats(none.child.pid).rssKb / 1024;
  const noneCode = codeRssKb(none.child.pid, bin);
  await none.stop();
  const many = join(dir, 'many');
  const filesDir = join(many, 'files/recordings');
  mkdirSync(filesDir, { recursive: true });
  const old = new Date(Date.now() - 60_000);
  for (let i = 0; i < n; i++) {
    const f = join(filesDir, `take-${String(i).padStart(5, '0')}.wav`);
    writeFileSync(f, 'x');
    utimesSync(f, old, old);
  }
  const agent = await startShipper(bin, many, users, closed);
  try {
    await until(`${n} files pending`, async () => (await agent.pending()) >= n);
    await new Promise((r) => setTimeout(r, 1000));
    return { mb: procStats(agent.child.pid).rssKb / 1024 - noneMb, code: (codeRssKb(agent.child.pid, bin) - noneCode) / 1024 };
  } finally {
    await agent.stop();
  }
}

/** Bytes the process has written, to sockets and files alike (/proc/PID/io `wchar`). */
function written(pid) {
  return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))[1]);
}

/**
 * Authenticated status req/s (wrk, as bench/run.mjs's row) of an agent while its outbox ships
 * one file of `size` bytes at full speed, and of the same agent once it has shipped it.
 * `whileShipping` is null when the file was shipped before the run ended (too small a file
 * for this host). And the outbox's sending rate (MB/s) during the load and in the `seconds`
 * after it (or until the file is shipped, if sooner): what the agent wrote (/proc/PID/io)
 * less its log's growth and the status answers wrk counted, each as long as the first one
 * (the outbox gives way to a busy API, src/util/give-way.ts; the quiet side also holds the
 * few /metrics answers of the polling). A second of wrk first warms the status path for
 * both runs; the outbox gives way during it too, so a small file is still shipping after.
 */
async function statusWhileShipping(bin, dir, users, url, size, seconds) {
  recordings(dir, [['big.bin', size]]);
  const agent = await startShipper(bin, dir, users, url);
  try {
    const auth = { Authorization: `Bearer ${await loginToken(agent.url)}` };
    const status = `${agent.url}/api/v1/devicestatus/get`;
    // Queued at the start's scan (the file is old enough) and shipped from then on; the
    // uploaded-bytes counter moves only once a file is verified.
    await until('the file queued', async () => (await agent.pending()) >= 1);
    const answer = await fetch(status, { headers: auth });
    const answerBytes =
      (await answer.arrayBuffer()).byteLength + [...answer.headers].reduce((n, [k, v]) => n + k.length + v.length + 4, 19);
    const pid = agent.child.pid;
    const logged = () => statSync(join(dir, 'agent.log')).size;
    const rate = async (run) => {
      const [w0, l0, t0] = [written(pid), logged(), performance.now()];
      const requests = await run();
      return (written(pid) - w0 - (logged() - l0) - requests * answerBytes) / MiB / ((performance.now() - t0) / 1000);
    };
    // The status path warmed first (its code compiled), as for the row's second run.
    await wrk(status, auth, 1);
    let during;
    const busyMBs = await rate(async () => {
      during = await wrk(status, auth, seconds);
      return during.rps * seconds;
    });
    const unfinished = (await agent.shipped()) < size;
    const quietMBs = await rate(async () => {
      const end = performance.now() + seconds * 1000;
      while (performance.now() < end && (await agent.shipped()) < size) await new Promise((r) => setTimeout(r, 250));
      return 0;
    });
    await until('the file shipped', async () => (await agent.shipped()) >= size);
    const after = await wrk(status, auth, seconds);
    return { whileShipping: unfinished ? during.rps : null, idle: after.rps, quietMBs, busyMBs: unfinished ? busyMBs : null };
  } finally {
    await agent.stop();
  }
}

/** A users file with one user, made once (`device-agent user add` hashes its password). */
function usersFile(bin, dir) {
  mkdirSync(join(dir, 'files'), { recursive: true });
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ baseDir: 'files', usersFile: 'users.json', jwtSecretFile: 'jwt.secret' }));
  execFileSync(bin, ['user', 'add', 'bench', '--config', config], { input: 'bench-password\n', stdio: ['pipe', 'ignore', 'inherit'] });
  return join(dir, 'users.json');
}

export async function outboxRows({ bin, dir, rounds = 3, smoke = false, log = () => {} }) {
  mkdirSync(dir, { recursive: true });
  const files = smoke
    ? [...Array.from({ length: 4 }, (_, i) => [`f${i}.bin`, 8 * MiB]), ['big0.bin', 20 * MiB]]
    : [...Array.from({ length: 20 }, (_, i) => [`f${i}.bin`, 8 * MiB]), ...[0, 1].map((i) => [`big${i}.bin`, 64 * MiB])];
  const total = files.reduce((a, [, s]) => a + s, 0);
  const src = join(dir, 'src');
  mkdirSync(src, { recursive: true });
  for (const [name, size] of files) makeFile(join(src, name), size);
  const users = usersFile(bin, join(dir, 'users'));
  const agentMBs = [];
  const rcloneMBs = [];
  const sameMBs = [];
  const agentCpu = [];
  const rcloneCpu = [];
  for (let i = 0; i < rounds; i++) {
    const s = await store(join(dir, `store-${i}`));
    try {
      const runAgent = async () => {
        const a = await agentShip(bin, join(dir, `agent-${i}`), users, s.url, files, total);
        agentMBs.push(total / MiB / a.secs);
        agentCpu.push(a.cpuS / (total / 1e9));
      };
      const runRclone = async () => {
        const r = await rcloneCopy(s.url, src, `rclone-${i}`);
        rcloneMBs.push(total / MiB / r.secs);
        rcloneCpu.push(r.cpuS / (total / 1e9));
        sameMBs.push(total / MiB / (await rcloneCopy(s.url, src, `rclone-as-agent-${i}`, AS_THE_AGENT)).secs);
      };
      // Alternating order: neither always runs on a warmer store.
      if (i % 2 === 0) {
        await runAgent();
        await runRclone();
      } else {
        await runRclone();
        await runAgent();
      }
      log(
        `outbox round ${i + 1}: agent ${agentMBs.at(-1).toFixed(1)} MiB/s, rclone ${rcloneMBs.at(-1).toFixed(1)} MiB/s, rclone uploading as the agent ${sameMBs.at(-1).toFixed(1)} MiB/s`,
      );
    } finally {
      await s.close();
      rmSync(join(dir, `store-${i}`), { recursive: true, force: true });
      rmSync(join(dir, `agent-${i}`), { recursive: true, force: true });
    }
  }
  const count = smoke ? '4 × 8 MiB + 1 × 20 MiB' : '20 × 8 MiB + 2 × 64 MiB';
  const [bigSize, bigName] = smoke ? [64 * MiB, '64 MiB'] : [1024 * MiB, '1 GiB'];
  const n = smoke ? 1000 : 10_000;
  const peak = await withStore(join(dir, 'peak'), (url) => shippingPeak(bin, join(dir, 'peak'), users, url, bigSize));
  log(
    `outbox: shipping a ${bigName} file peaks ${peak.mb.toFixed(1)} MB over idle, ${peak.code.toFixed(1)} MB of it the executable's code`,
  );
  const status = await withStore(join(dir, 'status'), (url) =>
    statusWhileShipping(bin, join(dir, 'status'), users, url, bigSize, smoke ? 1 : 3),
  );
  log(
    `outbox: status ${status.whileShipping?.toFixed(0) ?? '(shipped before the run ended)'} req/s while shipping, ${status.idle.toFixed(0)} after`,
  );
  const pending = await pendingRss(bin, join(dir, 'pending'), users, n);
  log(`outbox: ${n} files pending add ${pending.mb.toFixed(1)} MB, ${pending.code.toFixed(1)} MB of it the executable's code`);
  rmSync(join(dir, 'pending'), { recursive: true, force: true });
  return [
    ...lessCodeRows({
      figure: `peak RSS shipping a ${bigName} file (multipart), over the idle agent with the outbox on`,
      mb: peak.mb,
      codeMb: peak.code,
      pages: 'it faulted in (HTTP client, hashing, signing; once per process)',
      limit: 16,
    }),
    ...lessCodeRows({
      figure: `RSS with ${n.toLocaleString('en')} files pending, over none pending`,
      mb: pending.mb,
      codeMb: pending.code,
      pages: 'it faulted in',
      limit: 8,
      target: smoke ? 'report (≤ +8 MB at 10,000)' : '≤ +8 MB',
    }),
    {
      figure: `outbox shipping ${count} to a local s3rver (spawn to all verified)`,
      unit: 'MiB/s',
      agent: agentMBs,
      baseline: rcloneMBs,
      baselineName: 'rclone copy',
      target: '≥ 0.9 ×',
      ok: pairRatio(agentMBs, rcloneMBs) >= 0.9,
    },
    {
      figure: 'the same, rclone uploading as the agent must (multipart from 16 MiB in 8 MiB parts; its default: one PUT under 200 MiB)',
      unit: 'MiB/s',
      agent: agentMBs,
      baseline: sameMBs,
      baselineName: 'rclone copy --s3-upload-cutoff 16M --s3-chunk-size 8M',
      target: '≥ 0.9 ×',
      ok: pairRatio(agentMBs, sameMBs) >= 0.9,
    },
    {
      figure: 'the same, CPU seconds per GB (the agent, spawn to all verified; rclone, spawn to exit; all threads)',
      unit: 's/GB',
      agent: agentCpu,
      baseline: rcloneCpu,
      baselineName: 'rclone copy',
      target: '≤ 1.2 ×',
      ok: pairRatio(agentCpu, rcloneCpu) <= 1.2,
      digits: 2,
    },
    {
      figure: `authenticated status req/s while the outbox ships a ${bigName} file at full speed, over the same agent after`,
      unit: 'req/s',
      agent: status.whileShipping === null ? [] : [status.whileShipping],
      baseline: [status.idle],
      baselineName: 'same agent, shipped',
      target: status.whileShipping === null ? '≥ 0.9 × (not measured: shipped before the run ended)' : '≥ 0.9 ×',
      ok: status.whileShipping !== null && status.whileShipping / status.idle >= 0.9,
    },
    {
      figure:
        "the outbox's sending rate during that load, over the seconds just after it (what the agent wrote less its log and the status answers; it gives way to a busy API)",
      unit: 'MB/s',
      agent: status.busyMBs === null ? [] : [status.busyMBs],
      baseline: [status.quietMBs],
      baselineName: 'after the load',
      target: 'report',
      ok: true,
      digits: 1,
    },
  ];
}

if (ranAlone(import.meta.url)) {
  const smoke = flag('smoke');
  await inTempDir('da-bench-outbox-', async (dir) => {
    const rows = await outboxRows({ bin: BIN, dir, rounds: numberArg('rounds', smoke ? 1 : 3), smoke, log: (m) => console.error(m) });
    console.log(table(rows));
  });
}
