// The outbox's throughput (docs/outbox.md) beside rclone: the same files shipped to the same
// local s3rver, the agent's outbox (S3 target, Signature V4 with the real payload hash,
// multipart at 16 MiB and more) against `rclone copy` with its defaults (4 transfers, its own
// multipart), in alternating order round by round. The agent's time runs from its spawn to the
// moment its /metrics count every byte uploaded; rclone's is its process, spawn to exit.
// Full run: 20 × 8 MiB + 2 × 64 MiB (the set); --smoke: 4 × 8 MiB + 1 × 20 MiB.
//   node bench/outbox.mjs [--rounds N] [--smoke]     prints the row as a Markdown table
// bench/run.mjs adds outboxRows()'s row to BENCHMARKS.md.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, rmSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';
import { AGENT_LISTENING, portIn } from './procs.mjs';
import { pairRatio, table } from './report.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
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

function rcloneCopy(url, from, prefix) {
  const { AWS_CA_BUNDLE: _ca, ...inherited } = process.env;
  const env = {
    ...inherited,
    RCLONE_CONFIG: '/dev/null',
    RCLONE_CONFIG_STORE_TYPE: 's3',
    RCLONE_CONFIG_STORE_PROVIDER: 'Other',
    RCLONE_CONFIG_STORE_ENDPOINT: url,
    RCLONE_CONFIG_STORE_ACCESS_KEY_ID: KEY,
    RCLONE_CONFIG_STORE_SECRET_ACCESS_KEY: KEY,
    RCLONE_CONFIG_STORE_FORCE_PATH_STYLE: 'true',
    RCLONE_CONFIG_STORE_REGION: 'us-east-1',
  };
  const t = performance.now();
  return new Promise((resolve, reject) =>
    execFile('rclone', ['copy', from, `store:${BUCKET}/${prefix}`], { env }, (err, _out, stderr) =>
      err ? reject(new Error(`rclone copy: ${stderr}`)) : resolve((performance.now() - t) / 1000),
    ),
  );
}

/**
 * Seconds from the agent's spawn until its /metrics counts `total` bytes uploaded. Its users
 * file and metrics token are written beforehand and nobody logs in: no password hashing
 * competes with the shipping for the CPU.
 */
async function agentShip(bin, dir, users, url, files, total) {
  const filesDir = join(dir, 'files/recordings');
  mkdirSync(filesDir, { recursive: true });
  // Complete before the agent starts: last changed a minute ago (the start's scan ships them).
  const old = new Date(Date.now() - 60_000);
  for (const [name, size] of files) {
    makeFile(join(filesDir, name), size);
    utimesSync(join(filesDir, name), old, old);
  }
  copyFileSync(users, join(dir, 'users.json'));
  const token = randomBytes(32).toString('hex');
  writeFileSync(join(dir, 'metrics.token'), `${token}\n`, { mode: 0o600 });
  writeFileSync(join(dir, 's3.secret'), `${KEY}\n`, { mode: 0o600 });
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      host: '127.0.0.1',
      port: 0,
      baseDir: 'files',
      usersFile: 'users.json',
      jwtSecretFile: 'jwt.secret',
      audio: { device: 'null' },
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
      },
    }),
  );
  const logFile = join(dir, 'agent.log');
  const fd = openSync(logFile, 'w');
  const t = performance.now();
  const child = spawn(bin, ['serve', '--config', config], { stdio: ['ignore', fd, 'inherit'] });
  closeSync(fd);
  try {
    const port = await portIn(logFile, AGENT_LISTENING, child);
    for (;;) {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
      const shipped = Number(/^device_agent_outbox_uploaded_bytes_total (\d+)$/m.exec(await res.text())?.[1] ?? 0);
      if (shipped >= total) return (performance.now() - t) / 1000;
      if (performance.now() - t > 600_000) throw new Error(`the outbox did not finish: ${shipped} of ${total} bytes`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
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
  for (let i = 0; i < rounds; i++) {
    const s = await store(join(dir, `store-${i}`));
    try {
      const runAgent = async () => {
        const secs = await agentShip(bin, join(dir, `agent-${i}`), users, s.url, files, total);
        agentMBs.push(total / MiB / secs);
      };
      const runRclone = async () => {
        rcloneMBs.push(total / MiB / (await rcloneCopy(s.url, src, `rclone-${i}`)));
      };
      // Alternating order: neither always runs on a warmer store.
      if (i % 2 === 0) {
        await runAgent();
        await runRclone();
      } else {
        await runRclone();
        await runAgent();
      }
      log(`outbox round ${i + 1}: agent ${agentMBs.at(-1).toFixed(1)} MiB/s, rclone ${rcloneMBs.at(-1).toFixed(1)} MiB/s`);
    } finally {
      await s.close();
      rmSync(join(dir, `store-${i}`), { recursive: true, force: true });
      rmSync(join(dir, `agent-${i}`), { recursive: true, force: true });
    }
  }
  const count = smoke ? '4 × 8 MiB + 1 × 20 MiB' : '20 × 8 MiB + 2 × 64 MiB';
  return [
    {
      figure: `outbox shipping ${count} to a local s3rver (spawn to all verified)`,
      unit: 'MiB/s',
      agent: agentMBs,
      baseline: rcloneMBs,
      baselineName: 'rclone copy',
      target: '≥ 0.9 ×',
      ok: pairRatio(agentMBs, rcloneMBs) >= 0.9,
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, def) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : def;
  };
  const smoke = process.argv.includes('--smoke');
  const dir = mkdtempSync(join(tmpdir(), 'da-bench-outbox-'));
  try {
    const rows = await outboxRows({
      bin: join(root, 'dist/device-agent'),
      dir,
      rounds: arg('rounds', smoke ? 1 : 3),
      smoke,
      log: (m) => console.error(m),
    });
    console.log(table(rows));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
